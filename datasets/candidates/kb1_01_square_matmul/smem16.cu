// Straightforward GEMM, the textbook version: 16 x 16 thread blocks, one
// output per thread, A and B tiles of 16 x 16 staged through shared memory
// (B stored [K, N]).
// fp32 FMA, bounds-checked.
extern "C" __global__ void gemm_smem16(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[16][17];
    __shared__ float Bs[16][17];
    const int col = blockIdx.x * 16 + threadIdx.x;
    const int row = blockIdx.y * 16 + threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        const int ka = k0 + threadIdx.x;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[(long long)row * K + ka] : 0.0f;
        const int kb = k0 + threadIdx.y; // Bs[k][n]
        Bs[threadIdx.y][threadIdx.x] = (col < N && kb < K) ? B[(long long)kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row >= M || col >= N) return;
    C[(long long)row * N + col] = acc;
}
