#include "gpu/device/gpu_check.h"

#include "gpu/device/driver_api.h"

#include <cublas_v2.h>
#include <cupti.h>

#include <string>

namespace kwb::gpu {

namespace {

std::string baseName(const char* file)
{
    std::string f(file);
    auto slash = f.find_last_of('/');
    return slash == std::string::npos ? f : f.substr(slash + 1);
}

Status make(ErrorCode code, const std::string& lib, const char* call, const std::string& what, const char* file,
    int line)
{
    SourcePosition where;
    where.file = baseName(file);
    where.line = line;
    return Status(code, lib + " call " + call + " failed: " + what, std::move(where));
}

} // namespace

bool isOutOfMemory(cudaError_t err)
{
    return err == cudaErrorMemoryAllocation;
}

bool isStickyError(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorTooManyPeers:
    case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

Status cudaRuntimeStatus(cudaError_t err, const char* call, const char* file, int line)
{
    ErrorCode code = isOutOfMemory(err) ? ErrorCode::OutOfMemory : ErrorCode::GpuError;
    std::string what = std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
    if (isStickyError(err)) what += " [sticky: the CUDA context is lost]";
    return make(code, "CUDA", call, what, file, line);
}

Status cudaDriverStatus(CUresult err, const char* call, const char* file, int line)
{
    const char* name = nullptr;
    const char* text = nullptr;
    if (const DriverApi* api = driverApi()) {
        api->getErrorName(err, &name);
        api->getErrorString(err, &text);
    }
    const std::string numbered = "CUDA_ERROR " + std::to_string(static_cast<int>(err));
    if (!name) name = numbered.c_str();
    ErrorCode code = err == CUDA_ERROR_OUT_OF_MEMORY ? ErrorCode::OutOfMemory : ErrorCode::GpuError;
    std::string what = std::string(name) + " (" + (text ? text : "unknown") + ")";
    return make(code, "CUDA driver", call, what, file, line);
}

Status nvrtcStatus(nvrtcResult err, const char* call, const char* file, int line)
{
    return make(ErrorCode::GpuError, "NVRTC", call, nvrtcGetErrorString(err), file, line);
}

Status cublasStatus(int err, const char* call, const char* file, int line)
{
    auto st = static_cast<cublasStatus_t>(err);
    ErrorCode code = st == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::OutOfMemory : ErrorCode::GpuError;
    return make(code, "cuBLAS", call, std::string(cublasGetStatusName(st)) + " (" + cublasGetStatusString(st) + ")",
        file, line);
}

Status cuptiStatus(int err, const char* call, const char* file, int line)
{
    const char* text = nullptr;
    cuptiGetResultString(static_cast<CUptiResult>(err), &text);
    return make(ErrorCode::GpuError, "CUPTI", call, text ? text : "unknown CUPTI error", file, line);
}

Status checkContextHealth(const char* where)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaPeekAtLastError();
    if (err == cudaSuccess) return Status::ok();
    return cudaRuntimeStatus(err, where, __FILE__, __LINE__);
}

bool contextLost()
{
    return isStickyError(cudaDeviceSynchronize());
}

} // namespace kwb::gpu
