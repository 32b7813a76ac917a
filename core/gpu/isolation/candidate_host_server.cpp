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
#include "gpu/checks/input_generator.h"
#include "rerun/protocol.h"
#include "rerun/trial_plan.h"
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

// Opens one runner allocation ({handle, offset}); false with `error` set.
bool openBuffer(const nlohmann::json& b, void*& base, void*& ptr, std::string& error)
{
    cudaIpcMemHandle_t h{};
    if (!b.is_object() || !b["handle"].is_string() || !fromHex(b["handle"], &h, sizeof h) ||
        !b["offset"].is_number_integer()) {
        error = "malformed buffer handle";
        return false;
    }
    if (cudaError_t oe = cudaIpcOpenMemHandle(&base, h, cudaIpcMemLazyEnablePeerAccess); oe != cudaSuccess) {
        cudaGetLastError();
        error = std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorName(oe);
        return false;
    }
    ptr = static_cast<char*>(base) + b["offset"].get<std::int64_t>();
    return true;
}

// The fresh-input plan of one timing request (candidate_host.h HostFreshInputs).
struct FreshState {
    std::vector<HostFreshInputs::Input> inputs;
    std::uint64_t seedBase = 0;
    std::uint64_t trialBase = 0;
    bool fixed = false;
    int every = 10;
    std::vector<int> outputs;
    std::vector<std::int64_t> outputBytes;
    std::vector<void*> bases; // the snapshots' opened allocations
    std::vector<std::vector<void*>> snapshots;
    std::vector<int> kept;
    std::uint64_t counter = 0;

    void close()
    {
        for (void* b : bases) cudaIpcCloseMemHandle(b);
        bases.clear();
        snapshots.clear();
    }
};

// Reads the runner's plan; an error names what is wrong.
std::string readFresh(const nlohmann::json& j, std::size_t buffers, FreshState& f)
{
    try {
        f.seedBase = j.at("seed_base").get<std::uint64_t>();
        f.trialBase = j.at("trial_base").get<std::uint64_t>();
        f.fixed = j.at("fixed").get<bool>();
        f.every = std::max(1, j.at("every").get<int>());
        for (const auto& in : j.at("inputs")) {
            HostFreshInputs::Input x;
            x.buffer = in.at("buffer").get<int>();
            x.elements = in.at("elements").get<std::int64_t>();
            const int type = in.at("type").get<int>();
            const int dist = in.at("distribution").get<int>();
            if (x.buffer < 0 || static_cast<std::size_t>(x.buffer) >= buffers || x.elements < 0 || type < 0 ||
                type > static_cast<int>(ElemType::F64) || dist < 0 || dist > static_cast<int>(GenDistribution::Pareto))
                return "fresh inputs: an input out of range";
            x.type = static_cast<ElemType>(type);
            x.tensorIndex = in.at("tensor").get<std::uint64_t>();
            x.params.distribution = static_cast<GenDistribution>(dist);
            x.params.low = in.at("low").get<double>();
            x.params.high = in.at("high").get<double>();
            x.params.mean = in.at("mean").get<double>();
            x.params.stddev = in.at("stddev").get<double>();
            x.params.value = in.at("value").get<double>();
            x.params.scale = in.at("scale").get<double>();
            x.params.alpha = in.at("alpha").get<double>();
            f.inputs.push_back(x);
        }
        f.outputs = j.at("outputs").get<std::vector<int>>();
        f.outputBytes = j.at("output_bytes").get<std::vector<std::int64_t>>();
        if (f.outputs.size() != f.outputBytes.size()) return "fresh inputs: outputs and their sizes differ in count";
        for (int o : f.outputs)
            if (o < 0 || static_cast<std::size_t>(o) >= buffers) return "fresh inputs: an output out of range";
        for (const auto& slot : j.at("snapshots")) {
            std::vector<void*> ptrs;
            for (const auto& b : slot) {
                void* base = nullptr;
                void* ptr = nullptr;
                std::string error;
                if (!openBuffer(b, base, ptr, error)) return "fresh inputs: " + error;
                f.bases.push_back(base);
                ptrs.push_back(ptr);
            }
            if (ptrs.size() != f.outputs.size()) return "fresh inputs: a snapshot slot without every output";
            f.snapshots.push_back(std::move(ptrs));
        }
    } catch (const nlohmann::json::exception& e) {
        return std::string("fresh inputs: ") + e.what();
    }
    return {};
}

