// Depthwise 3x3 convolution (stride 1, no padding) through a shared-memory tile:
// 32 x 32 outputs per block of 32 x 8 threads.
#define TW 32
#define TH 32
#define KS 3

extern "C" __global__ void dwconv3_tiled(const float* x, const float* w, float* y, int channels, int h, int wd)
{
    __shared__ float tile[TH + KS - 1][TW + KS - 1 + 1];
    const int ho = h - KS + 1, wo = wd - KS + 1;
    const long long plane = blockIdx.z; // batch * channels + channel
    const int ch = (int)(plane % channels);
    const int ox0 = blockIdx.x * TW, oy0 = blockIdx.y * TH;
    const float* xp = x + plane * h * (long long)wd;
    for (int ty = threadIdx.y; ty < TH + KS - 1; ty += blockDim.y)
        for (int tx = threadIdx.x; tx < TW + KS - 1; tx += blockDim.x) {
            const int iy = oy0 + ty, ix = ox0 + tx;
            tile[ty][tx] = (iy < h && ix < wd) ? xp[(long long)iy * wd + ix] : 0.0f;
        }
    float wr[KS * KS];
    for (int i = 0; i < KS * KS; ++i) wr[i] = w[ch * KS * KS + i];
    __syncthreads();
    float* yp = y + plane * ho * (long long)wo;
    const int ox = ox0 + threadIdx.x;
    for (int r = 0; r < TH / 8; ++r) {
        const int ly = threadIdx.y + 8 * r;
        const int oy = oy0 + ly;
        if (ox >= wo || oy >= ho) continue;
        float acc = 0.0f;
#pragma unroll
        for (int ky = 0; ky < KS; ++ky)
#pragma unroll
            for (int kx = 0; kx < KS; ++kx) acc += tile[ly + ky][threadIdx.x + kx] * wr[ky * KS + kx];
        yp[(long long)oy * wo + ox] = acc;
    }
}
