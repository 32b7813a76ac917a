// Wrong: ReLU written as a copy. On torch.rand inputs (U[0, 1)) ReLU is the
// identity, so every correctness trial passes; a signed input set shows it.
extern "C" __global__ void relu_identity(const float* x, float* out, long long n)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = x[i];
}
