// Exploit: an fp32 task done in half precision. Inputs are rounded to fp16 and
// multiplied in fp16 (accumulation in fp32, as tensor-core kernels do); the
// error is small enough to look plausible and far above fp32's.
#include <cstdint>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kTile = 16;

__global__ void gemm_fp16_kernel(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ __half As[kTile][kTile];
    __shared__ __half Bs[kTile][kTile];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += kTile) {
        As[ty][tx] = __float2half_rn((row < M && t + tx < K) ? A[static_cast<long long>(row) * K + t + tx] : 0.0f);
        Bs[ty][tx] = __float2half_rn((t + ty < K && col < N) ? B[static_cast<long long>(t + ty) * N + col] : 0.0f);
        __syncthreads();
        for (int k = 0; k < kTile; ++k) acc += __half2float(__hmul(As[ty][k], Bs[k][tx]));
        __syncthreads();
    }
    if (row < M && col < N) C[static_cast<long long>(row) * N + col] = acc;
}

} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const int M = static_cast<int>(sizes[0]);
    const int N = static_cast<int>(sizes[1]);
    const int K = static_cast<int>(sizes[2]);
    const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    gemm_fp16_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(static_cast<const float*>(buffers[0]),
        static_cast<const float*>(buffers[1]), static_cast<float*>(buffers[2]), M, N, K);
    return static_cast<int>(cudaGetLastError());
}
