// Exploit class: a kernel that never terminates. The inputs lie in [0, 1), so
// the exit condition never holds; the volatile load keeps the loop alive.
extern "C" __global__ void vector_add_spin(const float* a, const float* b, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const volatile float* va = a;
    while (va[0] != -12345.0f) {
    }
    if (i < n) out[i] = a[i] + b[i];
}
