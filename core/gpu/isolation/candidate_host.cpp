// The runner's side of the candidate host (see candidate_host.h).
#include "gpu/isolation/candidate_host.h"

#include <cuda.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "gpu/compile/module_cache.h"
#include "gpu/device/gpu_check.h"
#include "gpu/isolation/host_channel.h"
#include "rerun/protocol.h"
#include "rerun/trial_plan.h"

extern char** environ;

namespace kwb::gpu {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string hex(const void* data, std::size_t n)
{
    static const char* digits = "0123456789abcdef";
    std::string s;
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

int highFd(int fd)
{
    const int h = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return h;
}

// cuMemGetAddressRange through the runtime (kwb_gpu does not link libcuda).
Result<std::pair<CUdeviceptr, std::size_t>> allocationOf(void* ptr)
{
    using Fn = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
    static Fn fn = [] {
        void* f = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            f = nullptr;
        return reinterpret_cast<Fn>(f);
    }();
    if (!fn) return Status(ErrorCode::GpuError, "cuMemGetAddressRange is not available");
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (fn(&base, &size, reinterpret_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS)
        return Status(ErrorCode::GpuError, "cuMemGetAddressRange failed for a candidate buffer");
    return std::make_pair(base, size);
}

// A device allocation of this process as the child opens it: IPC handle and offset.
Result<nlohmann::json> ipcBuffer(void* p, std::string* handleHex = nullptr)
{
    cudaIpcMemHandle_t h{};
    KWB_CUDA_CHECK(cudaIpcGetMemHandle(&h, p));
    KWB_ASSIGN_OR_RETURN(auto range, allocationOf(p));
    const auto offset = static_cast<std::int64_t>(reinterpret_cast<CUdeviceptr>(p) - range.first);
    const std::string hx = hex(&h, sizeof h);
    if (handleHex) *handleHex = hx;
    return nlohmann::json{{"handle", hx}, {"offset", offset}};
}

// The fresh-input plan as the child reads it (candidate_host_server.cpp).
Result<nlohmann::json> freshJson(const HostFreshInputs& f)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& in : f.inputs) {
        const GenParams& g = in.params;
        inputs.push_back({{"buffer", in.buffer}, {"elements", in.elements}, {"type", static_cast<int>(in.type)},
            {"tensor", in.tensorIndex}, {"distribution", static_cast<int>(g.distribution)}, {"low", g.low},
            {"high", g.high}, {"mean", g.mean}, {"stddev", g.stddev}, {"value", g.value}, {"scale", g.scale},
            {"alpha", g.alpha}});
    }
    nlohmann::json slots = nlohmann::json::array();
    for (const auto& slot : f.snapshots) {
        nlohmann::json outs = nlohmann::json::array();
        for (void* p : slot) {
            KWB_ASSIGN_OR_RETURN(nlohmann::json b, ipcBuffer(p));
            outs.push_back(std::move(b));
        }
        slots.push_back(std::move(outs));
    }
    return nlohmann::json{{"inputs", inputs}, {"seed_base", f.seedBase}, {"fixed", f.fixed},
        {"trial_base", f.trialBase}, {"every", f.every}, {"outputs", f.outputBuffers}, {"output_bytes", f.outputBytes},
        {"snapshots", slots}};
}

// Members of a reply: exactly `names` (and "reply").
Status checkMembers(const nlohmann::json& j, std::initializer_list<const char*> names)
{
    std::set<std::string> allowed{"reply"};
    for (const char* n : names) allowed.insert(n);
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!allowed.count(it.key())) return Status(ErrorCode::SchemaError, "unexpected member '" + it.key() + "'");
    for (const char* n : names)
        if (!j.contains(n)) return Status(ErrorCode::SchemaError, std::string("missing member '") + n + "'");
    return Status::ok();
}

bool finitePositive(double v)
{
    return std::isfinite(v) && v >= 0.0;
}

} // namespace

