#pragma once
// Timing of a launch closure the way KernelBench-style evaluations should:
// warm-up runs first (module load, lazy init and clocks out of the numbers),
// then per trial an optional L2 flush (a kernel reading a buffer twice the L2
// size, outside the timed region) and CUDA events around the launch, all on
// one stream. Returns the per-trial milliseconds.
//
// The flush reads rather than writes: a writing flush (what torch's
// cache.zero_() does) leaves L2 full of dirty lines whose write-back then
// lands inside the next timed kernel.
//
// Events bracket more than the kernel: recording an event costs the stream
// about 1.3 us and the kernel's dispatch after it about as much again (2.6 us
// on an H200, the same for every kernel; CUDA graphs save only 0.2-0.3 us of
// it). eventOverhead() measures that constant on a probe kernel against
// CUPTI, so results can carry the event time less the bracket beside the raw
// event time.
//
// Each batch of trials is enqueued behind a gate kernel that the host opens
// once the whole batch is in the stream, so the GPU never waits for the
// host's next launch inside a trial (with the flush off, short kernels would
// otherwise time the host). A launch closure that waits on the GPU keeps the
// gate shut: it opens itself after 500 ms and the timer stops gating (the
// timeout is generous: enqueueing a batch with per-trial hooks is slow host work).
//
// Thread: executor thread. The flush buffer is owned here.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"

namespace kwb::gpu {

using LaunchFn = std::function<Status(cudaStream_t)>;

// Trials per gated batch (the timer syncs and reports between batches).
inline constexpr int kTimingBatch = 10;

enum class FlushMode : std::uint8_t { Read, Write };

// What the event bracket adds to a kernel's own duration under a timing configuration.
struct EventOverhead {
    double ms = 0.0;            // probe event median minus the probe's CUPTI kernel median
    double probeEventMs = 0.0;
    double probeKernelMs = 0.0;
    int trials = 0;
};

struct TimingConfig {
    int warmup = 10;
    int trials = 100;
    bool l2Flush = true;
    FlushMode flushMode = FlushMode::Read;
    // Persisting L2 (issue 12): before every timed batch, and before a trial
    // whenever the candidate raised the limit again, set the persisting-L2
    // limit to 0, reset persisting lines and clear the stream's access-policy
    // window, outside the timed region; an ordinary flush cannot evict them.
    bool resetPersistingL2 = false;
    // Time budget per call of time() (0: none): the second warm-up is timed
    // alone and warm-ups and trials cut to fit (rerun/trial_plan.h).
    double maxSeconds = 0.0;
    int minTrials = 10;
};


// Per-trial work around the timed launches, all outside the events.
// Kernels the hooks launch must be loaded before time() (CUDA loads lazily,
// and a load waits for the whole context: behind a batch gate, for the gate).
struct TrialHooks {
    // Called once, before the first timed trial, with how many trials run (a
    // time budget may cut what was asked for): which trials to set aside.
    std::function<Status(int trials)> plan;
    // Enqueued on the stream before each timed trial's flush (so behind the
    // batch gate): fresh input contents in the same buffers.
    LaunchFn refresh;
    // Enqueued after the stop event of each batch's last trial (behind the
    // gate, no host wait): e.g. a copy of that trial's output set aside, to be
    // compared with the reference after the timing loop (outside the CUPTI window).
    std::function<Status(int lastTrial)> afterBatch;
};

// Clears persisting-L2 state: limit 0, persisting lines reset, `stream`'s access-policy window cleared.
Status resetPersistingL2(cudaStream_t stream);
// True when someone raised the persisting-L2 limit above 0 (a cheap host query).
bool persistingL2Raised();

class KernelTimer {
public:
    KernelTimer() = default;
    KernelTimer(const KernelTimer&) = delete;
    KernelTimer& operator=(const KernelTimer&) = delete;
    ~KernelTimer();

    // Sizes the flush buffer from the device's L2 (2x, at least 64 MiB).
    Status init(std::int64_t l2Bytes);

    // `beforeTimed` (optional) runs after warm-up, just before the first timed
    // trial (CUPTI enables its window there); `afterTimed` after the last stop event.
    Result<std::vector<double>> time(const LaunchFn& launch, cudaStream_t stream, const TimingConfig& config,
        const TaskContext& ctx, const std::function<Status()>& beforeTimed = {},
        const std::function<Status()>& afterTimed = {}, const TrialHooks* hooks = nullptr);

    // Host wall clock per call: `calls` launches back to back between two
    // device-wide synchronizes (no flush, no events): the third timer beside
    // the events and CUPTI. Work outside what the events bracket (host
    // threads, the host itself, other streams) shows here.
    Result<double> hostMsPerCall(const LaunchFn& launch, cudaStream_t stream, int calls);

    // Per-call mode: each call alone (refresh, flush, events, device-wide
    // synchronize), `check(i)` after each; returns the per-call milliseconds.
    Result<std::vector<double>> timePerCall(const LaunchFn& launch, cudaStream_t stream, const TimingConfig& config,
        const LaunchFn& refresh, const std::function<Status(int)>& check);

    // The event bracket's cost for `config`'s flush setting, measured on first
    // use: a probe kernel (one warp spinning 20 us on %globaltimer) timed the
    // way time() times a candidate, with a CUPTI window over the same trials.
    // Needs CUPTI initialised and no CUPTI window open; cached per flush setting.
    Result<EventOverhead> eventOverhead(cudaStream_t stream, const TimingConfig& config);

    // One flush on `stream` (also usable on its own).
    Status flushL2(cudaStream_t stream, FlushMode mode = FlushMode::Read);

    // Of the last time() call's trials, how many were not held behind a gate
    // (the batches whose gate gave up waiting for the host, and every trial
    // after gating stopped): their events may include the host's enqueueing.
    // Unset without a gate.
    std::optional<int> lastUngatedTrials() const { return m_lastUngated; }
    // Of the last time() call: how many gates gave up, and where the first enqueue
    // that blocked behind a closed gate spent its time ("trial 0: 499 ms in the
    // call"; empty when none blocked: a gate that gave up then saw a slow host).
    struct GateReport {
        int timeouts = 0;
        std::string blocked;
    };
    const GateReport& lastGateReport() const { return m_lastGate; }

private:
    void* m_flush = nullptr;
    unsigned* m_sink = nullptr;
    std::int64_t m_flushBytes = 0;
    unsigned m_flushSeq = 0;
    // Index: 0 = no flush, 1 = read flush, 2 = write flush.
    std::optional<EventOverhead> m_overhead[3];
    // Batch gate (see time()): [0] the sequence number that opens it, [1] gates that timed out.
    void openGate();
    volatile unsigned* m_gateHost = nullptr; // pinned, mapped
    unsigned* m_gateDevice = nullptr;
    unsigned m_gateSeq = 0;
    unsigned m_gateTimeouts = 0;
    bool m_gateEnabled = true;
    std::optional<int> m_lastUngated;
    GateReport m_lastGate;
};

// Names of the helper kernels the executor launches itself (L2 flush, fills,
// scans, input generation): CUPTI summaries leave them out. Matches mangled
// and demangled forms.
bool isInternalKernelName(const char* name);

} // namespace kwb::gpu
