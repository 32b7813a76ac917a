__device__ float warpSum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ double warpSumD(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the block (blockDim.x a multiple of 32); every thread gets it.
__device__ float blockSum(float v, float* shared)
{
    v = warpSum(v);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    float t = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += shared[w];
    __syncthreads();
    return t;
}

__device__ double blockSumD(double v, double* shared)
{
    v = warpSumD(v);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    double t = 0.0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += shared[w];
    __syncthreads();
    return t;
}

// LayerNorm without affine for few, very wide rows: each row is split into
// 512 chunks. Kernel 1: per-chunk sum and sum of squares (double), kernel 2:
// per-row mean and 1/std, kernel 3: normalise with float4. Scratch lives in
// module globals (at most 64 rows x 512 chunks). cols % (4 * 512) == 0.
#define CHUNKS 512
#define MAX_ROWS 64

__device__ double g_sum[MAX_ROWS * CHUNKS];
__device__ double g_sq[MAX_ROWS * CHUNKS];
__device__ float g_mean[MAX_ROWS];
__device__ float g_rstd[MAX_ROWS];

extern "C" __global__ void ln_partial(const float* x, long long cols)
{
    __shared__ double shared[32];
    const int row = blockIdx.y;
    const long long chunk4 = cols / 4 / CHUNKS;
    const float4* xr = (const float4*)(x + (long long)row * cols) + blockIdx.x * chunk4;
    double s = 0.0, q = 0.0;
    for (long long i = threadIdx.x; i < chunk4; i += blockDim.x) {
        const float4 v = xr[i];
        s += (double)v.x + v.y + v.z + v.w;
        q += (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z + (double)v.w * v.w;
    }
    s = blockSumD(s, shared);
    q = blockSumD(q, shared);
    if (threadIdx.x == 0) {
        g_sum[row * CHUNKS + blockIdx.x] = s;
        g_sq[row * CHUNKS + blockIdx.x] = q;
    }
}

extern "C" __global__ void ln_finalize(long long cols, float eps)
{
    __shared__ double shared[32];
    const int row = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int i = threadIdx.x; i < CHUNKS; i += blockDim.x) {
        s += g_sum[row * CHUNKS + i];
        q += g_sq[row * CHUNKS + i];
    }
    s = blockSumD(s, shared);
    q = blockSumD(q, shared);
    if (threadIdx.x == 0) {
        const double mean = s / (double)cols;
        const double var = q / (double)cols - mean * mean;
        g_mean[row] = (float)mean;
        g_rstd[row] = (float)(1.0 / sqrt(var + eps));
    }
}

extern "C" __global__ void ln_apply(const float* x, float* y, int rows, long long cols)
{
    const long long n4 = (long long)rows * cols / 4;
    const long long cols4 = cols / 4;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const int row = (int)(i / cols4);
        const float m = g_mean[row], r = g_rstd[row];
        float4 v = ((const float4*)x)[i];
        v.x = (v.x - m) * r;
        v.y = (v.y - m) * r;
        v.z = (v.z - m) * r;
        v.w = (v.w - m) * r;
        ((float4*)y)[i] = v;
    }
}
