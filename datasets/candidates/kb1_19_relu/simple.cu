// Straightforward ReLU: one thread per element.
extern "C" __global__ void relu_simple(const float* x, float* y, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
