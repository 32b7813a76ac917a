// Straightforward matrix-vector product: one block per row.
extern "C" __global__ void matvec_row_block(const float* A, const float* B, float* C, int M, long long K)
{
    __shared__ float partial[256];
    const int row = blockIdx.x;
    if (row >= M) return;
    const float* a = A + (long long)row * K;
    float acc = 0.0f;
    for (long long k = threadIdx.x; k < K; k += blockDim.x) acc += a[k] * B[k];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) C[row] = partial[0];
}
