// min over dim 1 of [B, R, C]: 32 x 8 threads per 32 output columns.
extern "C" __global__ void min_dim1_tiled(const float* x, float* y, int batch, int r, int c)
{
    __shared__ float part[8][33];
    const int col = blockIdx.x * 32 + threadIdx.x;
    const long long b = blockIdx.y;
    float a0 = __int_as_float(0x7f800000), a1 = __int_as_float(0x7f800000), a2 = __int_as_float(0x7f800000), a3 = __int_as_float(0x7f800000);
    if (col < c) {
        const float* p = x + b * r * (long long)c + col;
        int k = threadIdx.y;
        for (; k + 24 < r; k += 32) {
            a0 = fminf(a0, p[(long long)k * c]);
            a1 = fminf(a1, p[(long long)(k + 8) * c]);
            a2 = fminf(a2, p[(long long)(k + 16) * c]);
            a3 = fminf(a3, p[(long long)(k + 24) * c]);
        }
        for (; k < r; k += 8) a0 = fminf(a0, p[(long long)k * c]);
    }
    part[threadIdx.y][threadIdx.x] = fminf(fminf(a0, a1), fminf(a2, a3));
    __syncthreads();
    if (threadIdx.y == 0 && col < c) {
        float acc = part[0][threadIdx.x];
        for (int j = 1; j < 8; ++j) acc = fminf(acc, part[j][threadIdx.x]);
        y[b * c + col] = acc;
    }
}
