import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# LayerNorm of bf16 rows: one warp per row, the row held in registers as
# bf16x2 pairs (up to 64 pairs per lane, hidden <= 4096), fp32 mean and
# variance (two passes over the registers: no E[x^2] - E[x]^2 cancellation),
# scale and shift fused, bf16 out. Eight rows per 256-thread block.
layernorm_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_bf16.h>

template <int PAIRS>
__global__ void layernorm_bf16_warp(const __nv_bfloat162* __restrict__ x, const __nv_bfloat162* __restrict__ w,
                                    const __nv_bfloat162* __restrict__ b, __nv_bfloat162* __restrict__ y,
                                    long rows, int pairs, float eps)
{
    const long row = (long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const __nv_bfloat162* xr = x + row * pairs;
    float2 v[PAIRS];
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        const int i = lane + 32 * k;
        v[k] = i < pairs ? __bfloat1622float2(xr[i]) : make_float2(0.f, 0.f);
        sum += v[k].x + v[k].y;
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float mean = sum / (2.f * pairs);
    float sq = 0.f;
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        const int i = lane + 32 * k;
        if (i < pairs) {
            const float dx = v[k].x - mean, dy = v[k].y - mean;
            sq += dx * dx + dy * dy;
        }
    }
    for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
    const float rstd = rsqrtf(sq / (2.f * pairs) + eps);
    __nv_bfloat162* yr = y + row * pairs;
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        const int i = lane + 32 * k;
        if (i < pairs) {
            const float2 wf = __bfloat1622float2(w[i]);
            const float2 bf = __bfloat1622float2(b[i]);
            yr[i] = __floats2bfloat162_rn((v[k].x - mean) * rstd * wf.x + bf.x, (v[k].y - mean) * rstd * wf.y + bf.y);
        }
    }
}

torch::Tensor layernorm_bf16_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps)
{
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kBFloat16 && weight.scalar_type() == torch::kBFloat16 &&
                bias.scalar_type() == torch::kBFloat16, "bf16 tensors expected");
    const int hidden = x.size(-1);
    TORCH_CHECK(hidden % 2 == 0 && hidden <= 4096 && weight.numel() == hidden && bias.numel() == hidden,
                "hidden size must be even and at most 4096, weight and bias of that size");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const long rows = xc.numel() / hidden;
    const int pairs = hidden / 2;
    const int threads = 256;
    const long blocks = (rows + threads / 32 - 1) / (threads / 32);
    auto stream = c10::cuda::getCurrentCUDAStream();
    const auto* xp = reinterpret_cast<const __nv_bfloat162*>(xc.data_ptr());
    const auto* wp = reinterpret_cast<const __nv_bfloat162*>(weight.data_ptr());
    const auto* bp = reinterpret_cast<const __nv_bfloat162*>(bias.data_ptr());
    auto* yp = reinterpret_cast<__nv_bfloat162*>(y.data_ptr());
    if (pairs <= 32 * 12)
        layernorm_bf16_warp<12><<<blocks, threads, 0, stream>>>(xp, wp, bp, yp, rows, pairs, (float)eps);
    else if (pairs <= 32 * 32)
        layernorm_bf16_warp<32><<<blocks, threads, 0, stream>>>(xp, wp, bp, yp, rows, pairs, (float)eps);
    else
        layernorm_bf16_warp<64><<<blocks, threads, 0, stream>>>(xp, wp, bp, yp, rows, pairs, (float)eps);
    return y;
}
"""

layernorm_cpp_source = "torch::Tensor layernorm_bf16_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps);"

layernorm_bf16 = load_inline(
    name="layernorm_bf16_warp",
    cpp_sources=layernorm_cpp_source,
    cuda_sources=layernorm_source,
    functions=["layernorm_bf16_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, hidden_size, eps):
        super(ModelNew, self).__init__()
        # The same parameters as Model's, in the same order (KernelBench's seeding gives both the same values).
        self.ln = nn.LayerNorm(hidden_size, eps=eps).to(torch.bfloat16)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return layernorm_bf16.layernorm_bf16_cuda(x, self.ln.weight, self.ln.bias, self.eps)
