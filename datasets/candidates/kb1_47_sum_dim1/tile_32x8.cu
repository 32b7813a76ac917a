// sum over dim 1 of [B, R, C]: 32 x 8 threads per 32 output columns.
extern "C" __global__ void sum_dim1_tiled(const float* x, float* y, int batch, int r, int c)
{
    __shared__ float part[8][33];
    const int col = blockIdx.x * 32 + threadIdx.x;
    const long long b = blockIdx.y;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    if (col < c) {
        const float* p = x + b * r * (long long)c + col;
        int k = threadIdx.y;
        for (; k + 24 < r; k += 32) {
            a0 = a0 + p[(long long)k * c];
            a1 = a1 + p[(long long)(k + 8) * c];
            a2 = a2 + p[(long long)(k + 16) * c];
            a3 = a3 + p[(long long)(k + 24) * c];
        }
        for (; k < r; k += 8) a0 = a0 + p[(long long)k * c];
    }
    part[threadIdx.y][threadIdx.x] = a0 + a1 + a2 + a3;
    __syncthreads();
    if (threadIdx.y == 0 && col < c) {
        float acc = part[0][threadIdx.x];
        for (int j = 1; j < 8; ++j) acc = acc + part[j][threadIdx.x];
        y[b * c + col] = acc;
    }
}
