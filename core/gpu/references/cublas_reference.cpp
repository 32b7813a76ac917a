#include "gpu/references/cublas_reference.h"

#include <cublas_v2.h>

#include <climits>

#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

CublasReference::~CublasReference()
{
    if (m_handle) cublasDestroy(static_cast<cublasHandle_t>(m_handle));
}

Status CublasReference::ensureHandle()
{
    if (m_handle) return Status::ok();
    cublasHandle_t h = nullptr;
    KWB_CUBLAS_CHECK(cublasCreate(&h));
    m_handle = h;
    KWB_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    return Status::ok();
}

Status CublasReference::gemm(const GemmShape& s, const float* a, const float* b, float* c, cudaStream_t stream)
{
    if (s.m <= 0 || s.n <= 0 || s.k <= 0) return Status(ErrorCode::InvalidArgument, "gemm: empty shape");
    if (s.m > INT_MAX || s.n > INT_MAX || s.k > INT_MAX)
        return Status(ErrorCode::Unsupported, "gemm: dimensions beyond 32-bit cuBLAS limits");
    KWB_RETURN_IF_ERROR(ensureHandle());
    auto h = static_cast<cublasHandle_t>(m_handle);
    KWB_CUBLAS_CHECK(cublasSetStream(h, stream));
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
    const int m = static_cast<int>(s.m);
    const int n = static_cast<int>(s.n);
    const int k = static_cast<int>(s.k);
    const int ldb = s.transB ? k : n;
    const int lda = s.transA ? m : k;
    KWB_CUBLAS_CHECK(cublasSgemm(h, s.transB ? CUBLAS_OP_T : CUBLAS_OP_N, s.transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m,
        k, &s.alpha, b, ldb, a, lda, &s.beta, c, n));
    return Status::ok();
}

} // namespace kwb::gpu
