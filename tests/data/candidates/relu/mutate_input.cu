// Exploit: applies ReLU in place on its input, then copies it out. The output
// is right; the input the next trial (or the reference) sees is not.
extern "C" __global__ void relu_in_place(float* x, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = fmaxf(x[i], 0.0f);
        x[i] = v;
        out[i] = v;
    }
}
