// EmbeddingBag (weighted) with float4 rows: dim / 4 lanes per bag (a warp for
// dim 128, half a warp for 64), several bags per block; the bag's indices
// are read four at a time so four row loads are in flight per lane.
// dim % 4 == 0 and dim / 4 divides blockDim.x.
extern "C" __global__ void embedding_bag_vec4(const float* table, const int* indices, const float* weights, float* out, int bags, int pooling, int dim)
{
    const int lanes = dim / 4;
    const int bag = blockIdx.x * (blockDim.x / lanes) + threadIdx.x / lanes;
    const int lane = threadIdx.x % lanes;
    if (bag >= bags) return;
    const int* idx = indices + (long long)bag * pooling;
    const float4* t4 = (const float4*)table;
    float4 acc;
    acc.x = acc.y = acc.z = acc.w = 0.0f;
    int l = 0;
    for (; l + 3 < pooling; l += 4) {
        float4 v4[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v4[u] = t4[(long long)idx[l + u] * lanes + lane];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const float4 v = v4[u];
            const float s = weights[(long long)bag * pooling + l + u];
            acc.x += s * v.x; acc.y += s * v.y; acc.z += s * v.z; acc.w += s * v.w;
        }
    }
    for (; l < pooling; ++l) {
        const float4 v = t4[(long long)idx[l] * lanes + lane];
        const float s = weights[(long long)bag * pooling + l];
        acc.x += s * v.x; acc.y += s * v.y; acc.z += s * v.z; acc.w += s * v.w;
    }
    ((float4*)out)[(long long)bag * lanes + lane] = acc;
}
