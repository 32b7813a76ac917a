#pragma once
// Timing of a launch closure the way KernelBench-style evaluations should:
// warm-up runs first (module load, lazy init and clocks out of the numbers),
// then per trial an optional L2 flush (a kernel reading a buffer twice the L2
// size, outside the timed region) and CUDA events around the launch, all on
// one stream. Returns the per-trial milliseconds.
//
// The flush reads rather than writes: a writing flush (what torch's
// cache.zero_() does) leaves L2 full of dirty lines whose write-back then
// lands inside the next timed kernel. Events also include the ~2-3 us between
// the start event and the kernel's dispatch.
//
// Thread: executor thread. The flush buffer is owned here.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "base/progress.h"
#include "base/status.h"

namespace kwb::gpu {

using LaunchFn = std::function<Status(cudaStream_t)>;

enum class FlushMode : std::uint8_t { Read, Write };

struct TimingConfig {
    int warmup = 10;
    int trials = 100;
    bool l2Flush = true;
    FlushMode flushMode = FlushMode::Read;
};

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
        const std::function<Status()>& afterTimed = {});

    // One flush on `stream` (also usable on its own).
    Status flushL2(cudaStream_t stream, FlushMode mode = FlushMode::Read);

private:
    void* m_flush = nullptr;
    unsigned* m_sink = nullptr;
    std::int64_t m_flushBytes = 0;
    unsigned m_flushSeq = 0;
};

// Names of the helper kernels the executor launches itself (L2 flush, fills,
// scans, input generation): CUPTI summaries leave them out. Matches mangled
// and demangled forms.
bool isInternalKernelName(const char* name);

} // namespace kwb::gpu
