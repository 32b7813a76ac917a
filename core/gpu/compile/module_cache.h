#pragma once
// NVRTC compilation of candidate CUDA C++ into loaded driver-API modules,
// cached by hash of (source, options, target arch, NVRTC version) in memory
// and as cubin files on disk.
//
// Thread: one executor thread owns the cache and the modules it loaded (they
// belong to the current CUDA context). Errors come back as Status; a
// compilation error carries NVRTC's log.
#include <cuda.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb::gpu {

struct LoadedModule {
    std::string key;                              // 32 hex digits
    CUmodule module = nullptr;
    std::map<std::string, CUfunction> functions;  // entry name as given -> function
    std::map<std::string, std::string> loweredNames;
    double compileMs = 0;   // NVRTC time of the compile that produced the cubin (0 when loaded from disk)
    double loadMs = 0;      // cuModuleLoadData time
    std::string log;        // NVRTC log (warnings)

    LoadedModule() = default;
    LoadedModule(const LoadedModule&) = delete;
    LoadedModule& operator=(const LoadedModule&) = delete;
    ~LoadedModule();
};

enum class CacheOutcome { Compiled, DiskHit, MemoryHit };
const char* cacheOutcomeName(CacheOutcome o);

struct CompileRequest {
    std::string source;
    std::string name = "candidate.cu";          // shown in compiler messages
    std::vector<std::string> entryPoints;      // kernel names or name expressions ("k<float>")
    std::vector<std::string> options;          // extra NVRTC options
    std::string arch;                          // "sm_90"; empty = current device's
};

class ModuleCache {
public:
    // diskDir empty: memory only.
    explicit ModuleCache(std::string diskDir);

    // The module for the request, compiling it only if neither cache has it.
    Result<std::shared_ptr<const LoadedModule>> get(const CompileRequest& request, CacheOutcome* outcome = nullptr);

    // Cache key of a request (also names the disk file).
    static std::string keyOf(const CompileRequest& request, const std::string& arch);
    static std::string defaultDiskDir(); // <cache root>/nvrtc

    void clearMemory() { m_memory.clear(); }
    const std::string& diskDir() const { return m_diskDir; }

private:
    std::string m_diskDir;
    std::map<std::string, std::shared_ptr<const LoadedModule>> m_memory;
};

// Arch of the current device ("sm_90").
Result<std::string> currentDeviceArch();

} // namespace kwb::gpu
