// Straightforward table-batched EmbeddingBag sum: one block per (bag, table).
extern "C" __global__ void tbe_simple(const float* weights, const int* indices, float* out, int tables, int rows,
    int batch, int pooling, int dim)
{
    const int bag = blockIdx.x, t = blockIdx.y, d = threadIdx.x;
    if (d >= dim) return;
    const int* idx = indices + ((long long)t * batch + bag) * pooling;
    const float* table = weights + (long long)t * rows * dim;
    float acc = 0.0f;
    for (int l = 0; l < pooling; ++l) acc += table[(long long)idx[l] * dim + d];
    out[((long long)bag * tables + t) * dim + d] = acc;
}
