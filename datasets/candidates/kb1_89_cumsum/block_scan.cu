// Straightforward inclusive scan along rows: one 1024-thread block per row,
// 1024-element chunks scanned in shared memory (Hillis-Steele), a running
// carry between chunks.
extern "C" __global__ void cumsum_rows(const float* x, float* y, int rows, long long cols)
{
    __shared__ float buf[1024];
    __shared__ float carry;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (long long)row * cols;
    float* yr = y + (long long)row * cols;
    if (threadIdx.x == 0) carry = 0.0f;
    for (long long base = 0; base < cols; base += blockDim.x) {
        const long long c = base + threadIdx.x;
        buf[threadIdx.x] = c < cols ? xr[c] : 0.0f;
        __syncthreads();
        for (int off = 1; off < (int)blockDim.x; off <<= 1) {
            const float add = threadIdx.x >= off ? buf[threadIdx.x - off] : 0.0f;
            __syncthreads();
            buf[threadIdx.x] += add;
            __syncthreads();
        }
        const float v = buf[threadIdx.x] + carry;
        if (c < cols) {
            yr[c] = v;
        }
        __syncthreads();
        if (threadIdx.x == blockDim.x - 1) carry = v;
        __syncthreads();
    }
}
