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

// Matrix-vector product with float4 loads: one block per row.
extern "C" __global__ void matvec_vec4(const float* A, const float* B, float* C, int M, long long K)
{
    __shared__ float shared[32];
    const int row = blockIdx.x;
    if (row >= M) return;
    const float4* a = (const float4*)(A + (long long)row * K);
    const float4* b = (const float4*)B;
    const long long n4 = K / 4;
    float acc0 = 0.0f, acc1 = 0.0f;
    long long k = threadIdx.x;
    for (; k + blockDim.x < n4; k += 2 * blockDim.x) {
        const float4 x0 = a[k], y0 = b[k];
        const float4 x1 = a[k + blockDim.x], y1 = b[k + blockDim.x];
        acc0 += x0.x * y0.x + x0.y * y0.y + x0.z * y0.z + x0.w * y0.w;
        acc1 += x1.x * y1.x + x1.y * y1.y + x1.z * y1.z + x1.w * y1.w;
    }
    for (; k < n4; k += blockDim.x) {
        const float4 x0 = a[k], y0 = b[k];
        acc0 += x0.x * y0.x + x0.y * y0.y + x0.z * y0.z + x0.w * y0.w;
    }
    const float total = blockSum(acc0 + acc1, shared);
    if (threadIdx.x == 0) C[row] = total;
}
