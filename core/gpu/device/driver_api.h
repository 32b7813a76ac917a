#pragma once
// The few CUDA driver API functions kwb_gpu needs (modules, launches, error
// names), looked up through the runtime (cudaGetDriverEntryPointByVersion)
// instead of linking libcuda.so.1: binaries then load on machines without an
// NVIDIA driver, where they must say "no GPU" instead of failing to start.
#include <cuda.h>

namespace kwb::gpu {

struct DriverApi {
    decltype(&::cuGetErrorName) getErrorName = nullptr;
    decltype(&::cuGetErrorString) getErrorString = nullptr;
    decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
    decltype(&::cuModuleUnload) moduleUnload = nullptr;
    decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
    decltype(&::cuLaunchKernel) launchKernel = nullptr;
    decltype(&::cuCtxGetCurrent) ctxGetCurrent = nullptr;
    decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
};

// The table, resolved on first use (thread-safe); nullptr when the driver is
// missing or too old. Initialises the CUDA runtime.
const DriverApi* driverApi();

} // namespace kwb::gpu
