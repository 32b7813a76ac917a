#include "gpu/device/driver_api.h"

#include <cuda_runtime_api.h>

namespace kwb::gpu {

namespace {

template <typename Fn>
bool resolve(const char* name, Fn& fn)
{
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !p)
        return false;
    fn = reinterpret_cast<Fn>(p);
    return true;
}

DriverApi* load()
{
    static DriverApi api;
    bool ok = resolve("cuGetErrorName", api.getErrorName) && resolve("cuGetErrorString", api.getErrorString) &&
              resolve("cuModuleLoadData", api.moduleLoadData) && resolve("cuModuleUnload", api.moduleUnload) &&
              resolve("cuModuleGetFunction", api.moduleGetFunction) && resolve("cuLaunchKernel", api.launchKernel) &&
              resolve("cuCtxGetCurrent", api.ctxGetCurrent) && resolve("cuFuncSetAttribute", api.funcSetAttribute);
    if (!ok) cudaGetLastError(); // lookups on a driverless machine leave a non-sticky error
    return ok ? &api : nullptr;
}

} // namespace

const DriverApi* driverApi()
{
    static const DriverApi* api = load();
    return api;
}

} // namespace kwb::gpu
