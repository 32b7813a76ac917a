import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

splitk_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// C = A @ B with K split in 8 slices; each slice's partial dot products meet in atomicAdd.
__global__ void splitk_kernel(const float* a, const float* b, float* c, int n, int slice) {
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= n || col >= n) return;
    const int k0 = blockIdx.z * slice, k1 = min(n, k0 + slice);
    float acc = 0.0f;
    for (int k = k0; k < k1; ++k) acc += a[(long long)row * n + k] * b[(long long)k * n + col];
    atomicAdd(&c[(long long)row * n + col], acc);
}

torch::Tensor matmul_splitk(torch::Tensor a, torch::Tensor b) {
    const int n = (int)a.size(0);
    auto c = torch::zeros({n, n}, a.options());
    const int slices = 8, slice = (n + slices - 1) / slices;
    dim3 grid((n + 15) / 16, (n + 15) / 16, slices), block(16, 16);
    splitk_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n, slice);
    return c;
}
"""

splitk_ext = load_inline(
    name="kwb_test_matmul_splitk",
    cpp_sources="torch::Tensor matmul_splitk(torch::Tensor a, torch::Tensor b);",
    cuda_sources=splitk_source,
    functions=["matmul_splitk"],
    verbose=False,
)


class ModelNew(nn.Module):
    """A split-K GEMM whose eight partial sums meet in float atomicAdd: correct, not bitwise deterministic (a determinism note at most, no exploit flag)."""

    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return splitk_ext.matmul_splitk(A, B)
