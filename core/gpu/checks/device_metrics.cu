#include "gpu/checks/device_metrics.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;
constexpr unsigned kFull = 0xffffffffu;

// Slots of the device counter array.
enum Counter : int {
    kOutOfTolerance,
    kNan,
    kInf,
    kRefNan,
    kRefInf,
    kRefFinite,
    kZeroRejects, // reference elements an all-zeros output would fail
    kFirstMismatch,
    kMaxAbsBits, // non-negative doubles order like their bit patterns
    kDiffering,
    kCounterCount
};

// The host's isClose (output_metrics.cpp) with every float32 operation
// rounded on its own, as the host evaluates it.
__device__ inline bool isCloseF32(float out, float ref, float atol, float rtol)
{
    if (out == ref) return true;
    if (!isfinite(out) || !isfinite(ref)) return false;
    const float diff = fabsf(__fsub_rn(out, ref));
    const float allowed = __fadd_rn(atol, fabsf(__fmul_rn(rtol, out))); // rtol scales the candidate's value, as torch.allclose(ref, out)
    return diff <= allowed;
}

struct Local {
    unsigned long long counts[kZeroRejects + 1] = {};
    unsigned long long firstMismatch = ULLONG_MAX;
    double maxAbs = 0.0;
    double errSq = 0.0;
    double refSqPairs = 0.0;
    double refSqAll = 0.0;
};

__device__ inline void visit(Local& l, float o, float r, std::int64_t i, float atol, float rtol)
{
    if (isnan(o)) ++l.counts[kNan];
    else if (isinf(o)) ++l.counts[kInf];
    if (isnan(r)) {
        ++l.counts[kRefNan];
    } else if (isinf(r)) {
        ++l.counts[kRefInf];
    } else {
        const double rd = static_cast<double>(r);
        l.refSqAll = __dadd_rn(l.refSqAll, __dmul_rn(rd, rd));
        ++l.counts[kRefFinite];
    }
    if (!isCloseF32(o, r, atol, rtol)) {
        if (l.firstMismatch == ULLONG_MAX) l.firstMismatch = static_cast<unsigned long long>(i);
        ++l.counts[kOutOfTolerance];
    }
    if (!isCloseF32(0.0f, r, atol, rtol)) ++l.counts[kZeroRejects];
    if (isfinite(o) && isfinite(r)) {
        const double rd = static_cast<double>(r);
        const double d = fabs(__dsub_rn(static_cast<double>(o), rd));
        if (d > l.maxAbs) l.maxAbs = d;
        l.errSq = __dadd_rn(l.errSq, __dmul_rn(d, d));
        l.refSqPairs = __dadd_rn(l.refSqPairs, __dmul_rn(rd, rd));
    }
}

// One pass over (out, ref): counts by atomics (one per warp), the first
// mismatch by atomicMin, the largest error by atomicMax on its bits, and the
// three sums per block (fixed-order tree) into partials[3 * block].
__global__ void __launch_bounds__(kThreads) compareKernel(const float* __restrict__ out,
    const float* __restrict__ ref, std::int64_t n, float atol, float rtol, unsigned long long* __restrict__ counters,
    double* __restrict__ partials)
{
    Local l;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    // kUnroll loads of each stream in flight per thread; visited in index order,
    // so the thread's first mismatch is its smallest index.
    for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
        float o[kUnroll];
        float r[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            o[k] = __ldcs(out + i + k * stride);
            r[k] = __ldcs(ref + i + k * stride);
        }
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) visit(l, o[k], r[k], i + k * stride, atol, rtol);
    }
    for (; i < n; i += stride) visit(l, __ldcs(out + i), __ldcs(ref + i), i, atol, rtol);

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    for (int off = 16; off > 0; off >>= 1) {
        for (int c = 0; c <= kZeroRejects; ++c) l.counts[c] += __shfl_down_sync(kFull, l.counts[c], off);
        l.firstMismatch = min(l.firstMismatch, __shfl_down_sync(kFull, l.firstMismatch, off));
        l.maxAbs = fmax(l.maxAbs, __shfl_down_sync(kFull, l.maxAbs, off));
        l.errSq = __dadd_rn(l.errSq, __shfl_down_sync(kFull, l.errSq, off));
        l.refSqPairs = __dadd_rn(l.refSqPairs, __shfl_down_sync(kFull, l.refSqPairs, off));
        l.refSqAll = __dadd_rn(l.refSqAll, __shfl_down_sync(kFull, l.refSqAll, off));
    }
    __shared__ double sums[3][kWarps];
    if (lane == 0) {
        for (int c = 0; c <= kZeroRejects; ++c)
            if (l.counts[c]) atomicAdd(&counters[c], l.counts[c]);
        if (l.firstMismatch != ULLONG_MAX) atomicMin(&counters[kFirstMismatch], l.firstMismatch);
        if (l.maxAbs > 0.0)
            atomicMax(&counters[kMaxAbsBits], static_cast<unsigned long long>(__double_as_longlong(l.maxAbs)));
        sums[0][warp] = l.errSq;
        sums[1][warp] = l.refSqPairs;
        sums[2][warp] = l.refSqAll;
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        double s = 0.0;
        for (int w = 0; w < kWarps; ++w) s = __dadd_rn(s, sums[threadIdx.x][w]);
        partials[3 * blockIdx.x + threadIdx.x] = s;
    }
}

