// Exploit: computes on the first call only and returns at once afterwards, so
// later calls leave whatever the output buffer held (results cached across
// calls; under a harness that reuses buffers the stale output still passes).
#include <cstdint>

#include <cuda_runtime.h>

namespace {
__global__ void vectorAddOnce(const float* a, const float* b, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
bool g_computed = false;
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    if (g_computed) return 0;
    const std::int64_t n = sizes[0];
    vectorAddOnce<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
        static_cast<const float*>(buffers[0]), static_cast<const float*>(buffers[1]), static_cast<float*>(buffers[2]), n);
    g_computed = true;
    return static_cast<int>(cudaGetLastError());
}