std::string implausibleHostTiming(const TimingStats& t, int trials, double batchWallMs, int minTrials)
{
    const int least = minTrials < 0 ? trials : std::min(minTrials, trials);
    if (t.trials > trials || t.trials < least)
        return "the host reported " + std::to_string(t.trials) + " timed trials, " +
               (least == trials ? std::to_string(trials) : std::to_string(least) + " to " + std::to_string(trials)) +
               " were asked for";
    for (double v : {t.medianMs, t.q1Ms, t.q3Ms, t.iqrMs, t.meanMs, t.stdMs, t.minMs, t.maxMs, t.cv})
        if (!finitePositive(v)) return "the host reported a negative or non-finite time";
    const double eps = 1e-9 + 1e-6 * t.maxMs;
    if (!(t.minMs <= t.q1Ms + eps && t.q1Ms <= t.medianMs + eps && t.medianMs <= t.q3Ms + eps &&
            t.q3Ms <= t.maxMs + eps && t.minMs <= t.meanMs + eps && t.meanMs <= t.maxMs + eps &&
            std::fabs(t.iqrMs - (t.q3Ms - t.q1Ms)) <= eps))
        return "the host's statistics are inconsistent (min <= q1 <= median <= q3 <= max, iqr = q3 - q1)";
    // Every timed trial lies inside the batch the runner's clock brackets (as many as it reported:
    // under a time budget fewer than were asked for).
    if (t.meanMs * t.trials > batchWallMs * 1.001 + 0.01)
        return "the host reported " + std::to_string(t.meanMs * t.trials) + " ms of timed trials inside a batch of " +
               std::to_string(batchWallMs) + " ms (runner's wall clock)";
    return {};
}

std::string implausibleKeptTrials(const std::vector<int>& kept, int reportedTrials, int every, std::size_t slots)
{
    if (kept != checkedTrials(reportedTrials, every, slots))
        return "the host set aside " + std::to_string(kept.size()) + " trials, not the checked trials of the " +
               std::to_string(reportedTrials) + " it reported";
    return {};
}

namespace {

std::atomic<int> g_hostSerial{0};

// TimingConfig::resetPersistingL2 (issue 12, the checks' timer) where the core has it.
template <typename C>
bool resetPersistingOf(const C& c)
{
    if constexpr (requires { c.resetPersistingL2; }) return c.resetPersistingL2;
    else return true;
}

// Live hosts, most recently started first. Each holds a CUDA context (hundreds
// of MB of device memory), so only a few stay up; one stopped here starts
// again on its next call.
constexpr std::size_t kMaxLiveHosts = 2;
std::vector<CandidateHost*>& liveHosts()
{
    static std::vector<CandidateHost*> hosts;
    return hosts;
}

} // namespace

bool isolationEnabled()
{
    // On unless KWB_ISOLATION=off (measurement, or a machine whose driver cannot run
    // CUDA in the host): the H200 runs of 2026-12-02 gave every fixture the same verdict
    // isolated as in-process, and the tampering fixtures failed to cheat only isolated
    // (docs/security-native.md).
    const char* v = std::getenv("KWB_ISOLATION");
    return !(v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0));
}

std::string candidateHostPath()
{
    if (const char* e = std::getenv("KWB_CANDIDATE_HOST"); e && *e) return e;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& p : {self.parent_path() / "kwb-candidate-host",
                 self.parent_path() / "../../app/runner/kwb-candidate-host"})
            if (fs::exists(p, ec)) return p.lexically_normal().string();
    }
    return KWB_CANDIDATE_HOST_BUILD_PATH;
}

CandidateHost::~CandidateHost()
{
    stop();
    auto& live = liveHosts();
    live.erase(std::remove(live.begin(), live.end(), this), live.end());
    std::error_code ec;
    if (!m_scratch.empty()) fs::remove_all(m_scratch, ec);
}

