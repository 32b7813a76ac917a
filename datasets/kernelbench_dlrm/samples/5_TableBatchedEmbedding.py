import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Table-batched embedding: one launch for all tables (blockIdx.y is the table),
# each bag's pooled float4 vector written straight into its slice of the
# concatenated output, so neither 26 launches nor the concatenation copy remain.
tbe_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__global__ void tbe_sum_vec4(const long* __restrict__ table_ptrs, const long* __restrict__ indices,
                             float4* __restrict__ out, int batch, int pooling, int lanes, int tables)
{
    const int t = blockIdx.y;
    const long bag = (long)blockIdx.x * (blockDim.x / lanes) + threadIdx.x / lanes;
    const int lane = threadIdx.x % lanes;
    if (bag >= batch) return;
    const float4* table = reinterpret_cast<const float4*>(table_ptrs[t]);
    const long* idx = indices + ((long)t * batch + bag) * pooling;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    int l = 0;
    for (; l + 3 < pooling; l += 4) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = __ldg(&table[idx[l + u] * lanes + lane]);
#pragma unroll
        for (int u = 0; u < 4; ++u) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
    }
    for (; l < pooling; ++l) {
        const float4 v = __ldg(&table[idx[l] * lanes + lane]);
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    // Output row of the bag: tables * lanes float4s, table t's slice at t * lanes.
    out[bag * (long)tables * lanes + (long)t * lanes + lane] = acc;
}

torch::Tensor tbe_sum_cuda(torch::Tensor table_ptrs, torch::Tensor indices, int64_t dim)
{
    TORCH_CHECK(table_ptrs.is_cuda() && indices.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(indices.scalar_type() == torch::kInt64 && indices.dim() == 3, "int64 indices (tables, batch, pooling)");
    TORCH_CHECK(table_ptrs.scalar_type() == torch::kInt64 && table_ptrs.size(0) == indices.size(0), "one pointer per table");
    TORCH_CHECK(dim % 4 == 0 && 256 % (dim / 4) == 0 && dim <= 1024, "dim must be a multiple of 4 with dim / 4 dividing 256");
    auto idx = indices.contiguous();
    const int tables = idx.size(0), batch = idx.size(1), pooling = idx.size(2);
    auto out = torch::empty({batch, tables * dim}, indices.options().dtype(torch::kFloat32));
    const int lanes = dim / 4;
    const int per_block = 256 / lanes;
    const dim3 grid((batch + per_block - 1) / per_block, tables);
    if (batch > 0 && tables > 0)
        tbe_sum_vec4<<<grid, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(
            table_ptrs.data_ptr<long>(), idx.data_ptr<long>(), (float4*)out.data_ptr<float>(), batch, pooling, lanes,
            tables);
    return out;
}
"""

tbe_cpp_source = "torch::Tensor tbe_sum_cuda(torch::Tensor table_ptrs, torch::Tensor indices, int64_t dim);"

tbe = load_inline(
    name="dlrm_tbe_sum_vec4",
    cpp_sources=tbe_cpp_source,
    cuda_sources=tbe_source,
    functions=["tbe_sum_cuda"],
    verbose=False,
)

class ModelNew(nn.Module):
    def __init__(self, num_tables, num_embeddings, embedding_dim):
        super(ModelNew, self).__init__()
        self.tables = nn.ModuleList(
            [nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum") for _ in range(num_tables)])
        self.embedding_dim = embedding_dim
        self._ptrs = None
        self._ptrs_key = None

    def forward(self, indices):
        # The tables' device addresses, uploaded once and again only if a table moves.
        weights = [t.weight.contiguous() for t in self.tables]
        key = tuple(w.data_ptr() for w in weights)
        if self._ptrs_key != key or self._ptrs.device != indices.device:
            self._ptrs = torch.tensor(key, dtype=torch.int64, device=indices.device)
            self._ptrs_key = key
        return tbe.tbe_sum_cuda(self._ptrs, indices, self.embedding_dim)
