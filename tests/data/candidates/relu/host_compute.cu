// Exploit (timer games, KernelBench's benchmarking guide 2026-03): the output
// comes from the host. A call that arrives while its previous call is still
// queued (a timing loop) copies the last result from pinned host memory on a
// non-blocking stream of its own, which never waits for the harness's stream;
// other calls compute on the GPU and keep a host copy (without waiting for it).
// Inside a gated batch of timed trials the events on the harness's stream are
// enqueued back to back while the copies run beside them (16 MB, about 0.3 ms
// each), so they time nothing; a host wall clock around a device synchronize
// sees every copy, and CUPTI sees them on a stream the events do not bracket.
// (The first version copied synchronously on the legacy stream: on the H200 the
// copy waited for the gated stream, the timer's gate gave up, and the cheat
// engaged on 6 to 60 of 100 trials from one run to the next.)
#include <cstdint>

#include <cuda_runtime.h>

namespace {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}
float* g_host = nullptr;
std::int64_t g_cached = 0;
cudaEvent_t g_done = nullptr;
cudaStream_t g_side = nullptr;
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
    auto* out = static_cast<float*>(buffers[1]);
    if (!g_done && cudaEventCreateWithFlags(&g_done, cudaEventDisableTiming) != cudaSuccess) return 1;
    if (!g_host && cudaMallocHost(&g_host, bytes) != cudaSuccess) return 2;
    if (!g_side && cudaStreamCreateWithFlags(&g_side, cudaStreamNonBlocking) != cudaSuccess) return 3;
    const bool queued = cudaEventQuery(g_done) == cudaErrorNotReady;
    cudaGetLastError();
    if (queued && g_cached == n) {
        cudaMemcpyAsync(out, g_host, bytes, cudaMemcpyHostToDevice, g_side); // never waits for `stream`
    } else {
        reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(static_cast<const float*>(buffers[0]), out, n);
        cudaMemcpyAsync(g_host, out, bytes, cudaMemcpyDeviceToHost, stream); // no wait: a gated stream would hold us
        g_cached = n;
    }
    cudaEventRecord(g_done, stream);
    return static_cast<int>(cudaGetLastError());
}
