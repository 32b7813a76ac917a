#include "gpu/checks/input_generator.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>

#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

__host__ __device__ inline std::uint64_t mix64(std::uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

template <typename T>
__device__ inline T fromDouble(double v)
{
    return static_cast<T>(v);
}
template <>
__device__ inline __half fromDouble<__half>(double v)
{
    return __float2half_rn(static_cast<float>(v));
}
template <>
__device__ inline __nv_bfloat16 fromDouble<__nv_bfloat16>(double v)
{
    return __float2bfloat16_rn(static_cast<float>(v));
}

template <typename T>
__device__ inline float toFloat(T v)
{
    return static_cast<float>(v);
}
template <>
__device__ inline float toFloat<__half>(__half v)
{
    return __half2float(v);
}
template <>
__device__ inline float toFloat<__nv_bfloat16>(__nv_bfloat16 v)
{
    return __bfloat162float(v);
}

template <typename T>
__global__ void generateKernel(T* __restrict__ out, std::int64_t n, GenParams p)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const std::uint64_t x = mix64(p.seed ^ mix64(static_cast<std::uint64_t>(i)));
        double v = 0.0;
        switch (p.distribution) {
        case GenDistribution::Uniform: {
            // 24 random bits, like torch.rand for float32: values on a 2^-24 grid in [0, 1).
            const float u = static_cast<float>(x >> 40) * 0x1p-24f;
            v = p.low + (p.high - p.low) * static_cast<double>(u);
            break;
        }
        case GenDistribution::Normal: {
            const float u1 = static_cast<float>((x >> 40) + 1) * 0x1p-24f; // (0, 1]
            const float u2 = static_cast<float>(x & 0xffffffULL) * 0x1p-24f;
            const float r = sqrtf(-2.0f * logf(u1));
            v = p.mean + p.stddev * static_cast<double>(r * cospif(2.0f * u2));
            break;
        }
        case GenDistribution::RandInt: {
            const double u = static_cast<double>(x >> 11) * 0x1p-53;
            const double span = floor(p.high) - ceil(p.low);
            v = ceil(p.low) + floor(u * span);
            break;
        }
        case GenDistribution::Constant: v = p.value; break;
        case GenDistribution::Pareto: {
            // Inverse CDF, as torch.distributions.Pareto samples float32: scale * U^(-1/alpha) with
            // U in (0, 1] on torch.rand's 2^-24 grid, which also bounds the (heavy) tail the same way.
            const double u = static_cast<double>((x >> 40) + 1) * 0x1p-24;
            v = p.scale * pow(u, -1.0 / p.alpha);
            break;
        }
        }
        out[i] = fromDouble<T>(v);
    }
}

template <typename T>
__global__ void toFloatKernel(const T* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = toFloat<T>(in[i]);
}

template <typename T>
__global__ void fromFloatKernel(const float* __restrict__ in, T* __restrict__ out, std::int64_t n)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = fromDouble<T>(static_cast<double>(in[i]));
}

__global__ void hashKernel(const unsigned char* __restrict__ data, std::int64_t bytes,
    unsigned long long* __restrict__ result)
{
    const std::int64_t words = bytes / 8;
    const auto* w = reinterpret_cast<const std::uint64_t*>(data);
    std::uint64_t acc = 0;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::int64_t i = tid; i < words; i += stride)
        acc += mix64(w[i] ^ mix64(static_cast<std::uint64_t>(i) + 0x51ed27ULL));
    if (tid == 0 && bytes % 8) {
        std::uint64_t tail = 0;
        for (std::int64_t b = words * 8; b < bytes; ++b) tail |= static_cast<std::uint64_t>(data[b]) << (8 * (b - words * 8));
        acc += mix64(tail ^ mix64(static_cast<std::uint64_t>(words) + 0x51ed27ULL));
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    __shared__ std::uint64_t sAcc[32];
    if ((threadIdx.x & 31) == 0) sAcc[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        std::uint64_t t = 0;
        for (unsigned k = 0; k < (blockDim.x + 31) / 32; ++k) t += sAcc[k];
        atomicAdd(result, static_cast<unsigned long long>(t));
    }
}

unsigned gridFor(std::int64_t n)
{
    return static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 4096));
}

} // namespace

std::uint64_t deriveSeed(std::uint64_t base, std::uint64_t trial, std::uint64_t tensorIndex)
{
    return mix64(mix64(base) ^ mix64(trial * 0x100000001b3ULL + 1) ^ mix64(tensorIndex + 0x1234567ULL));
}

