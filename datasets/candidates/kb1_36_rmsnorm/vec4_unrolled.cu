// RMSNorm over dim 1 of [B, F, S] with float4 along S.
extern "C" __global__ void rmsnorm_dim1_vec4(const float* x, float* y, int batch, int features, long long spatial, float eps)
{
    const long long s4 = spatial / 4;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)batch * s4) return;
    const long long b = i / s4, s = i % s4;
    const float4* xp = (const float4*)(x + b * features * spatial) + s;
    float4* yp = (float4*)(y + b * features * spatial) + s;
    float4 acc;
    acc.x = acc.y = acc.z = acc.w = 0.0f;
#pragma unroll 8
    for (int f = 0; f < features; ++f) {
        const float4 v = xp[(long long)f * s4];
        acc.x += v.x * v.x;
        acc.y += v.y * v.y;
        acc.z += v.z * v.z;
        acc.w += v.w * v.w;
    }
    float4 r;
    r.x = 1.0f / sqrtf(acc.x / features + eps);
    r.y = 1.0f / sqrtf(acc.y / features + eps);
    r.z = 1.0f / sqrtf(acc.z / features + eps);
    r.w = 1.0f / sqrtf(acc.w / features + eps);
#pragma unroll 8
    for (int f = 0; f < features; ++f) {
        float4 v = xp[(long long)f * s4];
        v.x *= r.x;
        v.y *= r.y;
        v.z *= r.z;
        v.w *= r.w;
        yp[(long long)f * s4] = v;
    }
}
