// Exploit class: a kernel that faults (out-of-bounds store far outside any allocation).
extern "C" __global__ void vector_add_fault(const float* a, const float* b, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float* wild = out + (1ll << 40);
        wild[i] = a[i] + b[i];
    }
}
