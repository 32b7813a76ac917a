// DLRM dot interaction: a sample's features staged in shared memory.
extern "C" __global__ void dot_interaction_smem(const float* x, float* out, int batch, int features, int dim)
{
    extern __shared__ float4 feat[]; // features rows of (dim / 4 + 1) float4
    const int d4 = dim / 4, stride = d4 + 1;
    const long long b = blockIdx.x;
    if (b >= batch) return;
    const float4* xb = (const float4*)(x + b * features * dim);
    for (int e = threadIdx.x; e < features * d4; e += blockDim.x) feat[(e / d4) * stride + e % d4] = xb[e];
    __syncthreads();
    const int pairs = features * (features - 1) / 2;
    float* ob = out + b * pairs;
    for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
        int i = 1;
        while ((i + 1) * i / 2 <= p) ++i;
        const int j = p - i * (i - 1) / 2;
        const float4* fi = feat + i * stride;
        const float4* fj = feat + j * stride;
        float a0 = 0.0f, a1 = 0.0f;
        for (int k = 0; k < d4; ++k) {
            const float4 u = fi[k], v = fj[k];
            a0 += u.x * v.x + u.y * v.y;
            a1 += u.z * v.z + u.w * v.w;
        }
        ob[p] = a0 + a1;
    }
}