struct HostState {
    cudaStream_t stream = nullptr;
    KernelTimer timer;
    KwbLaunchFn launch = nullptr;
    std::vector<void*> bases; // opened IPC allocations
    std::vector<void*> buffers;
    std::vector<std::int64_t> sizes;
    std::optional<TimingWindow> window;
    std::optional<FreshState> fresh;
    TrialHooks hooks;
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
    // The timer loads its own kernels; the generators that refresh inputs in the timed
    // loop are loaded here, not lazily behind its first batch gate (gpu/checks/input_generator.h).
    Status loaded = st.timer.init(l2);
    if (loaded.isOk()) loaded = loadGenerators(st.stream);
    if (!loaded.isOk()) {
        replyError(replyFd, "cuda", loaded.toString());
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
                void* base = nullptr;
                void* ptr = nullptr;
                if (!openBuffer(b, base, ptr, error)) break;
                st.bases.push_back(base);
                st.buffers.push_back(ptr);
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
            if (st.fresh) st.fresh->close();
            st.fresh.reset();
            if (c.contains("fresh")) {
                st.fresh.emplace();
                if (const std::string why = readFresh(c["fresh"], st.buffers.size(), *st.fresh); !why.empty()) {
                    st.fresh->close();
                    st.fresh.reset();
                    replyError(replyFd, "prepare_timing", why);
                    continue;
                }
                FreshState& f = *st.fresh;
                // The same contents the runner's timedInputsStep draws for each timed trial.
                st.hooks.plan = [&f](int n) {
                    f.kept = checkedTrials(n, f.every, f.snapshots.size());
                    return Status::ok();
                };
                st.hooks.refresh = [&st, &f](cudaStream_t s) -> Status {
                    const std::uint64_t t = f.fixed ? 0 : f.trialBase + f.counter;
                    ++f.counter;
                    for (const auto& in : f.inputs) {
                        GenParams g = in.params;
                        g.seed = deriveSeed(f.seedBase, t, in.tensorIndex);
                        KWB_RETURN_IF_ERROR(generateTensor(st.buffers[static_cast<std::size_t>(in.buffer)], in.elements,
                            in.type, g, s));
                    }
                    return Status::ok();
                };
                st.hooks.afterBatch = [&st, &f](int last) -> Status {
                    auto it = std::find(f.kept.begin(), f.kept.end(), last);
                    if (it == f.kept.end()) return Status::ok();
                    const auto& slot = f.snapshots[static_cast<std::size_t>(it - f.kept.begin())];
                    for (std::size_t o = 0; o < f.outputs.size(); ++o)
                        if (cudaMemcpyAsync(slot[o], st.buffers[static_cast<std::size_t>(f.outputs[o])],
                                static_cast<std::size_t>(f.outputBytes[o]), cudaMemcpyDeviceToDevice, st.stream) != cudaSuccess)
                            return Status(ErrorCode::GpuError, "setting a checked trial's output aside failed");
                    return Status::ok();
                };
            }
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
            const Status s = st.window->time(call, TaskContext{}, "timing", r.candidateTiming, r.candidateCupti,
                st.fresh ? &st.hooks : nullptr);
            const cudaError_t sync = cudaDeviceSynchronize();
            std::string error = s.isOk() ? std::string() : s.toString();
            if (error.empty() && sync != cudaSuccess) error = cudaGetErrorName(sync);
            nlohmann::json reply{{"reply", "timed"}, {"rc", error.empty() ? 0 : 1}, {"error", error},
                {"result", rerunResultToJson(r)}};
            if (st.fresh) {
                reply["kept"] = st.fresh->kept;
                st.fresh->close();
                st.fresh.reset();
                st.hooks = TrialHooks{};
            }
            (void)writeFrame(replyFd, reply);
            st.window.reset();
        } else {
            replyError(replyFd, "command", "unknown command '" + what + "'");
        }
    }
}

} // namespace kwb::gpu
