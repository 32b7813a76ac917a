#include "gpu/compile/shared_object_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu/compile/module_cache.h"
#include "gpu/compile/source_hash.h"
#include "gpu/isolation/candidate_host.h"

extern char** environ;

namespace kwb::gpu {

namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs argv[0] with its output into logPath; returns the exit status or -1.
int runProcess(const std::vector<std::string>& args, const std::string& logPath)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

LoadedLibrary::~LoadedLibrary()
{
    if (handle) dlclose(handle);
}

SharedObjectCache::SharedObjectCache(std::string diskDir) : m_diskDir(std::move(diskDir)) {}

std::string SharedObjectCache::defaultDiskDir()
{
    return defaultCacheRoot() + "/nvcc";
}

std::string SharedObjectCache::nvccPath()
{
    std::error_code ec;
    if (const char* n = std::getenv("KWB_NVCC"); n && *n) return n;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
        std::string p = std::string(home) + "/bin/nvcc";
        if (fs::exists(p, ec)) return p;
    }
    if (fs::exists(KWB_NVCC_EXECUTABLE, ec)) return KWB_NVCC_EXECUTABLE;
    if (fs::exists("/usr/local/cuda/bin/nvcc", ec)) return "/usr/local/cuda/bin/nvcc";
    return "nvcc";
}

Result<std::shared_ptr<const LoadedLibrary>> SharedObjectCache::get(const SharedObjectRequest& request, bool* cached)
{
    std::string arch = request.arch;
    if (arch.empty()) {
        KWB_ASSIGN_OR_RETURN(arch, currentDeviceArch());
    }
    const std::string nvcc = nvccPath();
    SourceHash h;
    h.add("nvcc-so").add(nvcc).add(arch).add(request.source);
    for (const auto& o : request.options) h.add(o);
    const std::string key = h.hex();
    // One entry per mode: an isolated library (a host) is not a loaded one.
    const std::string memoryKey = key + (isolationEnabled() ? ":host" : ":dlopen");
    if (auto it = m_memory.find(memoryKey); it != m_memory.end()) {
        if (cached) *cached = true;
        return it->second;
    }

    std::error_code ec;
    fs::create_directories(m_diskDir, ec);
    if (ec) return Status(ErrorCode::IoError, "cannot create " + m_diskDir + ": " + ec.message());
    const fs::path so = fs::path(m_diskDir) / ("lib" + key + ".so");
    auto lib = std::make_shared<LoadedLibrary>();
    lib->key = key;
    lib->path = so.string();
    bool onDisk = fs::exists(so, ec);
    if (!onDisk) {
        const fs::path src = fs::path(m_diskDir) / (key + ".cu");
        {
            std::ofstream out(src, std::ios::binary | std::ios::trunc);
            out << request.source;
            if (!out) return Status(ErrorCode::IoError, "cannot write " + src.string());
        }
        const fs::path tmpSo = fs::path(m_diskDir) / ("lib" + key + ".so.tmp" + std::to_string(::getpid()));
        const fs::path log = fs::path(m_diskDir) / (key + ".log");
        // Shared cudart so the candidate and kwb_gpu share one runtime and its streams.
        std::vector<std::string> args{nvcc, "-shared", "-Xcompiler", "-fPIC", "--cudart", "shared", "-O3",
            "-gencode", "arch=compute_" + arch.substr(3) + ",code=" + arch, "-o", tmpSo.string(), src.string()};
        for (const auto& o : request.options) args.insert(args.end() - 3, o);
        auto t0 = std::chrono::steady_clock::now();
        int rc = runProcess(args, log.string());
        lib->compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (rc != 0) {
            SourcePosition where;
            where.file = request.name;
            std::string text = readAll(log);
            if (rc < 0) text = "could not run " + nvcc + (text.empty() ? "" : ": " + text);
            return Status(ErrorCode::InvalidArgument, "nvcc compilation failed: " + text, where);
        }
        fs::rename(tmpSo, so, ec);
        if (ec) return Status(ErrorCode::IoError, "cannot rename " + tmpSo.string() + ": " + ec.message());
    }
    if (cached) *cached = onDisk;
    if (isolationEnabled()) {
        // The candidate's code (its constructors included) runs only in the host.
        auto host = CandidateHost::start(so.string(), request.name);
        if (!host) {
            if (host.status().code() != ErrorCode::InvalidArgument) return host.status();
            SourcePosition where;
            where.file = request.name;
            return Status(ErrorCode::InvalidArgument, host.status().message(), where);
        }
        lib->host = *host;
        std::shared_ptr<const LoadedLibrary> result = lib;
        m_memory[memoryKey] = result;
        return result;
    }
    lib->handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        const char* err = dlerror();
        return Status(ErrorCode::GpuError, std::string("dlopen failed: ") + (err ? err : "unknown"));
    }
    lib->launch = reinterpret_cast<KwbLaunchFn>(dlsym(lib->handle, kLaunchSymbol));
    if (!lib->launch) {
        SourcePosition where;
        where.file = request.name;
        return Status(ErrorCode::InvalidArgument,
            std::string("the shared object does not export extern \"C\" ") + kLaunchSymbol, where);
    }
    std::shared_ptr<const LoadedLibrary> result = lib;
    m_memory[memoryKey] = result;
    return result;
}

} // namespace kwb::gpu
