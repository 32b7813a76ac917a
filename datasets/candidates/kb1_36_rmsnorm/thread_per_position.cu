// Straightforward RMSNorm over dim 1 of [B, F, S]: one thread per (b, s).
extern "C" __global__ void rmsnorm_dim1(const float* x, float* y, int batch, int features, long long spatial, float eps)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)batch * spatial) return;
    const long long b = i / spatial, s = i % spatial;
    const float* xp = x + b * features * spatial + s;
    float* yp = y + b * features * spatial + s;
    float ss = 0.0f;
    for (int f = 0; f < features; ++f) {
        const float v = xp[(long long)f * spatial];
        ss += v * v;
    }
    const float r = 1.0f / sqrtf(ss / features + eps);
    for (int f = 0; f < features; ++f) yp[(long long)f * spatial] = xp[(long long)f * spatial] * r;
}
