import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# CUB's device-wide inclusive scan written straight into out[1:], with out[0]
# zeroed by a 8-byte memset: the reference's scan plus concatenation copy
# becomes one scan into the final buffer.
offsets_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAException.h>
#include <cub/device/device_scan.cuh>

torch::Tensor lengths_to_offsets_cuda(torch::Tensor lengths)
{
    TORCH_CHECK(lengths.is_cuda() && lengths.scalar_type() == torch::kInt64 && lengths.dim() == 1, "1-D int64 CUDA lengths");
    auto in = lengths.contiguous();
    const long n = in.size(0);
    auto out = torch::empty({n + 1}, in.options());
    auto stream = c10::cuda::getCurrentCUDAStream();
    C10_CUDA_CHECK(cudaMemsetAsync(out.data_ptr<long>(), 0, sizeof(long), stream));
    if (n == 0) return out;
    size_t temp_bytes = 0;
    C10_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in.data_ptr<long>(), out.data_ptr<long>() + 1,
                                                 (int)n, stream));
    auto temp = torch::empty({(long)temp_bytes}, in.options().dtype(torch::kUInt8));
    C10_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data_ptr(), temp_bytes, in.data_ptr<long>(),
                                                 out.data_ptr<long>() + 1, (int)n, stream));
    return out;
}
"""

offsets_cpp_source = "torch::Tensor lengths_to_offsets_cuda(torch::Tensor lengths);"

offsets_ext = load_inline(
    name="dlrm_lengths_to_offsets",
    cpp_sources=offsets_cpp_source,
    cuda_sources=offsets_source,
    functions=["lengths_to_offsets_cuda"],
    verbose=False,
)

class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, lengths):
        return offsets_ext.lengths_to_offsets_cuda(lengths)
