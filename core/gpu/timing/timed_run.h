#pragma once
// Timing of one launch closure the way every verdict is timed: KernelTimer's
// warm-up, L2 flush and gated CUDA events, summarised by core's statistics
// (summarizeTimings), with the CUPTI window over exactly the timed trials
// (every kernel on every stream, classified by the rule table) and the
// calibrated event bracket. The executor's timing step and the PyTorch
// bridge's session both time through it.
//
// Thread: the executor thread (KernelTimer and CuptiTracer are used here).
#include <cuda_runtime_api.h>

#include <optional>
#include <string>

#include "base/progress.h"
#include "base/status.h"
#include "gpu/timing/kernel_timer.h"
#include "rerun/rerun_types.h"

namespace kwb::gpu {

class TimingWindow {
public:
    // Prepares CUPTI (when `cupti`) for `stream`: initialisation, the stream's
    // CUPTI id and the event bracket's calibration. What fails here is noted
    // in the summaries, not returned: timing goes on without CUPTI.
    TimingWindow(KernelTimer& timer, cudaStream_t stream, const TimingConfig& config, bool cupti);

    // Times `launch`; fills `stats` and `summary`. Progress is reported as `stage`.
    // An error is the launch's (or the timer's); the CUPTI window is closed then.
    // `hooks` (optional): fresh inputs per trial and the output set aside per
    // batch (kernel_timer.h). `hostMs` (optional): the third timer, host wall
    // clock per call around a device synchronize, measured after the window.
    Status time(const LaunchFn& launch, const TaskContext& ctx, const char* stage, std::optional<TimingStats>& stats,
        CuptiSummary& summary, const TrialHooks* hooks = nullptr, std::optional<double>* hostMs = nullptr);

    const TimingConfig& config() const { return m_config; }

    bool cuptiOn() const { return m_cupti; }

private:
    KernelTimer& m_timer;
    cudaStream_t m_stream;
    TimingConfig m_config;
    bool m_cupti = false;
    std::uint32_t m_timedStreamId = 0;
    std::optional<double> m_eventOverheadMs;
    std::string m_cuptiNote;
    std::string m_calibrationNote;
};

// TimingConfig from the request's options.
TimingConfig timingConfigFor(const RerunOptions& options);

// Calls the host timer measures per launch closure: a few (it is a check, not the
// timing; at the suite's largest problems each call is milliseconds). Two device
// synchronizes spread over 5 calls stay inside the flag's 0.05 ms absolute slack.
inline constexpr int kHostTimerCalls = 5;

} // namespace kwb::gpu
