import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Weighted-sum EmbeddingBag: dim / 4 lanes per bag, float4 row loads, the bag's
# weights read alongside its indices; several bags per 256-thread block.
embedding_bag_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__global__ void embedding_bag_weighted_vec4(const float4* __restrict__ table, const long* __restrict__ indices,
                                            const float* __restrict__ weights, float4* __restrict__ out, long bags,
                                            int pooling, int lanes)
{
    const long bag = (long)blockIdx.x * (blockDim.x / lanes) + threadIdx.x / lanes;
    const int lane = threadIdx.x % lanes;
    if (bag >= bags) return;
    const long* idx = indices + bag * pooling;
    const float* w = weights + bag * pooling;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    int l = 0;
    for (; l + 3 < pooling; l += 4) {
        float4 v[4];
        float s[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) { v[u] = __ldg(&table[idx[l + u] * lanes + lane]); s[u] = w[l + u]; }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            acc.x += s[u] * v[u].x; acc.y += s[u] * v[u].y; acc.z += s[u] * v[u].z; acc.w += s[u] * v[u].w;
        }
    }
    for (; l < pooling; ++l) {
        const float4 v = __ldg(&table[idx[l] * lanes + lane]);
        const float s = w[l];
        acc.x += s * v.x; acc.y += s * v.y; acc.z += s * v.z; acc.w += s * v.w;
    }
    out[bag * lanes + lane] = acc;
}

torch::Tensor embedding_bag_weighted_cuda(torch::Tensor table, torch::Tensor indices, torch::Tensor weights)
{
    TORCH_CHECK(table.is_cuda() && indices.is_cuda() && weights.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(table.scalar_type() == torch::kFloat32 && indices.scalar_type() == torch::kInt64 &&
                weights.scalar_type() == torch::kFloat32, "float32 table and weights, int64 indices");
    TORCH_CHECK(indices.dim() == 2 && weights.sizes() == indices.sizes(), "indices and weights must be (bags, pooling)");
    const int dim = table.size(1);
    TORCH_CHECK(dim % 4 == 0 && 256 % (dim / 4) == 0 && dim <= 1024, "dim must be a multiple of 4 with dim / 4 dividing 256");
    auto t = table.contiguous();
    auto idx = indices.contiguous();
    auto w = weights.contiguous();
    const long bags = idx.size(0);
    auto out = torch::empty({bags, dim}, table.options());
    const int lanes = dim / 4;
    const int per_block = 256 / lanes;
    const long blocks = (bags + per_block - 1) / per_block;
    if (blocks > 0)
        embedding_bag_weighted_vec4<<<blocks, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(
            (const float4*)t.data_ptr<float>(), idx.data_ptr<long>(), w.data_ptr<float>(),
            (float4*)out.data_ptr<float>(), bags, (int)idx.size(1), lanes);
    return out;
}
"""

embedding_bag_cpp_source = ("torch::Tensor embedding_bag_weighted_cuda(torch::Tensor table, torch::Tensor indices, "
                            "torch::Tensor weights);")

embedding_bag = load_inline(
    name="dlrm_embedding_bag_weighted_vec4",
    cpp_sources=embedding_bag_cpp_source,
    cuda_sources=embedding_bag_source,
    functions=["embedding_bag_weighted_cuda"],
    verbose=False,
)

class ModelNew(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super(ModelNew, self).__init__()
        self.embedding = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices, per_sample_weights):
        return embedding_bag.embedding_bag_weighted_cuda(self.embedding.weight, indices, per_sample_weights)
