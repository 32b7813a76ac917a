// Decoy / no custom kernel (KernelGYM 2026-02): declares a kernel of its own
// but never launches it; the product comes from cuBLAS. Correct and fast, and
// not the candidate's work: CUPTI shows only library kernels.
#include <cstdint>

#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void gemm_custom_unused(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

namespace {
cublasHandle_t g_handle = nullptr;
}

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    if (!g_handle && cublasCreate(&g_handle) != CUBLAS_STATUS_SUCCESS) return 1;
    cublasSetMathMode(g_handle, CUBLAS_DEFAULT_MATH);
    cublasSetStream(g_handle, stream);
    const int M = static_cast<int>(sizes[0]);
    const int N = static_cast<int>(sizes[1]);
    const int K = static_cast<int>(sizes[2]);
    const float one = 1.0f;
    const float zero = 0.0f;
    // Row-major C = A B is column-major C^T = B^T A^T.
    const cublasStatus_t s = cublasSgemm(g_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
        static_cast<const float*>(buffers[1]), N, static_cast<const float*>(buffers[0]), K, &zero,
        static_cast<float*>(buffers[2]), N);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : 2;
}
