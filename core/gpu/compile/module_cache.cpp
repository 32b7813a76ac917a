#include "gpu/compile/module_cache.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "gpu/device/driver_api.h"
#include "gpu/device/gpu_check.h"
#include "gpu/compile/source_hash.h"

namespace kwb::gpu {

namespace fs = std::filesystem;

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string nvrtcVersionText()
{
    int major = 0;
    int minor = 0;
    nvrtcVersion(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

// Header search path for cuda_fp16.h and friends when the toolkit is installed.
std::vector<std::string> includeOptions()
{
    std::vector<std::string> dirs;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/include");
    std::string built = KWB_CUDA_INCLUDE_DIR;
    std::stringstream ss(built);
    for (std::string d; std::getline(ss, d, ';');)
        if (!d.empty()) dirs.push_back(d);
    dirs.push_back("/usr/local/cuda/include");
    std::vector<std::string> out;
    for (const auto& d : dirs) {
        std::error_code ec;
        if (fs::exists(d + "/cuda_fp16.h", ec)) {
            out.push_back("-I" + d);
            break;
        }
    }
    return out;
}

bool readFile(const fs::path& p, std::string& out)
{
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return true;
}

// Write to a temporary name and rename, so a concurrent reader never sees half a file.
void writeFileAtomically(const fs::path& p, const std::string& data)
{
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    fs::path tmp = p;
    tmp += ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return;
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        if (!out) return;
    }
    fs::rename(tmp, p, ec);
    if (ec) fs::remove(tmp, ec);
}

// Lowered names are stored beside the cubin, one "name<TAB>lowered" per line.
std::string encodeNames(const std::map<std::string, std::string>& names)
{
    std::string out;
    for (const auto& [k, v] : names) out += k + '\t' + v + '\n';
    return out;
}

std::map<std::string, std::string> decodeNames(const std::string& text)
{
    std::map<std::string, std::string> out;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) {
        auto tab = line.find('\t');
        if (tab != std::string::npos) out[line.substr(0, tab)] = line.substr(tab + 1);
    }
    return out;
}

struct NvrtcProgram {
    nvrtcProgram prog = nullptr;
    ~NvrtcProgram()
    {
        if (prog) nvrtcDestroyProgram(&prog);
    }
};

struct CompileOutput {
    std::string cubin;
    std::map<std::string, std::string> lowered;
    std::string log;
    double ms = 0;
};

Result<CompileOutput> compileWithNvrtc(const CompileRequest& req, const std::string& arch)
{
    auto t0 = std::chrono::steady_clock::now();
    NvrtcProgram p;
    KWB_NVRTC_CHECK(nvrtcCreateProgram(&p.prog, req.source.c_str(), req.name.c_str(), 0, nullptr, nullptr));
    for (const auto& e : req.entryPoints) KWB_NVRTC_CHECK(nvrtcAddNameExpression(p.prog, e.c_str()));
    std::vector<std::string> opts{"--gpu-architecture=" + arch, "-std=c++17"};
    for (auto& i : includeOptions()) opts.push_back(i);
    for (const auto& o : req.options) opts.push_back(o);
    std::vector<const char*> argv;
    for (const auto& o : opts) argv.push_back(o.c_str());
    nvrtcResult rc = nvrtcCompileProgram(p.prog, static_cast<int>(argv.size()), argv.data());
    CompileOutput out;
    std::size_t logSize = 0;
    if (nvrtcGetProgramLogSize(p.prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
        out.log.resize(logSize);
        nvrtcGetProgramLog(p.prog, out.log.data());
        while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
    }
    if (rc != NVRTC_SUCCESS) {
        SourcePosition where;
        where.file = req.name;
        return Status(ErrorCode::InvalidArgument,
            std::string("NVRTC compilation failed (") + nvrtcGetErrorString(rc) + "): " + out.log, where);
    }
    for (const auto& e : req.entryPoints) {
        const char* lowered = nullptr;
        KWB_NVRTC_CHECK(nvrtcGetLoweredName(p.prog, e.c_str(), &lowered));
        out.lowered[e] = lowered;
    }
    std::size_t size = 0;
    KWB_NVRTC_CHECK(nvrtcGetCUBINSize(p.prog, &size));
    out.cubin.resize(size);
    KWB_NVRTC_CHECK(nvrtcGetCUBIN(p.prog, out.cubin.data()));
    out.ms = msSince(t0);
    return out;
}

} // namespace

LoadedModule::~LoadedModule()
{
    if (module)
        if (const DriverApi* api = driverApi()) api->moduleUnload(module);
}

ModuleCache::ModuleCache(std::string diskDir) : m_diskDir(std::move(diskDir)) {}

std::string ModuleCache::defaultDiskDir()
{
    return defaultCacheRoot() + "/nvrtc";
}

std::string ModuleCache::keyOf(const CompileRequest& request, const std::string& arch)
{
    SourceHash h;
    h.add("nvrtc").add(nvrtcVersionText()).add(arch).add(request.source);
    for (const auto& e : request.entryPoints) h.add(e);
    h.add("--");
    for (const auto& o : request.options) h.add(o);
    return h.hex();
}

Result<std::string> currentDeviceArch()
{
    int dev = 0;
    KWB_CUDA_CHECK(cudaGetDevice(&dev));
    int major = 0;
    int minor = 0;
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    return "sm_" + std::to_string(major) + std::to_string(minor);
}

const char* cacheOutcomeName(CacheOutcome o)
{
    switch (o) {
    case CacheOutcome::Compiled: return "compiled";
    case CacheOutcome::DiskHit: return "disk";
    case CacheOutcome::MemoryHit: return "memory";
    }
    return "?";
}

Result<std::shared_ptr<const LoadedModule>> ModuleCache::get(const CompileRequest& request, CacheOutcome* outcome)
{
    std::string arch = request.arch;
    if (arch.empty()) {
        KWB_ASSIGN_OR_RETURN(arch, currentDeviceArch());
    }
    const std::string key = keyOf(request, arch);
    if (auto it = m_memory.find(key); it != m_memory.end()) {
        if (outcome) *outcome = CacheOutcome::MemoryHit;
        return it->second;
    }

    std::string cubin;
    std::map<std::string, std::string> lowered;
    auto mod = std::make_shared<LoadedModule>();
    mod->key = key;
    bool fromDisk = false;
    fs::path cubinPath;
    fs::path namesPath;
    if (!m_diskDir.empty()) {
        cubinPath = fs::path(m_diskDir) / (key + ".cubin");
        namesPath = fs::path(m_diskDir) / (key + ".names");
        std::string names;
        if (readFile(cubinPath, cubin) && readFile(namesPath, names) && !cubin.empty()) {
            lowered = decodeNames(names);
            fromDisk = lowered.size() == request.entryPoints.size();
        }
    }
    if (!fromDisk) {
        KWB_ASSIGN_OR_RETURN(CompileOutput c, compileWithNvrtc(request, arch));
        cubin = std::move(c.cubin);
        lowered = std::move(c.lowered);
        mod->compileMs = c.ms;
        mod->log = std::move(c.log);
        if (!m_diskDir.empty()) {
            writeFileAtomically(cubinPath, cubin);
            writeFileAtomically(namesPath, encodeNames(lowered));
        }
    }
    if (outcome) *outcome = fromDisk ? CacheOutcome::DiskHit : CacheOutcome::Compiled;
    const DriverApi* api = driverApi();
    if (!api) return Status(ErrorCode::GpuError, "the CUDA driver API is not available");
    auto t0 = std::chrono::steady_clock::now();
    KWB_CU_CHECK(api->moduleLoadData(&mod->module, cubin.data()));
    mod->loadMs = msSince(t0);
    for (const auto& e : request.entryPoints) {
        CUfunction f = nullptr;
        KWB_CU_CHECK(api->moduleGetFunction(&f, mod->module, lowered[e].c_str()));
        mod->functions[e] = f;
    }
    mod->loweredNames = std::move(lowered);
    std::shared_ptr<const LoadedModule> result = mod;
    m_memory[key] = result;
    return result;
}

} // namespace kwb::gpu