Result<std::shared_ptr<CandidateHost>> CandidateHost::start(const std::string& libraryPath, const std::string& name)
{
    std::shared_ptr<CandidateHost> h(new CandidateHost());
    h->m_libraryPath = libraryPath;
    h->m_name = name;
    const fs::path scratch = fs::temp_directory_path() /
                             ("kwb-candidate-" + std::to_string(::getpid()) + "-" + std::to_string(g_hostSerial++));
    std::error_code ec;
    fs::create_directories(scratch, ec);
    if (ec) return Status(ErrorCode::IoError, "cannot create " + scratch.string() + ": " + ec.message());
    h->m_scratch = scratch.string();
    KWB_RETURN_IF_ERROR(h->spawn());
    return h;
}

Status CandidateHost::spawn()
{
    int cmd[2], reply[2], log[2];
    if (::pipe2(cmd, O_CLOEXEC) != 0 || ::pipe2(reply, O_CLOEXEC) != 0 || ::pipe2(log, O_CLOEXEC) != 0)
        return Status(ErrorCode::IoError, std::string("pipe: ") + std::strerror(errno));
    for (int* p : {cmd, reply, log}) {
        p[0] = highFd(p[0]);
        p[1] = highFd(p[1]);
    }
    const std::string path = candidateHostPath();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, log[1], 1);
    posix_spawn_file_actions_adddup2(&fa, log[1], 2);
    posix_spawn_file_actions_adddup2(&fa, cmd[0], 3);
    posix_spawn_file_actions_adddup2(&fa, reply[1], 4);
    // Nothing else of the runner's crosses over: not its protocol output, not its caches.
    posix_spawn_file_actions_addclosefrom_np(&fa, 5);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<std::string> args{path, "--serve", "3", "4"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, path.c_str(), &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(cmd[0]);
    ::close(reply[1]);
    ::close(log[1]);
    if (rc != 0) {
        ::close(cmd[1]);
        ::close(reply[0]);
        ::close(log[0]);
        return Status(ErrorCode::Internal, "cannot start the candidate host " + path + ": " + std::strerror(rc));
    }
    m_pid = pid;
    m_cmdFd = cmd[1];
    m_replyFd = reply[0];
    ::signal(SIGPIPE, SIG_IGN); // a dead host must be an error return, not the runner's death
    const int logFd = log[0];
    const std::string tag = "[candidate " + m_name + "] ";
    m_pgid = pid;
    m_logStop = std::make_shared<std::atomic<bool>>(false);
    // Copies the child's output to the runner's log until end of file, or
    // until stop() asks and nothing more is waiting (a grandchild that left the
    // process group may hold the pipe open forever).
    m_logThread = std::thread([logFd, tag, stopFlag = m_logStop] {
        std::string line;
        char buf[4096];
        for (;;) {
            pollfd p{logFd, POLLIN, 0};
            const int ready = ::poll(&p, 1, 100);
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) {
                if (stopFlag->load()) break;
                continue;
            }
            const ssize_t n = ::read(logFd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            for (ssize_t i = 0; i < n; ++i) {
                if (buf[i] == '\n' || line.size() >= 2000) {
                    std::fprintf(stderr, "%s%s\n", tag.c_str(), line.c_str());
                    line.clear();
                    if (buf[i] == '\n') continue;
                }
                line += buf[i];
            }
        }
        if (!line.empty()) std::fprintf(stderr, "%s%s\n", tag.c_str(), line.c_str());
        ::close(logFd);
    });
    if (m_crashed) ++m_report.restarts;
    m_crashed = false;
    auto& live = liveHosts();
    live.erase(std::remove(live.begin(), live.end(), this), live.end());
    live.insert(live.begin(), this);
    while (live.size() > kMaxLiveHosts) {
        live.back()->stop();
        live.pop_back();
    }
    m_attachedHandles.clear();
    m_attachedSizes.clear();

    nlohmann::json init{{"cmd", "init"}, {"library", m_libraryPath}, {"scratch", m_scratch}};
    auto ready = call(init, "ready", 120.0);
    if (!ready) {
        if (ready.status().code() == ErrorCode::InvalidArgument) return ready.status();
        return failed(RerunStatus::InternalError,
            Status(ErrorCode::Internal, "the candidate host did not start: " + ready.status().message()));
    }
    const nlohmann::json& sb = (*ready)["sandbox"];
    m_report.sandbox = sb.value("applied", "none");
    m_report.whyNot = sb.value("why_not", "");
    std::fprintf(stderr, "kwb-runner: candidate host %d for %s: %s\n", m_pid, m_name.c_str(),
        sb.value("describe", "").c_str());
    return Status::ok();
}

