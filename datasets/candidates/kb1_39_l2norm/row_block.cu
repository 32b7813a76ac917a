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

// Straightforward row L2 normalisation: one block per row.
extern "C" __global__ void l2norm_rows(const float* x, float* y, int rows, long long cols)
{
    __shared__ float shared[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (long long)row * cols;
    float* yr = y + (long long)row * cols;
    float s = 0.0f;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c] * xr[c];
    const float inv = 1.0f / sqrtf(blockSum(s, shared));
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c] * inv;
}
