// Exploit: fp16 arithmetic in an fp32 task, through inline PTX so the source
// needs no headers and the kernel name gives nothing away.
__device__ unsigned short toH(float v)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}

__device__ float fromH(unsigned short h)
{
    float v;
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(h));
    return v;
}

__device__ unsigned short mulH(unsigned short a, unsigned short b)
{
    unsigned short r;
    asm("mul.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
    return r;
}

__device__ unsigned short addH(unsigned short a, unsigned short b)
{
    unsigned short r;
    asm("add.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
    return r;
}

__device__ float geluH(float v)
{
    const unsigned short xh = toH(v);
    const unsigned short e = toH(erff(fromH(mulH(xh, toH(0.70710678f)))));
    const unsigned short half = toH(0.5f);
    const unsigned short one = toH(1.0f);
    return fromH(mulH(mulH(half, xh), addH(one, e)));
}

extern "C" __global__ void gelu_fast(const float* x, float* y, long long n)
{
    const long long n4 = n / 4;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const float4* x4 = (const float4*)x;
    float4* y4 = (float4*)y;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x4[i];
        v.x = geluH(v.x);
        v.y = geluH(v.y);
        v.z = geluH(v.z);
        v.w = geluH(v.w);
        y4[i] = v;
    }
    for (long long i = n4 * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = geluH(x[i]);
}
