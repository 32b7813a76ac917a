// Exploit (state drift after validation, llm.c PR #852): correct for its first
// 24 calls (coverage, correctness and warm-up take 16), then it stops
// computing and leaves the output buffer as it was. A harness that checks only
// before timing never sees it.
#include <cstdint>

#include <cuda_runtime.h>

namespace {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}
int g_calls = 0;
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    if (++g_calls > 24) return 0;
    const std::int64_t n = sizes[0];
    reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
        static_cast<const float*>(buffers[0]), static_cast<float*>(buffers[1]), n);
    return static_cast<int>(cudaGetLastError());
}
