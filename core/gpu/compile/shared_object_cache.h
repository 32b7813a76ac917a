#pragma once
// The multi-kernel candidate form: CUDA C++ with host launch code, compiled
// by nvcc into a shared object exposing a small C ABI, loaded with dlopen.
// Cached by hash of (source, options, arch, nvcc path) in memory and on disk.
//
// The C ABI every such candidate exports:
//   extern "C" int kwb_launch(void** buffers, const int64_t* sizes, cudaStream_t stream);
// buffers: device pointers, inputs then outputs, in spec order; sizes: the
// problem's named sizes in spec order; returns 0 on success. It must enqueue
// all its work on `stream` (work elsewhere is flagged as side-stream work).
//
// With isolation on (the default, gpu/isolation/candidate_host.h) the
// library is never loaded into this process: a candidate host child loads it
// inside its sandbox, and `host` runs its calls.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb::gpu {

class CandidateHost;

using KwbLaunchFn = int (*)(void** buffers, const std::int64_t* sizes, cudaStream_t stream);
inline constexpr const char* kLaunchSymbol = "kwb_launch";

struct LoadedLibrary {
    std::string key;
    std::string path;
    void* handle = nullptr;      // in-process only (isolation off)
    KwbLaunchFn launch = nullptr; // in-process only
    std::shared_ptr<CandidateHost> host; // isolated: the child that loaded it
    double compileMs = 0; // nvcc wall time; 0 when taken from the disk cache

    LoadedLibrary() = default;
    LoadedLibrary(const LoadedLibrary&) = delete;
    LoadedLibrary& operator=(const LoadedLibrary&) = delete;
    ~LoadedLibrary();
};

struct SharedObjectRequest {
    std::string source;
    std::string name = "candidate.cu";
    std::vector<std::string> options; // extra nvcc options
    std::string arch;                 // "sm_90"; empty = current device's
};

class SharedObjectCache {
public:
    // diskDir is where sources and .so files live (the disk cache); required:
    // dlopen needs a file.
    explicit SharedObjectCache(std::string diskDir);

    Result<std::shared_ptr<const LoadedLibrary>> get(const SharedObjectRequest& request, bool* cached = nullptr);

    static std::string defaultDiskDir(); // <cache root>/nvcc
    // nvcc to use: $KWB_NVCC, $CUDA_HOME/bin/nvcc, the build's toolkit, /usr/local/cuda/bin/nvcc, PATH.
    static std::string nvccPath();

private:
    std::string m_diskDir;
    std::map<std::string, std::shared_ptr<const LoadedLibrary>> m_memory;
};

} // namespace kwb::gpu