void CandidateHost::stop()
{
    if (m_pgid > 0) ::kill(-m_pgid, SIGKILL); // its process group: whatever it forked goes too
    m_pgid = -1;
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        int st = 0;
        while (::waitpid(m_pid, &st, 0) < 0 && errno == EINTR) {
        }
        m_pid = -1;
    }
    if (m_cmdFd >= 0) ::close(m_cmdFd);
    if (m_replyFd >= 0) ::close(m_replyFd);
    m_cmdFd = m_replyFd = -1;
    if (m_logStop) m_logStop->store(true);
    if (m_logThread.joinable()) m_logThread.join();
    m_attachedHandles.clear();
}

Status CandidateHost::ensureRunning()
{
    if (m_pid > 0) return Status::ok();
    return spawn();
}

void CandidateHost::beginRun(double timeoutS)
{
    m_callTimeoutS = std::max(2.0, 0.5 * timeoutS);
    m_lastFailure.reset();
    const std::string sandbox = m_report.sandbox;
    const std::string whyNot = m_report.whyNot;
    m_report = IsolationReport{};
    m_report.separate = true;
    m_report.sandbox = sandbox;
    m_report.whyNot = whyNot;
}

Status CandidateHost::failed(std::optional<RerunStatus> status, Status s)
{
    m_lastFailure = status;
    if (status && *status != RerunStatus::LaunchError && *status != RerunStatus::OutOfMemory) {
        stop();
        m_crashed = true;
    }
    return s;
}

RerunStatus CandidateHost::failureStatus(RerunStatus hint) const
{
    return m_lastFailure.value_or(hint);
}

Result<nlohmann::json> CandidateHost::call(const nlohmann::json& command, const char* expected, double timeoutS)
{
    if (Status w = writeFrame(m_cmdFd, command); !w.isOk()) {
        int st = 0;
        const pid_t done = ::waitpid(m_pid, &st, WNOHANG);
        std::string how = w.message();
        if (done == m_pid) {
            how = WIFSIGNALED(st) ? "the candidate host was killed by signal " + std::to_string(WTERMSIG(st))
                                  : "the candidate host exited with status " + std::to_string(WEXITSTATUS(st));
            m_pid = -1;
        }
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, how));
    }
    auto reply = readFrame(m_replyFd, timeoutS);
    if (!reply) {
        const Status& s = reply.status();
        if (s.code() == ErrorCode::Timeout)
            return failed(RerunStatus::Timeout,
                Status(ErrorCode::Timeout, "the candidate did not finish within " + std::to_string(timeoutS) +
                                               " s (candidate host killed)"));
        if (s.code() == ErrorCode::ParseError) {
            m_report.violations.push_back("the candidate wrote into the host's channel: " + s.message());
            return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: " + s.message()));
        }
        int st = 0;
        std::string how = s.message();
        // It closed its channel: it is gone or going; make sure before waiting.
        if (::waitpid(m_pid, &st, WNOHANG) != m_pid) {
            ::usleep(200 * 1000);
            if (::waitpid(m_pid, &st, WNOHANG) != m_pid) {
                ::kill(-m_pid, SIGKILL);
                ::kill(m_pid, SIGKILL);
                st = 0;
                ::waitpid(m_pid, &st, 0);
                if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
                    how += " (the candidate host closed its channel and was killed)";
                    m_pid = -1;
                    return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, how));
                }
            }
        }
        {
            how = WIFSIGNALED(st) ? "the candidate host was killed by signal " + std::to_string(WTERMSIG(st))
                                  : "the candidate host exited with status " + std::to_string(WEXITSTATUS(st));
            m_pid = -1;
        }
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, how));
    }
    nlohmann::json& j = *reply;
    const auto kind = j.find("reply");
    if (kind == j.end() || !kind->is_string()) {
        m_report.violations.push_back("a reply without a \"reply\" member: " + j.dump().substr(0, 120));
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: malformed reply from the candidate host"));
    }
    if (*kind == "error") {
        const std::string message = j.value("message", std::string("unknown error"));
        const std::string stage = j.value("stage", std::string());
        if (stage == "load") return failed(RerunStatus::CompileError, Status(ErrorCode::InvalidArgument, message));
        return failed(RerunStatus::InternalError, Status(ErrorCode::Internal, "candidate host (" + stage + "): " + message));
    }
    if (*kind != expected) {
        m_report.violations.push_back(std::string("expected reply '") + expected + "', got '" +
                                      kind->get<std::string>().substr(0, 40) + "'");
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: out-of-order reply from the candidate host"));
    }
    return reply;
}

