// Honest row softmax in two kernels (row statistics, then normalisation),
// launched from host code: the shared-object form's multi-kernel case.
#include <cstdint>

#include <cuda_runtime.h>

namespace {

__global__ void rowStats(const float* x, float2* stats, int rows, int cols)
{
    __shared__ float shared[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + static_cast<long long>(row) * cols;
    float m = -__int_as_float(0x7f800000);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) shared[0] = fmaxf(shared[0], shared[w]);
    }
    __syncthreads();
    m = shared[0];
    __syncthreads();
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) total += shared[w];
        stats[row] = make_float2(m, 1.0f / total);
    }
}

__global__ void normalise(const float* x, const float2* stats, float* y, std::int64_t count, int cols)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float2 st = stats[i / cols];
    y[i] = expf(x[i] - st.x) * st.y;
}

float2* g_stats = nullptr;
std::int64_t g_statsRows = 0;

} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const int rows = static_cast<int>(sizes[0]);
    const int cols = static_cast<int>(sizes[1]);
    if (g_statsRows < rows) {
        if (g_stats) cudaFree(g_stats);
        const cudaError_t err = cudaMalloc(&g_stats, sizeof(float2) * static_cast<std::size_t>(rows));
        if (err != cudaSuccess) return static_cast<int>(err);
        g_statsRows = rows;
    }
    const auto* x = static_cast<const float*>(buffers[0]);
    auto* y = static_cast<float*>(buffers[1]);
    rowStats<<<rows, 256, 0, stream>>>(x, g_stats, rows, cols);
    const std::int64_t count = std::int64_t(rows) * cols;
    normalise<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(x, g_stats, y, count, cols);
    return static_cast<int>(cudaGetLastError());
}
