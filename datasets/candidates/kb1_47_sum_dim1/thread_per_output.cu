// Straightforward sum over dim 1 of [B, R, C]: one thread per output (b, c).
extern "C" __global__ void sum_dim1(const float* x, float* y, int batch, int r, int c)
{
    const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= (long long)batch * c) return;
    const long long b = o / c, col = o % c;
    const float* p = x + b * r * (long long)c + col;
    float acc = 0.0f;
    for (int k = 0; k < r; ++k) acc = acc + p[(long long)k * c];
    y[o] = acc;
}