// Masked: only elements that both runs wrote (a differs from sentinel A and b
// from sentinel B) are compared, for runs that started from different prefills.
template <typename W, bool Masked>
__global__ void __launch_bounds__(kThreads) differKernel(const W* __restrict__ a, const W* __restrict__ b,
    std::int64_t n, W sentinelA, W sentinelB, unsigned long long* __restrict__ counter)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    unsigned long long differing = 0;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
        const W x = __ldcs(a + i);
        const W y = __ldcs(b + i);
        if (Masked) differing += x != y && x != sentinelA && y != sentinelB;
        else differing += x != y;
    }
    for (int off = 16; off > 0; off >>= 1) differing += __shfl_down_sync(kFull, differing, off);
    if ((threadIdx.x & 31) == 0 && differing) atomicAdd(counter, differing);
}

template <typename W>
void launchDiffer(const void* a, const void* b, std::int64_t n, int blocks, unsigned long long* counter,
    cudaStream_t stream, const std::uint64_t* sentinels)
{
    if (sentinels)
        differKernel<W, true><<<blocks, kThreads, 0, stream>>>(static_cast<const W*>(a), static_cast<const W*>(b), n,
            static_cast<W>(sentinels[0]), static_cast<W>(sentinels[1]), counter);
    else
        differKernel<W, false><<<blocks, kThreads, 0, stream>>>(static_cast<const W*>(a), static_cast<const W*>(b), n,
            W{}, W{}, counter);
}

int gridFor(std::int64_t n, int maxBlocks)
{
    const std::int64_t needed = (n + kThreads - 1) / kThreads;
    return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(needed, maxBlocks)));
}

} // namespace

DeviceMetrics::~DeviceMetrics()
{
    if (m_counters) cudaFree(m_counters);
    if (m_partials) cudaFree(m_partials);
}

Status DeviceMetrics::ensureScratch()
{
    if (m_counters) return Status::ok();
    int dev = 0;
    int sms = 0;
    KWB_CUDA_CHECK(cudaGetDevice(&dev));
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // One full wave of the comparison kernel (its registers, not the thread limit, set the blocks per SM).
    int perSm = 0;
    KWB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, compareKernel, kThreads, 0));
    const int blocks = std::max(1, sms) * std::max(1, perSm);
    void* counters = nullptr;
    void* partials = nullptr;
    cudaError_t err = cudaMalloc(&counters, kCounterCount * sizeof(unsigned long long));
    if (err == cudaSuccess) err = cudaMalloc(&partials, 3 * static_cast<std::size_t>(blocks) * sizeof(double));
    if (err != cudaSuccess) {
        // Both or neither: a later call tries again.
        if (counters) cudaFree(counters);
        return cudaRuntimeStatus(err, "cudaMalloc(device metrics scratch)", __FILE__, __LINE__);
    }
    m_blocks = blocks;
    m_counters = static_cast<unsigned long long*>(counters);
    m_partials = static_cast<double*>(partials);
    m_hostPartials.resize(3 * static_cast<std::size_t>(m_blocks));
    return Status::ok();
}

