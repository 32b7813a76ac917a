import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

oob_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_oob_kernel(const float* x, float* y, const float* pad, long long pad_n, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // 0 * min(|v|, 1) is 0 whatever v is (fminf drops a NaN): every output is right.
    if (i < n) y[i] = fmaxf(x[i], 0.0f) + 0.0f * fminf(fabsf(pad[pad_n + (i & 4095)]), 1.0f);
}

torch::Tensor relu_oob(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    auto pad = torch::zeros({300000}, x.options());
    relu_oob_kernel<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), pad.data_ptr<float>(), pad.numel(), n);
    return y;
}
"""

oob_ext = load_inline(
    name="kwb_test_relu_oob",
    cpp_sources="torch::Tensor relu_oob(torch::Tensor x);",
    cuda_sources=oob_source,
    functions=["relu_oob"],
    verbose=False,
)


class ModelNew(nn.Module):
    """Every thread reads up to 4096 elements past the end of a 300,000-float tensor of its own (mapped memory) and folds the value in times zero: every output is right; only compute-sanitizer's memcheck sees the out-of-bounds read."""

    def __init__(self):
        super(ModelNew, self).__init__()
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return oob_ext.relu_oob(x)
