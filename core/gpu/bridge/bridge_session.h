#pragma once
// The check pipeline's state for one KernelBench sample re-run through the
// PyTorch bridge. The bridge's Python supplies only what it alone can: calls
// of the sample's ModelNew and the problem's Model, and their tensors (device
// pointers). Everything that decides the verdict is here, in the same C++ the
// executor's steps use (gpu/checks/output_checks.h, gpu/timing/timed_run.h):
// coverage from the two-pass scan, device-side output metrics with zero
// acceptance folded over the trials, input hashes, determinism of the
// elements both coverage runs wrote, timing (warm-up, L2 flush, gated CUDA
// events, the calibrated event bracket, core's statistics) with the CUPTI
// window over the timed trials and library kernels by the rule table. The
// result's check members are encoded by the protocol's own encoder.
//
// Nothing here assumes the reference ran in this process: compare() takes
// two device pointers, which may come from a copy or a CUDA IPC mapping.
//
// Thread: one thread at a time per session (the bridge's thread).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "gpu/checks/coverage_scan.h"
#include "gpu/checks/device_metrics.h"
#include "gpu/timing/kernel_timer.h"
#include "problems/coverage_grid.h"
#include "rerun/protocol.h"

namespace kwb::gpu {

// One output's two-pass coverage scan, with the layout it was planned on.
struct BridgeScanner {
    CoverageScanner scanner;
    CoverageLayout layout;
    int elemBytes = 4;
    bool havePassA = false;
    bool havePassB = false;
};

// The tolerance of a policy named as the protocol names it ("kernelbench",
// "kernelbench_legacy", "explicit" with atol/rtol) for a precision ("float32", "fp16", ...).
Result<ToleranceValues> toleranceNamed(const std::string& policy, const std::string& precision, double atol,
    double rtol);

class BridgeSession {
public:
    BridgeSession() = default;
    BridgeSession(const BridgeSession&) = delete;
    BridgeSession& operator=(const BridgeSession&) = delete;
    ~BridgeSession();

    // Starts a new request: forgets every check (the timer and its calibration stay).
    void reset();

    // The tolerance of `policy` ("kernelbench", "kernelbench_legacy",
    // "explicit" with atol/rtol) for `precision` ("float32", "fp16", ...).
    Status setTolerance(const std::string& policy, const std::string& precision, double atol, double rtol);
    const ToleranceValues& tolerance() const { return m_result.tolerance; }

    // Coverage of output `name` from a scanner that has run both passes.
    Status addCoverage(const std::string& name, BridgeScanner& scanner, cudaStream_t stream);

    // Determinism of output `index`: elements written by both coverage runs
    // (`a` after run A, `b` after run B, `count` elements of `elemBytes`) that differ.
    Status addDeterminism(int index, const std::string& name, const void* a, const void* b, std::int64_t count,
        int elemBytes, cudaStream_t stream);

    // Input `index` hashed before (after = false) or after the candidate's call of a trial.
    Status hashInput(int index, const std::string& name, const void* data, std::int64_t bytes, bool after,
        cudaStream_t stream);

    // One correctness trial of output `index`: `out` and `ref` are float32
    // device arrays of `count` elements; `out` null means the candidate's
    // output has the wrong shape (the trial fails).
    Status compare(int index, const std::string& name, const float* out, const float* ref, std::int64_t count,
        cudaStream_t stream);

    // Times `launch` (candidate or reference) on `stream`.
    Status time(bool reference, const LaunchFn& launch, cudaStream_t stream, const RerunOptions& options);
    // The same with issue 12's additions: `refresh` (may be empty) before each
    // trial outside the timed region, the persisting-L2 reset, the host timer
    // (host_timing, measured_by "runner") and optionally the per-call mode (its
    // outputs are checked by the caller through check("per_call", ...)).
    Status timeEx(bool reference, const LaunchFn& launch, const LaunchFn& refresh, cudaStream_t stream,
        const RerunOptions& options);
    // The sample's own __global__ names: CUPTI then fills own_kernels.
    void setOwnKernels(std::vector<std::string> names);
    // Per timed kernel, until reset(): warm-ups and trials cut to fit (TimingConfig::maxSeconds).
    void setTimingBudget(double seconds) { m_timingBudgetS = seconds > 0.0 ? seconds : 0.0; }
    // One more comparison folded into `which`: "post_timing" (an OutputCheck of
    // output `index`), "fresh_inputs" (the counts), "per_call" (per_call_timing's
    // counts), "adversarial:<set>" (an AdversarialCheck).
    Status check(const std::string& which, int index, const std::string& name, const float* out, const float* ref,
        std::int64_t count, cudaStream_t stream);
    // A member measured elsewhere, strictly decoded into the result.
    Status setMember(const std::string& member, const std::string& json);

    // The result so far; finish() closes the correctness trials (passed flags) and the speedup.
    RerunResult& result() { return m_result; }
    void finish();

private:
    OutputCheck& output(int index, const std::string& name);
    InputCheck& input(int index, const std::string& name);
    Status ensureDevice();

    RerunResult m_result;
    DeviceMetrics m_metrics;
    KernelTimer m_timer;
    bool m_timerReady = false;
    unsigned long long* m_hashScratch = nullptr;
    std::map<int, std::uint64_t> m_hashBefore;
    std::vector<std::string> m_ownKernels;
    bool m_ownKernelsSet = false;
    double m_timingBudgetS = 0.0;
    TimingConfig timingConfig(const RerunOptions& options) const;
};

} // namespace kwb::gpu
