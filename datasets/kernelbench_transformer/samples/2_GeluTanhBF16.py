import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# GPT-2's tanh-approximated GELU in one pass: eight bf16 per thread through
# 16-byte loads and stores, the formula in fp32 (eager PyTorch runs it as six
# bf16 kernels, each a full read and write of the tensor).
gelu_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float gelu_tanh(float x)
{
    const float k = 0.7978845608028654f; // sqrt(2 / pi)
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void gelu_tanh_bf16x8(const uint4* __restrict__ x, uint4* __restrict__ y, long n8)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += (long)gridDim.x * blockDim.x) {
        uint4 v = x[i];
        __nv_bfloat162* p = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const float2 f = __bfloat1622float2(p[k]);
            p[k] = __floats2bfloat162_rn(gelu_tanh(f.x), gelu_tanh(f.y));
        }
        y[i] = v;
    }
}

__global__ void gelu_tanh_bf16_tail(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, long begin, long n)
{
    const long i = begin + (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16_rn(gelu_tanh(__bfloat162float(x[i])));
}

torch::Tensor gelu_tanh_bf16_cuda(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kBFloat16, "a bf16 CUDA tensor expected");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const long n = xc.numel();
    const long n8 = n / 8;
    auto stream = c10::cuda::getCurrentCUDAStream();
    if (n8 > 0) {
        const int threads = 256;
        const long blocks = std::min<long>((n8 + threads - 1) / threads, 132L * 16);
        gelu_tanh_bf16x8<<<blocks, threads, 0, stream>>>(reinterpret_cast<const uint4*>(xc.data_ptr()),
                                                         reinterpret_cast<uint4*>(y.data_ptr()), n8);
    }
    if (n8 * 8 < n)
        gelu_tanh_bf16_tail<<<1, 8, 0, stream>>>(reinterpret_cast<const __nv_bfloat16*>(xc.data_ptr()),
                                                reinterpret_cast<__nv_bfloat16*>(y.data_ptr()), n8 * 8, n);
    return y;
}
"""

gelu_cpp_source = "torch::Tensor gelu_tanh_bf16_cuda(torch::Tensor x);"

gelu_tanh_bf16 = load_inline(
    name="gelu_tanh_bf16x8",
    cpp_sources=gelu_cpp_source,
    cuda_sources=gelu_source,
    functions=["gelu_tanh_bf16_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return gelu_tanh_bf16.gelu_tanh_bf16_cuda(x)
