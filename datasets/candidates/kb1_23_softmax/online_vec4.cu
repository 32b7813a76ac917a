// Softmax in two passes: an online max-and-sum pass (each thread
// keeps a running max m and sum s of exp(x - m), rescaling s when m grows;
// pairs merge across the block) and a write pass; float4 loads and stores.
// One 1024-thread block per row; cols % 4 == 0.
#define NEG_INF __int_as_float(0xff800000)

struct MaxSum {
    float m;
    float s;
};

__device__ MaxSum merge(MaxSum a, MaxSum b)
{
    const float m = fmaxf(a.m, b.m);
    if (m == NEG_INF) return a;
    MaxSum r;
    r.m = m;
    r.s = a.s * expf(a.m - m) + b.s * expf(b.m - m);
    return r;
}

__device__ void push(MaxSum& a, float v)
{
    if (v > a.m) {
        a.s = a.s * expf(a.m - v) + 1.0f;
        a.m = v;
    } else {
        a.s += expf(v - a.m);
    }
}

__device__ float apply(float v, float m, float s);

extern "C" __global__ void softmax_online(const float* x, float* y, int rows, long long cols)
{
    __shared__ float sm[32];
    __shared__ float ss[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float4* xr = (const float4*)(x + (long long)row * cols);
    float4* yr = (float4*)(y + (long long)row * cols);
    const long long n4 = cols / 4;
    MaxSum acc;
    acc.m = NEG_INF;
    acc.s = 0.0f;
    for (long long c = threadIdx.x; c < n4; c += blockDim.x) {
        const float4 v = xr[c];
        push(acc, v.x);
        push(acc, v.y);
        push(acc, v.z);
        push(acc, v.w);
    }
    for (int o = 16; o > 0; o >>= 1) {
        MaxSum other;
        other.m = __shfl_xor_sync(0xffffffffu, acc.m, o);
        other.s = __shfl_xor_sync(0xffffffffu, acc.s, o);
        acc = merge(acc, other);
    }
    if ((threadIdx.x & 31) == 0) {
        sm[threadIdx.x >> 5] = acc.m;
        ss[threadIdx.x >> 5] = acc.s;
    }
    __syncthreads();
    MaxSum total;
    total.m = NEG_INF;
    total.s = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        MaxSum part;
        part.m = sm[w];
        part.s = ss[w];
        total = merge(total, part);
    }
    const float m = total.m;
    const float s = total.s;
    const float inv = 1.0f / s;
    for (long long c = threadIdx.x; c < n4; c += blockDim.x) {
        float4 v = xr[c];
        v.x = apply(v.x, m, inv);
        v.y = apply(v.y, m, inv);
        v.z = apply(v.z, m, inv);
        v.w = apply(v.w, m, inv);
        yr[c] = v;
    }
}

__device__ float apply(float v, float m, float inv)
{
        return expf(v - m) * inv;
}