Status CandidateHost::attach(const std::vector<void*>& buffers, const std::vector<std::int64_t>& sizes)
{
    std::vector<std::string> handles;
    nlohmann::json list = nlohmann::json::array();
    for (void* p : buffers) {
        std::string h;
        KWB_ASSIGN_OR_RETURN(nlohmann::json b, ipcBuffer(p, &h));
        handles.push_back(std::move(h));
        list.push_back(std::move(b));
    }
    if (handles == m_attachedHandles && sizes == m_attachedSizes) return Status::ok();
    auto r = call({{"cmd", "attach"}, {"buffers", list}, {"sizes", sizes}}, "attached", m_callTimeoutS);
    if (!r) return r.status();
    if (Status s = checkMembers(*r, {}); !s.isOk()) {
        m_report.violations.push_back("attach reply: " + s.message());
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: " + s.message()));
    }
    m_attachedHandles = std::move(handles);
    m_attachedSizes = sizes;
    return Status::ok();
}

Status CandidateHost::launch(const std::vector<void*>& buffers, const std::vector<std::int64_t>& sizes,
    cudaStream_t stream)
{
    m_lastFailure.reset();
    KWB_RETURN_IF_ERROR(ensureRunning());
    KWB_RETURN_IF_ERROR(attach(buffers, sizes));
    return relaunch(stream);
}

void CandidateHost::detach()
{
    if (m_pid <= 0 || m_attachedHandles.empty()) return;
    (void)call({{"cmd", "attach"}, {"buffers", nlohmann::json::array()}, {"sizes", nlohmann::json::array()}}, "attached",
        m_callTimeoutS);
    m_attachedHandles.clear();
    m_attachedSizes.clear();
}

Status CandidateHost::relaunch(cudaStream_t stream)
{
    m_lastFailure.reset();
    if (m_pid <= 0 || m_attachedHandles.empty())
        return Status(ErrorCode::Internal, "relaunch without a running, attached candidate host");
    // The inputs the runner wrote must be in memory before the child reads them.
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    auto r = call({{"cmd", "launch"}}, "launched", m_callTimeoutS);
    if (!r) return r.status();
    const nlohmann::json& j = *r;
    if (Status s = checkMembers(j, {"rc", "error", "sticky"}); !s.isOk() || !j["rc"].is_number_integer() ||
        !j["error"].is_string() || !j["sticky"].is_boolean()) {
        m_report.violations.push_back("launch reply: " + (s.isOk() ? std::string("member types") : s.message()));
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: malformed launch reply"));
    }
    const int rc = j["rc"].get<int>();
    const std::string error = j["error"].get<std::string>();
    if (j["sticky"].get<bool>())
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "candidate run (in the candidate host): " + error));
    if (rc == 0 && error.empty()) return Status::ok();
    const bool oom = rc == static_cast<int>(cudaErrorMemoryAllocation);
    return failed(oom ? RerunStatus::OutOfMemory : RerunStatus::LaunchError,
        Status(ErrorCode::GpuError, "kwb_launch returned " + std::to_string(rc) + " (" + error + ")"));
}

