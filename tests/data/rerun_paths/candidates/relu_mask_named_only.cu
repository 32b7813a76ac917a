extern "C" __global__ void relu_mask(const float* x, float* out, float* mask, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = x[i] > 0.0f ? x[i] : 0.0f;
    mask[i] = x[i] > 0.0f ? 1.0f : 0.0f;
}
