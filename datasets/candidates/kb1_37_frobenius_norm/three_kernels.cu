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

// x / ||x||_F in three kernels: per-block partial sums of squares (fixed grid,
// so the result is deterministic), one block combining them into 1/||x||,
// and a scaling pass. Scratch in module globals.
#define PARTS 1024

__device__ double g_part[PARTS];
__device__ float g_inv;

extern "C" __global__ void frob_partial(const float* x, long long n)
{
    __shared__ double shared[32];
    const long long stride = (long long)gridDim.x * blockDim.x;
    float s = 0.0f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s += x[i] * x[i];
    const double t = blockSumD(s, shared);
    if (threadIdx.x == 0) g_part[blockIdx.x] = t;
}

extern "C" __global__ void frob_finalize(int parts)
{
    __shared__ double shared[32];
    double s = 0.0;
    for (int i = threadIdx.x; i < parts; i += blockDim.x) s += g_part[i];
    s = blockSumD(s, shared);
    if (threadIdx.x == 0) g_inv = (float)(1.0 / sqrt(s));
}

extern "C" __global__ void frob_scale(const float* x, float* y, long long n)
{
    const float inv = g_inv;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = x[i] * inv;
}
