// Inclusive row scan: 8 values per thread, warp-shuffle scans, float4 I/O.
extern "C" __global__ void cumsum_rows_vec4(const float* x, float* y, int rows, long long cols)
{
    __shared__ float warpTotals[32];
    __shared__ float carry;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float4* xr = (const float4*)(x + (long long)row * cols);
    float4* yr = (float4*)(y + (long long)row * cols);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long chunk = 8LL * blockDim.x;
    if (threadIdx.x == 0) carry = 0.0f;
    __syncthreads();
    for (long long base = 0; base < cols; base += chunk) {
        const long long c = base + 8LL * threadIdx.x; // first of this thread's 8 values
        float v[8];
        if (c < cols) {
            const float4 a = xr[c / 4], b = xr[c / 4 + 1];
            v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
            v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
        } else {
            for (int k = 0; k < 8; ++k) v[k] = 0.0f;
        }
        for (int k = 1; k < 8; ++k) v[k] += v[k - 1];
        // Inclusive scan of the thread totals within the warp.
        float t = v[7];
        for (int off = 1; off < 32; off <<= 1) {
            const float up = __shfl_up_sync(0xffffffffu, t, off);
            if (lane >= off) t += up;
        }
        if (lane == 31) warpTotals[warp] = t;
        __syncthreads();
        if (warp == 0) {
            float w = lane < (int)(blockDim.x >> 5) ? warpTotals[lane] : 0.0f;
            for (int off = 1; off < 32; off <<= 1) {
                const float up = __shfl_up_sync(0xffffffffu, w, off);
                if (lane >= off) w += up;
            }
            warpTotals[lane] = w; // inclusive prefix over warps
        }
        __syncthreads();
        const float offset = carry + (warp > 0 ? warpTotals[warp - 1] : 0.0f) + (t - v[7]);
        if (c < cols) {
            float4 a, b;
            a.x = v[0] + offset; a.y = v[1] + offset; a.z = v[2] + offset; a.w = v[3] + offset;
            b.x = v[4] + offset; b.y = v[5] + offset; b.z = v[6] + offset; b.w = v[7] + offset;
            yr[c / 4] = a;
            yr[c / 4 + 1] = b;
        }
        __syncthreads();
        if (threadIdx.x == 0) carry += warpTotals[(blockDim.x >> 5) - 1];
        __syncthreads();
    }
}
