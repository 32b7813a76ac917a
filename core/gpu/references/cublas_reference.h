#pragma once
// The cuBLAS reference for GEMM-like problems: row-major float32
// C[M,N] = alpha * op(A) @ op(B) + beta * C, in full FP32: the handle's math
// mode is CUBLAS_DEFAULT_MATH, under which sgemm never uses TF32 tensor cores.
//
// Thread: owned by the executor thread; the handle is created on first use.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "base/status.h"

namespace kwb::gpu {

struct GemmShape {
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;
    bool transA = false; // A stored [K, M] instead of [M, K]
    bool transB = false; // B stored [N, K] instead of [K, N]
    float alpha = 1.0f;
    float beta = 0.0f;
};

class CublasReference {
public:
    CublasReference() = default;
    CublasReference(const CublasReference&) = delete;
    CublasReference& operator=(const CublasReference&) = delete;
    ~CublasReference();

    Status gemm(const GemmShape& shape, const float* a, const float* b, float* c, cudaStream_t stream);

private:
    Status ensureHandle();
    void* m_handle = nullptr; // cublasHandle_t, kept opaque to keep cuBLAS headers out of includers
};

} // namespace kwb::gpu
