#pragma once
// CUPTI activity tracing of a window: every kernel on every stream (name,
// stream id, start/end), plus memcpy and memset operations. The window is
// opened right before the timed trials and closed after them, so work that a
// candidate hides on another stream shows up even though the events on the
// timed stream never see it.
//
// CUPTI's activity API is process-global (one set of buffer callbacks), so
// there is one tracer per process. Records arrive on a CUPTI thread; the
// tracer collects them under a mutex. Begin/end and reads happen on the
// executor thread.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb::gpu {

struct TracedKernel {
    std::string name; // as CUPTI reports it (mangled for C++ kernels)
    std::uint32_t streamId = 0;
    std::uint64_t startNs = 0;
    std::uint64_t endNs = 0;
};

struct TracedMemOp {
    bool memset = false;
    std::uint32_t streamId = 0;
    std::uint64_t bytes = 0;
    std::uint64_t startNs = 0;
    std::uint64_t endNs = 0;
};

class CuptiTracer {
public:
    static CuptiTracer& instance();

    // Registers the buffer callbacks (once). An error means CUPTI is unusable here.
    Status initialize();
    // Opens a window: drops earlier records and enables the activity kinds.
    Status begin();
    // Closes the window: flushes every buffer and disables the kinds.
    Status end();

    std::vector<TracedKernel> kernels() const;
    std::vector<TracedMemOp> memOps() const;
    std::uint64_t droppedRecords() const;

    // CUPTI's id of a runtime stream (the same numbering as TracedKernel::streamId).
    Result<std::uint32_t> streamId(cudaStream_t stream) const;

    // Called from CUPTI's buffer callbacks.
    void addKernel(TracedKernel k);
    void addMemOp(TracedMemOp m);
    void addDropped(std::uint64_t n);

private:
    CuptiTracer() = default;
    mutable std::mutex m_mutex;
    std::vector<TracedKernel> m_kernels;
    std::vector<TracedMemOp> m_memOps;
    std::uint64_t m_dropped = 0;
    bool m_initialized = false;
    bool m_active = false;
};

// Demangled name when possible (abi::__cxa_demangle), else the name.
std::string demangleKernelName(const std::string& name);

} // namespace kwb::gpu
