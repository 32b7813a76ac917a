// The child's side of the candidate host: enter the sandbox, initialise CUDA,
// load the candidate, then serve attach / launch / prepare_timing / time /
// ping until the runner closes the channel. Everything the candidate could
// reach here is its own buffers (opened through CUDA IPC), this process and
// its scratch folder: the reference, the comparisons and the result line stay
// in the runner.
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gpu/compile/shared_object_cache.h"
#include "gpu/isolation/candidate_host.h"
#include "gpu/isolation/host_channel.h"
#include "gpu/timing/timed_run.h"
#include "rerun/protocol.h"
#include "sandbox/sandbox.h"

namespace kwb::gpu {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

bool fromHex(const std::string& s, void* out, std::size_t n)
{
    if (s.size() != 2 * n) return false;
    auto* p = static_cast<unsigned char*>(out);
    for (std::size_t i = 0; i < n; ++i) {
        const int hi = hexValue(s[2 * i]), lo = hexValue(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        p[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    return true;
}

void replyError(int fd, const char* stage, const std::string& message)
{
    (void)writeFrame(fd, {{"reply", "error"}, {"stage", stage}, {"message", message}});
}

// The persisting-L2 carve-out a candidate may have set stays out of the next
// call and out of the timed batch (issue 12: pygpubench PR #49).
void resetPersistingL2()
{
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    cudaCtxResetPersistingL2Cache();
    cudaGetLastError();
}

// The child's timer resets persisting L2 before its trials too, where the core's timer can.
template <typename C>
void setResetPersisting(C& c, bool on)
{
    if constexpr (requires { c.resetPersistingL2; }) c.resetPersistingL2 = on;
    else (void)on;
}

struct HostState {
    cudaStream_t stream = nullptr;
    KernelTimer timer;
    KwbLaunchFn launch = nullptr;
    std::vector<void*> bases; // opened IPC allocations
    std::vector<void*> buffers;
    std::vector<std::int64_t> sizes;
    std::optional<TimingWindow> window;
};

sandbox::SandboxReport enter(const std::string& scratch)
{
    sandbox::SandboxConfig config;
    config.writable = {scratch};
    const char* perf = std::getenv("KWB_SANDBOX_ALLOW_PERF");
    config.allowPerfEvents = perf && std::strcmp(perf, "1") == 0;
    return sandbox::enterSandbox(config);
}

nlohmann::json sandboxJson(const sandbox::SandboxReport& r)
{
    return {{"applied", r.applied()}, {"why_not", r.whyNot}, {"describe", r.describe()},
        {"landlock_abi", r.landlockAbi}, {"denied", r.denied}};
}

} // namespace

int serveCandidateHost(int cmdFd, int replyFd)
{
    // The host must not outlive the runner.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == 1) return 1;
    auto init = readFrame(cmdFd, 120.0);
    if (!init || init->value("cmd", "") != "init" || !(*init)["library"].is_string() || !(*init)["scratch"].is_string()) {
        replyError(replyFd, "init", "expected an init command");
        return 2;
    }
    const std::string library = (*init)["library"];
    const std::string scratch = (*init)["scratch"];
    ::setenv("CUDA_CACHE_PATH", (scratch + "/cuda-cache").c_str(), 1);
    if (::chdir(scratch.c_str()) != 0) {
        replyError(replyFd, "init", "cannot enter " + scratch);
        return 2;
    }
    // Entered after CUDA's initialisation: on the H200 (driver 580) CUDA cannot
    // start inside the sandbox (cudaErrorOperatingSystem), while the bridge's
    // worker, which enters the same sandbox after CUDA, ran every fixture. CUDA's
    // own threads then stay outside the Landlock domain (seccomp's TSYNC covers
    // them; the report counts them). KWB_SANDBOX_ORDER=early enters before CUDA
    // (every thread inside Landlock, for drivers that allow it); KWB_SANDBOX=off
    // skips the sandbox (measurement only).
    const char* mode = std::getenv("KWB_SANDBOX");
    const bool sandboxOn = !(mode && std::strcmp(mode, "off") == 0);
    const char* order = std::getenv("KWB_SANDBOX_ORDER");
    const bool late = !(order && std::strcmp(order, "early") == 0);
    sandbox::SandboxReport report;
    report.whyNot = sandboxOn ? "" : "switched off (KWB_SANDBOX=off)";
    if (sandboxOn && !late) report = enter(scratch);

    HostState st;
    int device = 0;
    cudaError_t e = cudaSetDevice(0);
    if (e == cudaSuccess) e = cudaFree(nullptr);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking);
    int l2 = 0;
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    if (e != cudaSuccess) {
        replyError(replyFd, "cuda", std::string("CUDA initialisation in the candidate host failed: ") +
                                        cudaGetErrorName(e) + " (" + report.describe() + ")");
        return 3;
    }
    if (Status s = st.timer.init(l2); !s.isOk()) {
        replyError(replyFd, "cuda", s.toString());
        return 3;
    }
    if (sandboxOn && late) report = enter(scratch);
    // Only now does the candidate's code run (its constructors, at dlopen).
    void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* err = ::dlerror();
        replyError(replyFd, "load", std::string("dlopen failed: ") + (err ? err : "unknown"));
        return 4;
    }
    st.launch = reinterpret_cast<KwbLaunchFn>(::dlsym(handle, kLaunchSymbol));
    if (!st.launch) {
        replyError(replyFd, "load", std::string("the shared object does not export extern \"C\" ") + kLaunchSymbol);
        return 4;
    }
    if (!writeFrame(replyFd, {{"reply", "ready"}, {"pid", ::getpid()}, {"sandbox", sandboxJson(report)}}).isOk())
        return 5;

    const LaunchFn call = [&st](cudaStream_t stream) -> Status {
        const int rc = st.launch(st.buffers.data(), st.sizes.data(), stream);
        if (rc == 0) return Status::ok();
        cudaGetLastError();
        return Status(ErrorCode::GpuError, std::string("kwb_launch returned ") + std::to_string(rc) + " (" +
                                               cudaGetErrorName(static_cast<cudaError_t>(rc)) + ")");
    };
    for (;;) {
        auto cmd = readFrame(cmdFd, -1.0);
        if (!cmd) return 0; // the runner closed the channel
        const std::string what = cmd->value("cmd", "");
        if (what == "quit") return 0;
        if (what == "ping") {
            (void)writeFrame(replyFd, {{"reply", "pong"}});
        } else if (what == "attach") {
            for (void* b : st.bases) cudaIpcCloseMemHandle(b);
            st.bases.clear();
            st.buffers.clear();
            st.sizes.clear();
            std::string error;
            for (const auto& b : (*cmd)["buffers"]) {
                cudaIpcMemHandle_t h{};
                if (!b["handle"].is_string() || !fromHex(b["handle"], &h, sizeof h) || !b["offset"].is_number_integer()) {
                    error = "malformed buffer handle";
                    break;
                }
                void* base = nullptr;
                if (cudaError_t oe = cudaIpcOpenMemHandle(&base, h, cudaIpcMemLazyEnablePeerAccess); oe != cudaSuccess) {
                    error = std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorName(oe);
                    break;
                }
                st.bases.push_back(base);
                st.buffers.push_back(static_cast<char*>(base) + b["offset"].get<std::int64_t>());
            }
            for (const auto& s : (*cmd)["sizes"]) st.sizes.push_back(s.get<std::int64_t>());
            if (!error.empty()) replyError(replyFd, "attach", error);
            else (void)writeFrame(replyFd, {{"reply", "attached"}});
        } else if (what == "launch") {
            resetPersistingL2();
            const int rc = st.launch(st.buffers.data(), st.sizes.data(), st.stream);
            if (rc != 0) cudaGetLastError();
            // Device-wide, as the in-process path: side streams' work is part of the call.
            const cudaError_t sync = cudaDeviceSynchronize();
            std::string error;
            if (rc != 0) error = cudaGetErrorName(static_cast<cudaError_t>(rc));
            else if (sync != cudaSuccess) error = cudaGetErrorName(sync);
            (void)writeFrame(replyFd, {{"reply", "launched"}, {"rc", rc}, {"error", error}, {"sticky", sync != cudaSuccess}});
        } else if (what == "prepare_timing") {
            const nlohmann::json& c = (*cmd)["config"];
            TimingConfig config;
            config.warmup = c.value("warmup", 10);
            config.trials = c.value("trials", 100);
            config.l2Flush = c.value("l2_flush", true);
            config.maxSeconds = std::max(0.0, c.value("max_seconds", 0.0));
            config.minTrials = c.value("min_trials", 10);
            config.flushMode = c.value("flush_mode", std::string("read")) == "write" ? FlushMode::Write : FlushMode::Read;
            setResetPersisting(config, c.value("reset_persisting_l2", true));
            st.window.reset();
            st.window.emplace(st.timer, st.stream, config, c.value("cupti", true));
            (void)writeFrame(replyFd, {{"reply", "prepared"}});
        } else if (what == "time") {
            if (!st.window) {
                replyError(replyFd, "time", "time before prepare_timing");
                continue;
            }
            resetPersistingL2();
            RerunResult r;
            r.id = "candidate-host";
            r.status = RerunStatus::Ok;
            const Status s = st.window->time(call, TaskContext{}, "timing", r.candidateTiming, r.candidateCupti);
            const cudaError_t sync = cudaDeviceSynchronize();
            std::string error = s.isOk() ? std::string() : s.toString();
            if (error.empty() && sync != cudaSuccess) error = cudaGetErrorName(sync);
            (void)writeFrame(replyFd, {{"reply", "timed"}, {"rc", error.empty() ? 0 : 1}, {"error", error},
                                          {"result", rerunResultToJson(r)}});
            st.window.reset();
        } else {
            replyError(replyFd, "command", "unknown command '" + what + "'");
        }
    }
}

} // namespace kwb::gpu
