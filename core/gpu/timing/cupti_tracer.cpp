#include "gpu/timing/cupti_tracer.h"

#include <cuda.h>
#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

#include "gpu/device/driver_api.h"
#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords)
{
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, std::uint32_t streamId, std::uint8_t* buffer, std::size_t size,
    std::size_t validSize)
{
    (void)streamId;
    (void)size;
    auto& tracer = CuptiTracer::instance();
    CUpti_Activity* record = nullptr;
    while (validSize > 0 && cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            tracer.addKernel(TracedKernel{k->name ? k->name : "?", k->streamId, k->start, k->end});
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            tracer.addMemOp(TracedMemOp{false, m->streamId, m->bytes, m->start, m->end});
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            tracer.addMemOp(TracedMemOp{true, m->streamId, m->bytes, m->start, m->end});
            break;
        }
        default: break;
        }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) == CUPTI_SUCCESS && dropped) tracer.addDropped(dropped);
    std::free(buffer);
}

constexpr std::array<CUpti_ActivityKind, 3> kKinds{
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

} // namespace

CuptiTracer& CuptiTracer::instance()
{
    static CuptiTracer tracer;
    return tracer;
}

Status CuptiTracer::initialize()
{
    if (m_initialized) return Status::ok();
    KWB_CUPTI_CHECK(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted));
    m_initialized = true;
    return Status::ok();
}

Status CuptiTracer::begin()
{
    KWB_RETURN_IF_ERROR(initialize());
    // Drain whatever an earlier window left in CUPTI's buffers before clearing.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_kernels.clear();
        m_memOps.clear();
        m_dropped = 0;
    }
    for (auto kind : kKinds) KWB_CUPTI_CHECK(cuptiActivityEnable(kind));
    m_active = true;
    return Status::ok();
}

Status CuptiTracer::end()
{
    if (!m_active) return Status::ok();
    m_active = false;
    KWB_CUDA_CHECK(cudaDeviceSynchronize());
    Status st = Status::ok();
    for (auto kind : kKinds) {
        CUptiResult r = cuptiActivityDisable(kind);
        if (r != CUPTI_SUCCESS && st.isOk()) st = cuptiStatus(r, "cuptiActivityDisable(kind)", __FILE__, __LINE__);
    }
    KWB_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    return st;
}

std::vector<TracedKernel> CuptiTracer::kernels() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_kernels;
}

std::vector<TracedMemOp> CuptiTracer::memOps() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_memOps;
}

std::uint64_t CuptiTracer::droppedRecords() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_dropped;
}

void CuptiTracer::addKernel(TracedKernel k)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_kernels.push_back(std::move(k));
}

void CuptiTracer::addMemOp(TracedMemOp m)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_memOps.push_back(m);
}

void CuptiTracer::addDropped(std::uint64_t n)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_dropped += n;
}

Result<std::uint32_t> CuptiTracer::streamId(cudaStream_t stream) const
{
    const DriverApi* api = driverApi();
    if (!api) return Status(ErrorCode::GpuError, "the CUDA driver API is not available");
    CUcontext ctx = nullptr;
    KWB_CU_CHECK(api->ctxGetCurrent(&ctx));
    std::uint32_t id = 0;
    KWB_CUPTI_CHECK(cuptiGetStreamIdEx(ctx, reinterpret_cast<CUstream>(stream), 0, &id));
    return id;
}

std::string demangleKernelName(const std::string& name)
{
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !d) return name;
    std::string out(d);
    std::free(d);
    return out;
}

} // namespace kwb::gpu
