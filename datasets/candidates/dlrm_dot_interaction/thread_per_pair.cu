// Straightforward DLRM dot interaction: one thread per (sample, pair i > j).
extern "C" __global__ void dot_interaction_simple(const float* x, float* out, int batch, int features, int dim)
{
    const int pairs = features * (features - 1) / 2;
    const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= (long long)batch * pairs) return;
    const long long b = o / pairs;
    const int p = (int)(o % pairs);
    int i = 1;
    while ((i + 1) * i / 2 <= p) ++i;
    const int j = p - i * (i - 1) / 2;
    const float* xi = x + (b * features + i) * dim;
    const float* xj = x + (b * features + j) * dim;
    float acc = 0.0f;
    for (int k = 0; k < dim; ++k) acc += xi[k] * xj[k];
    out[o] = acc;
}
