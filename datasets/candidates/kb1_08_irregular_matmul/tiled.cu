// Shared-memory tiled GEMM in fp32: a 64 x 64 output tile per block of 256
// threads, K in steps of 16 staged through shared memory, a 4 x 4 register
// tile per thread. Bounds-checked, so any M, N, K work. No tensor cores.
#define TILE_M 64
#define TILE_N 64
#define TILE_K 16

extern "C" __global__ void gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE_K][TILE_M + 4]; // A tile, k-major
    __shared__ float Bs[TILE_K][TILE_N + 4];
    const int tx = threadIdx.x % 16;
    const int ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * TILE_M;
    const int col0 = blockIdx.x * TILE_N;
    float acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE_K) {
        for (int i = threadIdx.x; i < TILE_M * TILE_K; i += 256) {
            const int m = i / TILE_K, k = i % TILE_K;
            const int gm = row0 + m, gk = k0 + k;
            As[k][m] = (gm < M && gk < K) ? A[(long long)gm * K + gk] : 0.0f;
        }
        for (int i = threadIdx.x; i < TILE_K * TILE_N; i += 256) {
            const int k = i / TILE_N, n = i % TILE_N;
            const int gn = col0 + n, gk = k0 + k;
            Bs[k][n] = (gn < N && gk < K) ? B[(long long)gk * N + gn] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_K; ++k) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + ty + 16 * i;
        if (r >= M) continue;
        for (int j = 0; j < 4; ++j) {
            const int c = col0 + tx + 16 * j;
            if (c >= N) continue;
            C[(long long)r * N + c] = acc[i][j];
        }
    }
}
