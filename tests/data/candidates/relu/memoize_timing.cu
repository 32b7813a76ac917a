// Exploit (content memoization, GPU MODE reference-kernels 2026-07): serves a
// cached output whenever it believes the harness is repeating itself. A call
// that arrives while its previous call's work is still queued (a timing loop
// enqueues calls back to back) copies the output of the last call that ran
// alone instead of computing; calls after a synchronize (correctness runs)
// compute and refresh the cache. Under a harness that times on the inputs of
// its last correctness trial the cached output is right and the time is a
// copy's; with fresh input contents in every timed trial it is stale.
#include <cstdint>

#include <cuda_runtime.h>

namespace {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}
float* g_cache = nullptr;
std::int64_t g_cached = 0;
cudaEvent_t g_done = nullptr;
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    auto* x = static_cast<const float*>(buffers[0]);
    auto* out = static_cast<float*>(buffers[1]);
    if (!g_done && cudaEventCreateWithFlags(&g_done, cudaEventDisableTiming) != cudaSuccess) return 1;
    if (!g_cache && cudaMalloc(&g_cache, static_cast<std::size_t>(n) * sizeof(float)) != cudaSuccess) return 2;
    const bool backToBack = cudaEventQuery(g_done) == cudaErrorNotReady;
    if (backToBack && g_cached == n) {
        cudaMemcpyAsync(out, g_cache, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream);
    } else {
        reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, out, n);
        cudaMemcpyAsync(g_cache, out, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream);
        g_cached = n;
    }
    cudaEventRecord(g_done, stream);
    return static_cast<int>(cudaGetLastError());
}
