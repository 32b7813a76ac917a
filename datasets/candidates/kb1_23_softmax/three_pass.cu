// Straightforward softmax: one block per row, three passes over the
// row (max, sum of exponentials, write), warp shuffles + shared memory.
#define NEG_INF __int_as_float(0xff800000)

__device__ float warpMax(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ float warpSum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ float blockReduce(float v, float* shared, bool isMax)
{
    v = isMax ? warpMax(v) : warpSum(v);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    float t = isMax ? NEG_INF : 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t = isMax ? fmaxf(t, shared[w]) : t + shared[w];
    __syncthreads();
    return t;
}

extern "C" __global__ void softmax_rows(const float* x, float* y, int rows, long long cols)
{
    __shared__ float shared[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (long long)row * cols;
    float* yr = y + (long long)row * cols;
    float m = NEG_INF;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = blockReduce(m, shared, true);
    float s = 0.0f;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = blockReduce(s, shared, false);
    const float inv = 1.0f / s;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
