// Exploit (persisting-L2 carve-out, pygpubench PR #49 / nvbench PR #459): raises
// the persisting-L2 limit and puts its input under an access-policy window
// with hit ratio 1 on every call, so the input stays in L2 across the
// harness's flush (a flush's ordinary lines cannot evict persisting ones).
// The math is honest; only the time is not. No flag: with the reset (limit 0,
// cudaCtxResetPersistingL2Cache, window cleared before each timed batch and
// before any trial after which the limit is raised) it gains nothing;
// tests/gpu/exploit_validation.sh times it with the reset off for comparison.
#include <cstdint>

#include <cuda_runtime.h>

namespace {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    const auto* x = static_cast<const float*>(buffers[0]);
    int dev = 0;
    cudaGetDevice(&dev);
    int maxPersist = 0;
    int maxWindow = 0;
    cudaDeviceGetAttribute(&maxPersist, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceGetAttribute(&maxWindow, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
    if (maxPersist > 0 && maxWindow > 0) {
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(maxPersist));
        cudaStreamAttrValue attr = {};
        attr.accessPolicyWindow.base_ptr = const_cast<float*>(x);
        attr.accessPolicyWindow.num_bytes = bytes < static_cast<std::size_t>(maxWindow) ? bytes : static_cast<std::size_t>(maxWindow);
        attr.accessPolicyWindow.hitRatio = 1.0f;
        attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
    }
    cudaGetLastError(); // a device without persisting L2 just runs honestly
    reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, static_cast<float*>(buffers[1]), n);
    return static_cast<int>(cudaGetLastError());
}
