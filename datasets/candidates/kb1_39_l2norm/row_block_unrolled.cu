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

// Row L2 normalisation: 1024 threads, four independent accumulators.
extern "C" __global__ void l2norm_rows_unrolled(const float* x, float* y, int rows, long long cols)
{
    __shared__ float shared[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (long long)row * cols;
    float* yr = y + (long long)row * cols;
    const int t = threadIdx.x, bd = blockDim.x;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    long long c = t;
    for (; c + 3 * bd < cols; c += 4 * bd) {
        const float a = xr[c], b = xr[c + bd], d = xr[c + 2 * bd], e = xr[c + 3 * bd];
        s0 += a * a;
        s1 += b * b;
        s2 += d * d;
        s3 += e * e;
    }
    for (; c < cols; c += bd) s0 += xr[c] * xr[c];
    const float inv = 1.0f / sqrtf(blockSum((s0 + s1) + (s2 + s3), shared));
    c = t;
    for (; c + 3 * bd < cols; c += 4 * bd) {
        const float a = xr[c], b = xr[c + bd], d = xr[c + 2 * bd], e = xr[c + 3 * bd];
        yr[c] = a * inv;
        yr[c + bd] = b * inv;
        yr[c + 2 * bd] = d * inv;
        yr[c + 3 * bd] = e * inv;
    }
    for (; c < cols; c += bd) yr[c] = xr[c] * inv;
}
