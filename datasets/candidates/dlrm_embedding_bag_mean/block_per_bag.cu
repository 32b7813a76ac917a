// Straightforward EmbeddingBag (mean): one block per bag, one thread per
// embedding column, fp32 accumulation over the bag's rows.
extern "C" __global__ void embedding_bag_simple(const float* table, const int* indices, float* out, int bags, int pooling, int dim)
{
    const int bag = blockIdx.x;
    const int d = threadIdx.x;
    if (bag >= bags || d >= dim) return;
    const int* idx = indices + (long long)bag * pooling;
    float acc = 0.0f;
    for (int l = 0; l < pooling; ++l) {
        const int row = idx[l];
        acc += table[(long long)row * dim + d];
    }
    out[(long long)bag * dim + d] = acc / pooling;
}
