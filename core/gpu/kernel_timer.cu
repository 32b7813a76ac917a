#include "gpu/kernel_timer.h"

#include <algorithm>
#include <cstring>

#include "gpu/gpu_check.h"

namespace kwb::gpu {

namespace {

// A different value each flush so the writes cannot be elided as redundant.
__global__ void l2FlushKernel(uint4* __restrict__ buf, std::int64_t vectors, unsigned seq)
{
    const uint4 v = make_uint4(seq, seq + 1, seq + 2, seq + 3);
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride)
        buf[i] = v;
}

// Reads every line of the buffer; the sink write never happens in practice
// but keeps the loads from being optimised away.
__global__ void l2ReadFlushKernel(const uint4* __restrict__ buf, std::int64_t vectors, unsigned seq, unsigned* sink)
{
    unsigned acc = 0;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        const uint4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == seq + 0x9e3779b9u) *sink = acc;
}

struct Events {
    std::vector<cudaEvent_t> start;
    std::vector<cudaEvent_t> stop;
    ~Events()
    {
        for (auto e : start) cudaEventDestroy(e);
        for (auto e : stop) cudaEventDestroy(e);
    }
};

} // namespace

bool isInternalKernelName(const char* name)
{
    // Everything in namespace kwb::gpu: "_ZN3kwb3gpu..." mangled, "kwb::gpu::" demangled.
    return name && (std::strstr(name, "3kwb3gpu") || std::strstr(name, "kwb::gpu::"));
}

KernelTimer::~KernelTimer()
{
    if (m_flush) cudaFree(m_flush);
    if (m_sink) cudaFree(m_sink);
}

Status KernelTimer::init(std::int64_t l2Bytes)
{
    const std::int64_t want = std::max<std::int64_t>(2 * l2Bytes, 64LL << 20);
    if (m_flush && m_flushBytes >= want) return Status::ok();
    if (m_flush) cudaFree(m_flush);
    m_flush = nullptr;
    m_flushBytes = 0;
    KWB_CUDA_CHECK(cudaMalloc(&m_flush, static_cast<std::size_t>(want)));
    KWB_CUDA_CHECK(cudaMemset(m_flush, 0, static_cast<std::size_t>(want)));
    if (!m_sink) KWB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_sink), sizeof(unsigned)));
    m_flushBytes = want;
    return Status::ok();
}

Status KernelTimer::flushL2(cudaStream_t stream, FlushMode mode)
{
    if (!m_flush) return Status(ErrorCode::Internal, "KernelTimer::flushL2 before init");
    const std::int64_t vectors = m_flushBytes / 16;
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>((vectors + 255) / 256, 4096));
    if (mode == FlushMode::Read)
        l2ReadFlushKernel<<<grid, 256, 0, stream>>>(static_cast<const uint4*>(m_flush), vectors, ++m_flushSeq, m_sink);
    else
        l2FlushKernel<<<grid, 256, 0, stream>>>(static_cast<uint4*>(m_flush), vectors, ++m_flushSeq);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

Result<std::vector<double>> KernelTimer::time(const LaunchFn& launch, cudaStream_t stream, const TimingConfig& config,
    const TaskContext& ctx, const std::function<Status()>& beforeTimed, const std::function<Status()>& afterTimed)
{
    for (int i = 0; i < config.warmup; ++i) KWB_RETURN_IF_ERROR(launch(stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled");

    Events ev;
    const int trials = std::max(config.trials, 1);
    ev.start.resize(static_cast<std::size_t>(trials), nullptr);
    ev.stop.resize(static_cast<std::size_t>(trials), nullptr);
    for (int i = 0; i < trials; ++i) {
        KWB_CUDA_CHECK(cudaEventCreate(&ev.start[static_cast<std::size_t>(i)]));
        KWB_CUDA_CHECK(cudaEventCreate(&ev.stop[static_cast<std::size_t>(i)]));
    }
    if (beforeTimed) KWB_RETURN_IF_ERROR(beforeTimed());
    // Trials are enqueued in batches: the host never runs far ahead of the
    // GPU (that would time queueing), and progress stays live.
    const int batch = 10;
    for (int i = 0; i < trials; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (config.l2Flush) KWB_RETURN_IF_ERROR(flushL2(stream, config.flushMode));
        KWB_CUDA_CHECK(cudaEventRecord(ev.start[k], stream));
        KWB_RETURN_IF_ERROR(launch(stream));
        KWB_CUDA_CHECK(cudaEventRecord(ev.stop[k], stream));
        if ((i + 1) % batch == 0 || i + 1 == trials) {
            KWB_CUDA_CHECK(cudaEventSynchronize(ev.stop[k]));
            ctx.report("timing", i + 1, trials);
            if (ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled");
        }
    }
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (afterTimed) KWB_RETURN_IF_ERROR(afterTimed());
    std::vector<double> ms(static_cast<std::size_t>(trials));
    for (int i = 0; i < trials; ++i) {
        float t = 0;
        const auto k = static_cast<std::size_t>(i);
        KWB_CUDA_CHECK(cudaEventElapsedTime(&t, ev.start[k], ev.stop[k]));
        ms[k] = static_cast<double>(t);
    }
    return ms;
}

} // namespace kwb::gpu