Status generateTensor(void* data, std::int64_t elements, ElemType type, const GenParams& params, cudaStream_t stream)
{
    if (elements <= 0) return Status::ok();
    const unsigned g = gridFor(elements);
    switch (type) {
    case ElemType::F32: generateKernel<<<g, 256, 0, stream>>>(static_cast<float*>(data), elements, params); break;
    case ElemType::F64: generateKernel<<<g, 256, 0, stream>>>(static_cast<double*>(data), elements, params); break;
    case ElemType::F16: generateKernel<<<g, 256, 0, stream>>>(static_cast<__half*>(data), elements, params); break;
    case ElemType::BF16: generateKernel<<<g, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), elements, params); break;
    case ElemType::I32: generateKernel<<<g, 256, 0, stream>>>(static_cast<std::int32_t*>(data), elements, params); break;
    case ElemType::I64: generateKernel<<<g, 256, 0, stream>>>(static_cast<long long*>(data), elements, params); break;
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

Status loadGenerators(cudaStream_t stream)
{
    const GenParams none;
    generateKernel<<<1, 32, 0, stream>>>(static_cast<float*>(nullptr), 0, none);
    generateKernel<<<1, 32, 0, stream>>>(static_cast<double*>(nullptr), 0, none);
    generateKernel<<<1, 32, 0, stream>>>(static_cast<__half*>(nullptr), 0, none);
    generateKernel<<<1, 32, 0, stream>>>(static_cast<__nv_bfloat16*>(nullptr), 0, none);
    generateKernel<<<1, 32, 0, stream>>>(static_cast<std::int32_t*>(nullptr), 0, none);
    generateKernel<<<1, 32, 0, stream>>>(static_cast<long long*>(nullptr), 0, none);
    KWB_CUDA_CHECK(cudaGetLastError());
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return Status::ok();
}

Status convertToFloat(const void* src, float* dst, std::int64_t elements, ElemType type, cudaStream_t stream)
{
    if (elements <= 0) return Status::ok();
    const unsigned g = gridFor(elements);
    switch (type) {
    case ElemType::F32:
        KWB_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(elements) * 4, cudaMemcpyDeviceToDevice, stream));
        return Status::ok();
    case ElemType::F64: toFloatKernel<<<g, 256, 0, stream>>>(static_cast<const double*>(src), dst, elements); break;
    case ElemType::F16: toFloatKernel<<<g, 256, 0, stream>>>(static_cast<const __half*>(src), dst, elements); break;
    case ElemType::BF16: toFloatKernel<<<g, 256, 0, stream>>>(static_cast<const __nv_bfloat16*>(src), dst, elements); break;
    case ElemType::I32: toFloatKernel<<<g, 256, 0, stream>>>(static_cast<const std::int32_t*>(src), dst, elements); break;
    case ElemType::I64: toFloatKernel<<<g, 256, 0, stream>>>(static_cast<const long long*>(src), dst, elements); break;
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

Status convertFromFloat(const float* src, void* dst, std::int64_t elements, ElemType type, cudaStream_t stream)
{
    if (elements <= 0) return Status::ok();
    const unsigned g = gridFor(elements);
    switch (type) {
    case ElemType::F32:
        KWB_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(elements) * 4, cudaMemcpyDeviceToDevice, stream));
        return Status::ok();
    case ElemType::F64: fromFloatKernel<<<g, 256, 0, stream>>>(src, static_cast<double*>(dst), elements); break;
    case ElemType::F16: fromFloatKernel<<<g, 256, 0, stream>>>(src, static_cast<__half*>(dst), elements); break;
    case ElemType::BF16: fromFloatKernel<<<g, 256, 0, stream>>>(src, static_cast<__nv_bfloat16*>(dst), elements); break;
    case ElemType::I32: fromFloatKernel<<<g, 256, 0, stream>>>(src, static_cast<std::int32_t*>(dst), elements); break;
    case ElemType::I64: fromFloatKernel<<<g, 256, 0, stream>>>(src, static_cast<long long*>(dst), elements); break;
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

Result<std::uint64_t> hashDeviceBytes(const void* data, std::int64_t bytes, unsigned long long* scratch,
    cudaStream_t stream)
{
    KWB_CUDA_CHECK(cudaMemsetAsync(scratch, 0, 8, stream));
    if (bytes > 0) {
        hashKernel<<<gridFor(bytes / 8 + 1), 256, 0, stream>>>(static_cast<const unsigned char*>(data), bytes, scratch);
        KWB_CUDA_CHECK(cudaGetLastError());
    }
    unsigned long long h = 0;
    KWB_CUDA_CHECK(cudaMemcpyAsync(&h, scratch, 8, cudaMemcpyDeviceToHost, stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return mix64(static_cast<std::uint64_t>(h) ^ mix64(static_cast<std::uint64_t>(bytes)));
}

std::string hashHex(std::uint64_t h)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

} // namespace kwb::gpu
