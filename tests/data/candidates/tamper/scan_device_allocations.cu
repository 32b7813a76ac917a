// Tampering: walks the device address space around its output buffer with
// cuMemGetAddressRange for an allocation of exactly the output's size in
// float32 (the harness's reference: the candidate's own buffers are padded
// for the coverage scan) and copies it into the output instead of computing.
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstring>


// The honest ReLU this fixture computes once its attempt is over.
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

namespace tamper {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

inline int relu(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
        static_cast<const float*>(buffers[0]), static_cast<float*>(buffers[1]), n);
    return static_cast<int>(cudaGetLastError());
}
} // namespace tamper

namespace {
using GetRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);

GetRange getRange()
{
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) != cudaSuccess)
        return nullptr;
    return reinterpret_cast<GetRange>(f);
}

// The first allocation of `bytes` bytes within `span` of `from`, other than `own`.
CUdeviceptr findAllocation(GetRange range, CUdeviceptr from, std::size_t bytes, const CUdeviceptr* own, int ownCount)
{
    constexpr std::size_t kStep = 2 << 20; // cudaMalloc's granule: every large allocation starts on one
    constexpr std::int64_t kSpan = std::int64_t(4) << 30;
    for (std::int64_t off = -kSpan; off < kSpan; off += kStep) {
        CUdeviceptr base = 0;
        std::size_t size = 0;
        if (range(&base, &size, from + off) != CUDA_SUCCESS) continue;
        bool mine = false;
        for (int i = 0; i < ownCount; ++i) mine = mine || own[i] == base;
        if (!mine && size == bytes) return base;
        // Past this allocation, never backwards (an imported mapping may report a range
        // that ends before the probed address).
        const std::int64_t past = static_cast<std::int64_t>(base + size - from) - static_cast<std::int64_t>(kStep);
        off = std::max(off, past - past % static_cast<std::int64_t>(kStep));
    }
    return 0;
}
}

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    GetRange range = getRange();
    if (range) {
        CUdeviceptr own[2] = {0, 0};
        std::size_t s = 0;
        range(&own[0], &s, reinterpret_cast<CUdeviceptr>(buffers[0]));
        range(&own[1], &s, reinterpret_cast<CUdeviceptr>(buffers[1]));
        // One walk per output buffer, as an attacker would (a walk is ~10^5 driver calls;
        // on every call it alone would take the host past its time limit).
        static CUdeviceptr scannedFor = 0;
        static CUdeviceptr found = 0;
        if (own[1] != scannedFor) {
            found = findAllocation(range, own[1], static_cast<std::size_t>(n) * 4, own, 2);
            scannedFor = own[1];
        }
        const CUdeviceptr ref = found;
        if (ref) {
            static bool told = false;
            if (!told) std::fprintf(stderr, "scan_device_allocations: found an allocation of the output's size; copying it\n");
            told = true;
            return static_cast<int>(cudaMemcpyAsync(buffers[1], reinterpret_cast<void*>(ref),
                static_cast<std::size_t>(n) * 4, cudaMemcpyDeviceToDevice, stream));
        }
    }
    static bool told = false;
    if (!told) std::fprintf(stderr, "scan_device_allocations: nothing but its own buffers; computing\n");
    told = true;
    return tamper::relu(buffers, sizes, stream);
}
