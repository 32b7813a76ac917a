// Straightforward depthwise convolution (stride 1, no padding).
extern "C" __global__ void dwconv_direct(const float* x, const float* w, float* y, int channels, int h, int wd, int k, long long total)
{
    const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= total) return;
    const int ho = h - k + 1, wo = wd - k + 1;
    const int ox = (int)(o % wo);
    const int oy = (int)((o / wo) % ho);
    const long long plane = o / ((long long)wo * ho);
    const int ch = (int)(plane % channels);
    const float* xp = x + plane * h * (long long)wd;
    const float* wp = w + ch * k * k;
    float acc = 0.0f;
    for (int ky = 0; ky < k; ++ky)
        for (int kx = 0; kx < k; ++kx) acc += xp[(long long)(oy + ky) * wd + ox + kx] * wp[ky * k + kx];
    y[o] = acc;
}
