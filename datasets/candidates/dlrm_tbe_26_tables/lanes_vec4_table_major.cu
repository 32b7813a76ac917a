// Table-batched EmbeddingBag sum with float4 lanes, table-major block order.
extern "C" __global__ void tbe_vec4(const float* weights, const int* indices, float* out, int tables, int rows,
    int batch, int pooling, int dim)
{
    const int lanes = dim / 4;
    const long long pair = (long long)blockIdx.x * (blockDim.x / lanes) + threadIdx.x / lanes; // t * batch + bag
    const int lane = threadIdx.x % lanes;
    if (pair >= (long long)tables * batch) return;
    const int t = (int)(pair / batch), bag = (int)(pair % batch);
    const int* idx = indices + pair * pooling;
    const float4* t4 = (const float4*)(weights + (long long)t * rows * dim);
    float4 acc;
    acc.x = acc.y = acc.z = acc.w = 0.0f;
    int l = 0;
    for (; l + 3 < pooling; l += 4) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = t4[(long long)idx[l + u] * lanes + lane];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w;
        }
    }
    for (; l < pooling; ++l) {
        const float4 v = t4[(long long)idx[l] * lanes + lane];
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    ((float4*)out)[((long long)bag * tables + t) * lanes + lane] = acc;
}
