#pragma once
// One checked macro per GPU library family. Each turns the library's error
// into a kwb::Status naming the failing call, the library's error name and
// text, and the source location, and returns it from the enclosing function
// (which must return Status or Result<T>). No exception leaves core/gpu.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "base/status.h"

namespace kwb::gpu {

Status cudaRuntimeStatus(cudaError_t err, const char* call, const char* file, int line);
Status cudaDriverStatus(CUresult err, const char* call, const char* file, int line);
Status nvrtcStatus(nvrtcResult err, const char* call, const char* file, int line);
Status cublasStatus(int err, const char* call, const char* file, int line);
Status cuptiStatus(int err, const char* call, const char* file, int line);

// Errors after which the CUDA context is unusable: every later call in this
// process fails the same way, so the runner must report and exit.
bool isStickyError(cudaError_t err);
bool isOutOfMemory(cudaError_t err);

// Checks the device for a pending (asynchronous) or sticky error without
// clearing a sticky one. Ok when the context is healthy.
Status checkContextHealth(const char* where);
// True when the context has hit a sticky error (synchronises the device).
bool contextLost();

} // namespace kwb::gpu

#define KWB_GPU_CHECK_IMPL(kind, expr)                                                      \
    do {                                                                                    \
        auto kwb_gpu_err_ = (expr);                                                         \
        if (static_cast<int>(kwb_gpu_err_) != 0)                                            \
            return ::kwb::gpu::kind(kwb_gpu_err_, #expr, __FILE__, __LINE__);                \
    } while (0)

// CUDA runtime API (cudaError_t).
#define KWB_CUDA_CHECK(expr) KWB_GPU_CHECK_IMPL(cudaRuntimeStatus, expr)
// CUDA driver API (CUresult).
#define KWB_CU_CHECK(expr) KWB_GPU_CHECK_IMPL(cudaDriverStatus, expr)
// NVRTC (nvrtcResult).
#define KWB_NVRTC_CHECK(expr) KWB_GPU_CHECK_IMPL(nvrtcStatus, expr)
// cuBLAS (cublasStatus_t).
#define KWB_CUBLAS_CHECK(expr) KWB_GPU_CHECK_IMPL(cublasStatus, static_cast<int>(expr))
// CUPTI (CUptiResult).
#define KWB_CUPTI_CHECK(expr) KWB_GPU_CHECK_IMPL(cuptiStatus, static_cast<int>(expr))
