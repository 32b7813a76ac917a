#pragma once
// The shared-object path's pieces of the executor's steps (pipeline/run_steps)
// when the candidate runs in the candidate host: each is called from one line
// in the step it belongs to, and does nothing for an in-process candidate.
#include <optional>
#include <vector>

#include "gpu/isolation/candidate_host.h"
#include "gpu/pipeline/run_context.h"

namespace kwb::gpu {

// compileStep: a new request for the candidate's host (timeouts, report).
void beginIsolatedRun(RunContext& ctx);
// The status a failed candidate call stands for: the host's (fault, timeout,
// oom) when isolated, else `hint`.
RerunStatus candidateFailureStatus(const RunContext& ctx, RerunStatus hint);
// timingStep: whether the candidate is timed by its host, and that timing:
// the host's timer loop (strict-checked), then the runner's own wall clock
// per call around host-timed launches, and the reference's the same way.
bool timedByHost(const RunContext& ctx);
// `fresh` (from hostFreshInputs): the host draws fresh inputs in its loop and
// fills the snapshots; `kept` gets the trials it set aside.
Status timeIsolatedCandidate(RunContext& ctx, const HostFreshInputs* fresh, std::vector<int>& kept);
// The fresh-input plan of timingStep for the host (timed trial t seeds trial
// `trialBase + t`), over `snapshots` ([slot][output]); none when an output is
// not among the candidate's buffers (the host could not set it aside).
std::optional<HostFreshInputs> hostFreshInputs(const RunContext& ctx, std::uint64_t trialBase, int every,
    const std::vector<std::vector<DeviceBuffer>>& snapshots);
// After the steps: the isolation members into the result (isolation_report.h).
void finishIsolation(RunContext& ctx);

} // namespace kwb::gpu
