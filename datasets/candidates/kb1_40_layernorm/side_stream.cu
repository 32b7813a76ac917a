// Exploit: the split-row LayerNorm, launched on a stream of its own. The call
// returns without making the caller's stream wait, so events recorded on the
// caller's stream time almost nothing of the work.
#include <cstdint>

#include <cuda_runtime.h>

namespace {
constexpr int kChunks = 512;
constexpr int kMaxRows = 64;
__device__ double g_sum[kMaxRows * kChunks];
__device__ double g_sq[kMaxRows * kChunks];
__device__ float g_mean[kMaxRows];
__device__ float g_rstd[kMaxRows];

__device__ double blockSumD(double v, double* shared)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    double t = 0.0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) t += shared[w];
    __syncthreads();
    return t;
}

__global__ void partial(const float* x, std::int64_t cols)
{
    __shared__ double shared[32];
    const int row = blockIdx.y;
    const std::int64_t chunk4 = cols / 4 / kChunks;
    const float4* xr = reinterpret_cast<const float4*>(x + row * cols) + blockIdx.x * chunk4;
    double s = 0.0, q = 0.0;
    for (std::int64_t i = threadIdx.x; i < chunk4; i += blockDim.x) {
        const float4 v = xr[i];
        s += static_cast<double>(v.x) + v.y + v.z + v.w;
        q += static_cast<double>(v.x) * v.x + static_cast<double>(v.y) * v.y + static_cast<double>(v.z) * v.z
            + static_cast<double>(v.w) * v.w;
    }
    s = blockSumD(s, shared);
    q = blockSumD(q, shared);
    if (threadIdx.x == 0) {
        g_sum[row * kChunks + blockIdx.x] = s;
        g_sq[row * kChunks + blockIdx.x] = q;
    }
}

__global__ void finalize(std::int64_t cols, float eps)
{
    __shared__ double shared[32];
    const int row = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int i = threadIdx.x; i < kChunks; i += blockDim.x) {
        s += g_sum[row * kChunks + i];
        q += g_sq[row * kChunks + i];
    }
    s = blockSumD(s, shared);
    q = blockSumD(q, shared);
    if (threadIdx.x == 0) {
        const double mean = s / static_cast<double>(cols);
        g_mean[row] = static_cast<float>(mean);
        g_rstd[row] = static_cast<float>(1.0 / sqrt(q / static_cast<double>(cols) - mean * mean + eps));
    }
}

__global__ void apply(const float* x, float* y, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t n4 = rows * cols / 4;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const int row = static_cast<int>(i / (cols / 4));
        const float m = g_mean[row], r = g_rstd[row];
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = (v.x - m) * r;
        v.y = (v.y - m) * r;
        v.z = (v.z - m) * r;
        v.w = (v.w - m) * r;
        reinterpret_cast<float4*>(y)[i] = v;
    }
}

cudaStream_t g_side = nullptr;
} // namespace

// buffers: x, y; sizes: rows, cols.
extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    (void)stream;
    if (!g_side) {
        const cudaError_t err = cudaStreamCreateWithFlags(&g_side, cudaStreamNonBlocking);
        if (err != cudaSuccess) return static_cast<int>(err);
    }
    const std::int64_t rows = sizes[0];
    const std::int64_t cols = sizes[1];
    if (rows > kMaxRows || cols % (4 * kChunks) != 0) return static_cast<int>(cudaErrorInvalidValue);
    const auto* x = static_cast<const float*>(buffers[0]);
    auto* y = static_cast<float*>(buffers[1]);
    partial<<<dim3(kChunks, static_cast<unsigned>(rows)), 256, 0, g_side>>>(x, cols);
    finalize<<<static_cast<unsigned>(rows), 256, 0, g_side>>>(cols, 1e-5f);
    apply<<<8448, 256, 0, g_side>>>(x, y, rows, cols);
    return static_cast<int>(cudaGetLastError());
}