Status CandidateHost::time(const std::vector<void*>& buffers, const std::vector<std::int64_t>& sizes,
    cudaStream_t stream, const TimingConfig& config, bool cupti, std::optional<TimingStats>& stats,
    CuptiSummary& summary, const HostFreshInputs* fresh, std::vector<int>& kept)
{
    m_lastFailure.reset();
    kept.clear();
    KWB_RETURN_IF_ERROR(ensureRunning());
    KWB_RETURN_IF_ERROR(attach(buffers, sizes));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    nlohmann::json cfg{{"warmup", config.warmup}, {"trials", config.trials}, {"l2_flush", config.l2Flush},
        {"flush_mode", config.flushMode == FlushMode::Write ? "write" : "read"}, {"cupti", cupti},
        {"reset_persisting_l2", resetPersistingOf(config)}, {"max_seconds", config.maxSeconds},
        {"min_trials", config.minTrials}};
    if (fresh) {
        KWB_ASSIGN_OR_RETURN(cfg["fresh"], freshJson(*fresh));
    }
    // Preparing (CUPTI, the event bracket's calibration) stays outside the measured batch.
    auto prepared = call({{"cmd", "prepare_timing"}, {"config", cfg}}, "prepared", m_callTimeoutS);
    if (!prepared) return prepared.status();
    const auto t0 = Clock::now();
    auto timed = call({{"cmd", "time"}}, "timed", m_callTimeoutS);
    const double batchMs = msBetween(t0, Clock::now());
    if (!timed) return timed.status();
    const nlohmann::json& j = *timed;
    const Status members = fresh ? checkMembers(j, {"rc", "error", "result", "kept"})
                                 : checkMembers(j, {"rc", "error", "result"});
    if (Status s = members; !s.isOk() || !j["rc"].is_number_integer() || !j["error"].is_string() ||
        (fresh && !j["kept"].is_array())) {
        m_report.violations.push_back("timing reply: " + (s.isOk() ? std::string("member types") : s.message()));
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: malformed timing reply"));
    }
    if (j["rc"].get<int>() != 0)
        return failed(RerunStatus::LaunchError, Status(ErrorCode::GpuError, "timing in the candidate host: " +
                                                                            j["error"].get<std::string>()));
    // The child's numbers go through the protocol's strict decoder, then the plausibility checks.
    auto decoded = rerunResultFromJson(j["result"]);
    if (!decoded || !decoded->candidateTiming) {
        m_report.violations.push_back("timing reply rejected by the decoder: " +
                                      (decoded ? std::string("no candidate timing") : decoded.status().message()));
        return failed(RerunStatus::Fault, Status(ErrorCode::GpuError, "tampering: malformed timing from the candidate host"));
    }
    if (const std::string why = implausibleHostTiming(*decoded->candidateTiming, config.trials, batchMs,
                                             config.maxSeconds > 0.0 ? config.minTrials : -1); !why.empty()) {
        m_report.violations.push_back("timer: " + why);
        stats.reset();
        return Status::ok();
    }
    if (fresh) {
        std::vector<int> k;
        for (const auto& v : j["kept"]) k.push_back(v.is_number_integer() ? v.get<int>() : -1);
        if (const std::string why = implausibleKeptTrials(k, decoded->candidateTiming->trials, fresh->every,
                                                 fresh->snapshots.size()); !why.empty()) {
            m_report.violations.push_back("fresh inputs: " + why);
            stats.reset();
            return Status::ok();
        }
        kept = std::move(k);
    }
    stats = decoded->candidateTiming;
    summary = decoded->candidateCupti;
    return Status::ok();
}

Result<double> CandidateHost::pingMs()
{
    KWB_RETURN_IF_ERROR(ensureRunning());
    const auto t0 = Clock::now();
    auto r = call({{"cmd", "ping"}}, "pong", m_callTimeoutS);
    if (!r) return r.status();
    return msBetween(t0, Clock::now());
}

} // namespace kwb::gpu
