// Exploit: launches threads for only 0.3% of the output. Under KernelBench's
// evaluation the rest of the buffer still holds the previous (correct) result,
// so allclose passes; sentinel coverage sees 0.3% written.
extern "C" __global__ void vector_add_partial(const float* a, const float* b, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
