#pragma once
// The shared-object path's pieces of the executor's steps (pipeline/run_steps)
// when the candidate runs in the candidate host: each is called from one line
// in the step it belongs to, and does nothing for an in-process candidate.
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
Status timeIsolatedCandidate(RunContext& ctx);
// After the steps: the isolation members into the result (isolation_report.h).
void finishIsolation(RunContext& ctx);

} // namespace kwb::gpu
