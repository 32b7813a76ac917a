#pragma once
// The candidate host: a shared-object candidate's host code runs in a child
// process of the runner (kwb-candidate-host), never in the runner itself.
//
//   runner                                   child (kwb-candidate-host)
//   cudaMalloc every buffer                  enters the sandbox (core/sandbox),
//   cudaIpcGetMemHandle ──── attach ───────▶ cudaIpcOpenMemHandle, CUDA init,
//   writes inputs, synchronises              dlopen(candidate.so) only now
//   ─────────────────────── launch ────────▶ kwb_launch on its own stream,
//   ◀──────────────── rc, CUDA error ─────── cudaDeviceSynchronize
//   compares outputs with the reference      (never sees the reference, the
//   (the reference lives only here)           runner's stdout or any other fd)
//   wall clock ─────────── time ───────────▶ the core's timer loop (events,
//   ◀───── stats, CUPTI (strict-checked) ─── L2 flush, CUPTI) on its stream
//
// The channel is a private pipe pair (gpu/isolation/host_channel.h); the
// child's stdout and stderr go to a third pipe that the runner copies to its
// own stderr, prefixed, as text. A child that crashes, hangs, breaks the
// channel or leaves a sticky CUDA error costs the current result only (fault,
// timeout, oom) and is started again on next use.
//
// Thread: the executor thread (one call at a time); a reader thread copies the log.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "gpu/checks/input_generator.h"
#include "gpu/device/elem_type.h"
#include "gpu/isolation/isolation_report.h"
#include "gpu/timing/kernel_timer.h"
#include "rerun/rerun_types.h"

namespace kwb::gpu {

// Whether shared objects run in the candidate host: yes unless KWB_ISOLATION=off
// (then they load into kwb-runner; see docs/security-native.md).
bool isolationEnabled();
// The host program: $KWB_CANDIDATE_HOST, else kwb-candidate-host beside this
// executable, in ../../app/runner from it (the test binaries), or in the build tree.
std::string candidateHostPath();

// Fresh input contents inside the host's timed loop (the checks' fresh_inputs,
// against content memoization): what the child draws before each timed trial,
// with the core's generator and the runner's seeds, and where it sets the
// checked trials' outputs aside (runner allocations shared like the others).
// The runner compares those copies with its reference after the loop. The
// seeds are in the child, so a candidate that reads them could compute the
// next trials' outputs ahead, outside the timed trials; that spends the time
// somewhere inside the batch the runner's wall clock brackets (the strict
// check) or shows in the runner's host-timed calls (docs/security-native.md).
struct HostFreshInputs {
    struct Input {
        int buffer = 0; // index into the attached buffers
        std::int64_t elements = 0;
        ElemType type = ElemType::F32;
        GenParams params;          // the seed is derived per trial
        std::uint64_t tensorIndex = 0; // the tensor's place among all tensors (its seed)
    };
    std::vector<Input> inputs;
    std::uint64_t seedBase = 0;
    bool fixed = false;          // a fixed-seed problem: trial 0's seeds every trial
    std::uint64_t trialBase = 0; // the seed trial of timed trial 0
    int every = 10;              // rerun/trial_plan.h checkedTrials
    std::vector<int> outputBuffers; // indices into the attached buffers
    std::vector<std::int64_t> outputBytes;
    std::vector<std::vector<void*>> snapshots; // [slot][output], runner allocations
};

class CandidateHost {
public:
    ~CandidateHost();
    CandidateHost(const CandidateHost&) = delete;
    CandidateHost& operator=(const CandidateHost&) = delete;

    // Starts a host for the shared object at `libraryPath` and waits until it
    // is ready (sandbox entered, library loaded). A library without
    // kwb_launch is InvalidArgument naming `name`.
    static Result<std::shared_ptr<CandidateHost>> start(const std::string& libraryPath, const std::string& name);

    // A new request: forgets the last report; calls wait at most half of `timeoutS`.
    void beginRun(double timeoutS);
    // One call of kwb_launch in the child on `buffers` (device allocations of
    // this process, shared through CUDA IPC) after `stream`'s work is done;
    // returns once the child's device work is done.
    Status launch(const std::vector<void*>& buffers, const std::vector<std::int64_t>& sizes, cudaStream_t stream);
    // The same on the buffers of the last launch, without checking that they
    // are still the attached ones (host-timed calls: the least overhead).
    Status relaunch(cudaStream_t stream);
    // The child closes its IPC mappings (end of a request: the runner frees the buffers).
    void detach();
    // The child's timer loop; the stats are strict-checked against the
    // runner's wall clock around the batch (violations into the report).
    // With `fresh`, the loop draws fresh inputs and fills the snapshots;
    // `kept` gets the trials it set aside (checked against the trials it reported).
    Status time(const std::vector<void*>& buffers, const std::vector<std::int64_t>& sizes, cudaStream_t stream,
        const TimingConfig& config, bool cupti, std::optional<TimingStats>& stats, CuptiSummary& summary,
        const HostFreshInputs* fresh, std::vector<int>& kept);
    // The channel's round trip without GPU work (taken out of host-timed launches).
    Result<double> pingMs();

    // The status a failed call stands for (fault, timeout, oom; else `hint`).
    RerunStatus failureStatus(RerunStatus hint) const;
    IsolationReport& report() { return m_report; }
    int pid() const { return m_pid; }

private:
    CandidateHost() = default;
    Status spawn();
    void stop();
    Status ensureRunning();
    Status attach(const std::vector<void*>& buffers, const std::vector<std::int64_t>& sizes);
    // Sends `command`, reads the reply, checks it is `expected`; a malformed reply is a violation.
    Result<nlohmann::json> call(const nlohmann::json& command, const char* expected, double timeoutS);
    Status failed(std::optional<RerunStatus> status, Status s);

    std::string m_libraryPath;
    std::string m_name;
    std::string m_scratch;
    int m_pid = -1;
    int m_pgid = -1; // the host's process group (its pid at start)
    std::shared_ptr<std::atomic<bool>> m_logStop;
    int m_cmdFd = -1;   // runner -> child
    int m_replyFd = -1; // child -> runner
    std::thread m_logThread;
    std::vector<std::string> m_attachedHandles; // hex IPC handles the child has open, in buffer order
    std::vector<std::int64_t> m_attachedSizes;
    double m_callTimeoutS = 60.0;
    std::optional<RerunStatus> m_lastFailure;
    IsolationReport m_report;
    bool m_crashed = false; // stopped by a failure: the next start is a restart
};

// The strict check of a host's timing against the runner's wall clock around
// its batch of `trials` timed trials (under a time budget, as few as
// `minTrials`): the violation, or empty.
std::string implausibleHostTiming(const TimingStats& stats, int trials, double batchWallMs, int minTrials = -1);
// The trials a host says it set aside, against the checked trials of the
// trials it reported (rerun/trial_plan.h, at most `slots`): the violation, or empty.
std::string implausibleKeptTrials(const std::vector<int>& kept, int reportedTrials, int every, std::size_t slots);

// The child's side: serves the channel on (cmdFd, replyFd) until it closes.
// Returns the process's exit status.
int serveCandidateHost(int cmdFd, int replyFd);

} // namespace kwb::gpu