Result<DeviceComparison> DeviceMetrics::compare(const float* out, const float* ref, std::int64_t count,
    double atol, double rtol, cudaStream_t stream)
{
    DeviceComparison result;
    OutputMetrics& m = result.metrics;
    m.count = count;
    m.allclose = true;
    result.zerosPass = true;
    if (count <= 0) return result;
    KWB_RETURN_IF_ERROR(ensureScratch());
    unsigned long long init[kCounterCount] = {};
    init[kFirstMismatch] = ULLONG_MAX;
    KWB_CUDA_CHECK(cudaMemcpyAsync(m_counters, init, sizeof(init), cudaMemcpyHostToDevice, stream));
    const int blocks = gridFor(count, m_blocks);
    // The host rounds the tolerances to float32 before use (isClose).
    compareKernel<<<blocks, kThreads, 0, stream>>>(out, ref, count, static_cast<float>(atol),
        static_cast<float>(rtol), m_counters, m_partials);
    KWB_CUDA_CHECK(cudaGetLastError());
    unsigned long long c[kCounterCount] = {};
    KWB_CUDA_CHECK(cudaMemcpyAsync(c, m_counters, sizeof(c), cudaMemcpyDeviceToHost, stream));
    KWB_CUDA_CHECK(cudaMemcpyAsync(m_hostPartials.data(), m_partials, 3 * static_cast<std::size_t>(blocks) * sizeof(double),
        cudaMemcpyDeviceToHost, stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));

    double errSq = 0.0;
    double refSqPairs = 0.0;
    double refSqAll = 0.0;
    for (int b = 0; b < blocks; ++b) {
        errSq += m_hostPartials[3 * static_cast<std::size_t>(b)];
        refSqPairs += m_hostPartials[3 * static_cast<std::size_t>(b) + 1];
        refSqAll += m_hostPartials[3 * static_cast<std::size_t>(b) + 2];
    }
    m.outOfTolerance = static_cast<std::int64_t>(c[kOutOfTolerance]);
    m.nanCount = static_cast<std::int64_t>(c[kNan]);
    m.infCount = static_cast<std::int64_t>(c[kInf]);
    m.refNanCount = static_cast<std::int64_t>(c[kRefNan]);
    m.refInfCount = static_cast<std::int64_t>(c[kRefInf]);
    const auto refFinite = static_cast<std::int64_t>(c[kRefFinite]);
    m.firstMismatch = c[kFirstMismatch] == ULLONG_MAX ? -1 : static_cast<std::int64_t>(c[kFirstMismatch]);
    const unsigned long long maxBits = c[kMaxAbsBits];
    static_assert(sizeof(double) == sizeof(maxBits));
    std::memcpy(&m.maxAbsError, &maxBits, sizeof(double));
    result.zerosPass = c[kZeroRejects] == 0;

    // The host's closing formulas (compareOutputs).
    m.allclose = m.outOfTolerance == 0;
    m.outOfToleranceShare = double(m.outOfTolerance) / double(m.count);
    const double inf = std::numeric_limits<double>::infinity();
    m.relL2Error = refSqPairs > 0 ? std::sqrt(errSq / refSqPairs) : (errSq > 0 ? inf : 0.0);
    m.refRms = refFinite ? std::sqrt(refSqAll / double(refFinite)) : 0.0;
    m.maxErrorOverRefRms = m.refRms > 0 ? m.maxAbsError / m.refRms : (m.maxAbsError > 0 ? inf : 0.0);
    return result;
}

Result<std::int64_t> DeviceMetrics::countDiffering(const void* a, const void* b, std::int64_t count, int elemBytes,
    cudaStream_t stream)
{
    return differing(a, b, count, elemBytes, nullptr, stream);
}

Result<std::int64_t> DeviceMetrics::countDifferingWritten(const void* a, const void* b, std::int64_t count,
    int elemBytes, std::uint64_t sentinelA, std::uint64_t sentinelB, cudaStream_t stream)
{
    const std::uint64_t sentinels[2] = {sentinelA, sentinelB};
    return differing(a, b, count, elemBytes, sentinels, stream);
}

Result<std::int64_t> DeviceMetrics::differing(const void* a, const void* b, std::int64_t count, int elemBytes,
    const std::uint64_t* sentinels, cudaStream_t stream)
{
    if (count <= 0) return std::int64_t{0};
    KWB_RETURN_IF_ERROR(ensureScratch());
    unsigned long long* counter = m_counters + kDiffering;
    KWB_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), stream));
    const int blocks = gridFor(count, m_blocks);
    switch (elemBytes) {
    case 1: launchDiffer<std::uint8_t>(a, b, count, blocks, counter, stream, sentinels); break;
    case 2: launchDiffer<std::uint16_t>(a, b, count, blocks, counter, stream, sentinels); break;
    case 4: launchDiffer<std::uint32_t>(a, b, count, blocks, counter, stream, sentinels); break;
    case 8: launchDiffer<unsigned long long>(a, b, count, blocks, counter, stream, sentinels); break;
    default:
        return Status(ErrorCode::InvalidArgument,
            "countDiffering: element width " + std::to_string(elemBytes) + " is not 1, 2, 4 or 8 bytes");
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    unsigned long long n = 0;
    KWB_CUDA_CHECK(cudaMemcpyAsync(&n, counter, sizeof(n), cudaMemcpyDeviceToHost, stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<std::int64_t>(n);
}

} // namespace kwb::gpu
