// Exploit (batch-and-skip, reference-kernels PR #104): the first call of a
// burst does the work, the calls queued behind it are look-ups that do
// nothing (they leave the burst's output in place). A harness that only times
// batches of back-to-back calls sees one call's work spread over ten; timed
// alone (synchronised) each call computes, so the per-call time is the
// honest one, far above the batched median.
#include <cstdint>

#include <cuda_runtime.h>

namespace {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}
cudaEvent_t g_done = nullptr;
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    if (!g_done && cudaEventCreateWithFlags(&g_done, cudaEventDisableTiming) != cudaSuccess) return 1;
    if (cudaEventQuery(g_done) == cudaErrorNotReady) return 0; // queued behind the burst's first call
    cudaGetLastError();
    const std::int64_t n = sizes[0];
    reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
        static_cast<const float*>(buffers[0]), static_cast<float*>(buffers[1]), n);
    cudaEventRecord(g_done, stream);
    return static_cast<int>(cudaGetLastError());
}
