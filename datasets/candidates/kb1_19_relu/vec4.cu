// ReLU with float4 loads/stores in a grid-stride loop.
extern "C" __global__ void relu_vec4(const float* x, float* y, long long n)
{
    const long long n4 = n / 4;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const float4* x4 = (const float4*)x;
    float4* y4 = (float4*)y;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x4[i];
        v.x = fmaxf(v.x, 0.0f);
        v.y = fmaxf(v.y, 0.0f);
        v.z = fmaxf(v.z, 0.0f);
        v.w = fmaxf(v.w, 0.0f);
        y4[i] = v;
    }
    for (long long i = n4 * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = fmaxf(x[i], 0.0f);
}
