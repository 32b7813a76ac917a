#include "rerun/process_client.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kwb {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxGarbageBytes = std::size_t{1} << 20;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string describeWait(int status)
{
    if (WIFEXITED(status)) {
        const int code = WEXITSTATUS(status);
        if (code == 4) return "kwb-runner exited after a fatal CUDA error (status 4)";
        return "kwb-runner exited with status " + std::to_string(code);
    }
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = sigabbrev_np(sig);
        return "kwb-runner was killed by signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : std::string());
    }
    return "kwb-runner stopped";
}

std::string lastLines(const std::string& text, int lines)
{
    std::size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n' || text[pos - 1] == '\r')) --pos;
    const std::size_t end = pos;
    for (int i = 0; i < lines && pos > 0; ++i) {
        pos = text.rfind('\n', pos - 1);
        if (pos == std::string::npos) {
            pos = 0;
            break;
        }
    }
    std::string out = text.substr(pos, end - pos);
    while (!out.empty() && out.front() == '\n') out.erase(0, 1);
    return out;
}

bool isOomText(const std::string& text)
{
    return text.find("out of memory") != std::string::npos || text.find("std::bad_alloc") != std::string::npos;
}

} // namespace

struct ProcessClient::ReadOutcome {
    enum class Kind { Reply, Died, TimedOut, Cancelled, ProtocolBroken };
    Kind kind = Kind::Died;
    ProtocolMessage reply = ErrorMessage{};
    std::string detail;      // why the child is gone, or what broke
    std::string lastStage;   // last progress stage seen
};

ProcessClient::ProcessClient(ProcessClientOptions options) : m_options(std::move(options)) {}

ProcessClient::~ProcessClient() { stop(true); }

Status ProcessClient::ensureStarted()
{
    if (m_pid > 0) return Status::ok();
    return start();
}

Status ProcessClient::start()
{
    if (m_options.runnerPath.empty()) return Status(ErrorCode::NotFound, "no kwb-runner path given");
    int toChild[2] = {-1, -1};   // a socket pair so that writes to a dead child fail with EPIPE, not SIGPIPE
    int fromChild[2] = {-1, -1};
    int childErr[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, toChild) != 0 || ::pipe2(fromChild, O_CLOEXEC) != 0
        || ::pipe2(childErr, O_CLOEXEC) != 0) {
        const int err = errno;
        for (int fd : {toChild[0], toChild[1], fromChild[0], fromChild[1], childErr[0], childErr[1]})
            if (fd >= 0) ::close(fd);
        return Status(ErrorCode::IoError, std::string("cannot create pipes for kwb-runner: ") + std::strerror(err));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toChild[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, childErr[1], STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Own process group: a timeout kills the runner and whatever it started (nvcc).
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

    std::vector<std::string> args{m_options.runnerPath};
    args.insert(args.end(), m_options.runnerArgs.begin(), m_options.runnerArgs.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The child's environment: ours, with the option's entries replacing or added.
    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e) {
        const std::string_view entry(*e);
        const auto eq = entry.find('=');
        if (eq != std::string_view::npos && m_options.environment.count(std::string(entry.substr(0, eq)))) continue;
        envStrings.emplace_back(entry);
    }
    for (const auto& [name, value] : m_options.environment) envStrings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& e : envStrings) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, m_options.runnerPath.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(toChild[1]);
    ::close(fromChild[1]);
    ::close(childErr[1]);
    if (rc != 0) {
        ::close(toChild[0]);
        ::close(fromChild[0]);
        ::close(childErr[0]);
        return Status(ErrorCode::IoError, "cannot start '" + m_options.runnerPath + "': " + std::strerror(rc));
    }
    m_pid = pid;
    m_toChild = toChild[0];
    m_fromChild = fromChild[0];
    m_childErr = childErr[0];
    // Our end only: drainStderr() must never wait for a child that is still running.
    ::fcntl(m_childErr, F_SETFL, ::fcntl(m_childErr, F_GETFL) | O_NONBLOCK);
    m_readBuffer.clear();
    m_stderrTail.clear();
    if (m_starts++ > 0) ++m_restarts;

    // Handshake: the runner says whether it has a device.
    const std::string helloId = "hello-" + std::to_string(m_starts);
    // A write error means the child is already gone: reading on collects why.
    const Status written = writeLine(encodeMessage(HelloRequest{helloId}));
    ReadOutcome out = readUntilReply(helloId, written.isOk() ? m_options.startupTimeoutS : 2.0, TaskContext{}, true);
    if (out.kind == ReadOutcome::Kind::Reply) {
        if (const auto* caps = std::get_if<Capabilities>(&out.reply)) {
            m_capabilities = *caps;
            m_haveCapabilities = true;
            return Status::ok();
        }
        if (const auto* err = std::get_if<ErrorMessage>(&out.reply)) {
            stop(false);
            return Status(ErrorCode::Internal, "kwb-runner refused the handshake: " + err->message);
        }
    }
    std::string why = out.detail;
    if (out.kind == ReadOutcome::Kind::Died) {
        int status = 0;
        const auto t0 = Clock::now();
        while (secondsSince(t0) < 2.0) {
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                why = describeWait(status);
                m_pid = -1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    drainStderr();
    stop(false);
    const std::string tail = lastLines(m_stderrTail, 5);
    if (!tail.empty()) why += "; its stderr ends with: " + tail;
    return Status(out.kind == ReadOutcome::Kind::TimedOut ? ErrorCode::Timeout : ErrorCode::Internal,
        "kwb-runner '" + m_options.runnerPath + "' did not complete the handshake: " + why);
}

void ProcessClient::stop(bool graceful)
{
    if (m_pid > 0) {
        if (graceful && m_toChild >= 0) (void)writeLine(encodeMessage(ShutdownRequest{"bye"}));
        if (m_toChild >= 0) ::close(m_toChild);
        m_toChild = -1;
        int status = 0;
        bool reaped = false;
        if (graceful) {
            const auto start = Clock::now();
            while (secondsSince(start) < m_options.killGraceS) {
                if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                    reaped = true;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        }
        if (!reaped) {
            ::kill(-m_pid, SIGKILL);
            ::kill(m_pid, SIGKILL);
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {}
        }
        m_pid = -1;
    }
    for (int* fd : {&m_toChild, &m_fromChild, &m_childErr})
        if (*fd >= 0) {
            ::close(*fd);
            *fd = -1;
        }
    m_haveCapabilities = false;
}

Status ProcessClient::writeLine(const std::string& line)
{
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::send(m_toChild, line.data() + done, line.size() - done, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return Status(ErrorCode::IoError, std::string("cannot write to kwb-runner: ") + std::strerror(errno));
        }
        done += static_cast<std::size_t>(n);
    }
    return Status::ok();
}

void ProcessClient::drainStderr()
{
    if (m_childErr < 0) return;
    char buf[8192];
    while (true) {
        const ssize_t n = ::read(m_childErr, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return; // EAGAIN: nothing more for now
        if (n == 0) {
            ::close(m_childErr);
            m_childErr = -1;
            return;
        }
        if (m_options.forwardStderr) std::fwrite(buf, 1, static_cast<std::size_t>(n), stderr);
        m_stderrTail.append(buf, static_cast<std::size_t>(n));
        if (m_stderrTail.size() > m_options.stderrTailBytes)
            m_stderrTail.erase(0, m_stderrTail.size() - m_options.stderrTailBytes);
    }
}

ProcessClient::ReadOutcome ProcessClient::readUntilReply(const std::string& id, double timeoutS, const TaskContext& ctx,
    bool wantCapabilities)
{
    ReadOutcome out;
    const auto start = Clock::now();
    std::size_t garbage = 0;
    std::string lastGarbage;
    char buf[65536];
    while (true) {
        // Serve every complete line already buffered.
        for (std::size_t nl = m_readBuffer.find('\n'); nl != std::string::npos; nl = m_readBuffer.find('\n')) {
            const std::string line = m_readBuffer.substr(0, nl);
            m_readBuffer.erase(0, nl + 1);
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            auto msg = decodeMessage(line);
            if (!msg) {
                // Not ours: stray output. Tolerated, but not without bound.
                garbage += line.size();
                lastGarbage = line.substr(0, 200);
                if (garbage > kMaxGarbageBytes) {
                    out.kind = ReadOutcome::Kind::ProtocolBroken;
                    out.detail = "kwb-runner wrote more than 1 MiB of lines that are not protocol messages, last: " + lastGarbage;
                    return out;
                }
                continue;
            }
            if (const auto* p = std::get_if<ProgressMessage>(&*msg)) {
                if (p->id == id) {
                    out.lastStage = p->stage;
                    ctx.report(p->stage, p->done, p->total);
                }
                continue;
            }
            const bool match = std::visit(
                [&](const auto& m) {
                    using T = std::decay_t<decltype(m)>;
                    if constexpr (std::is_same_v<T, Capabilities>) return wantCapabilities && m.id == id;
                    else if constexpr (std::is_same_v<T, RerunResult>) return !wantCapabilities && m.id == id;
                    else if constexpr (std::is_same_v<T, ErrorMessage>) return m.id == id || m.id.empty();
                    else return false;
                },
                *msg);
            if (match) {
                out.kind = ReadOutcome::Kind::Reply;
                out.reply = std::move(*msg);
                return out;
            }
        }
        if (m_readBuffer.size() > (std::size_t{256} << 20)) {
            out.kind = ReadOutcome::Kind::ProtocolBroken;
            out.detail = "kwb-runner wrote a line longer than 256 MiB";
            return out;
        }
        if (ctx.cancelled()) {
            out.kind = ReadOutcome::Kind::Cancelled;
            out.detail = "cancelled";
            return out;
        }
        const double left = timeoutS - secondsSince(start);
        if (left <= 0) {
            out.kind = ReadOutcome::Kind::TimedOut;
            out.detail = "no reply within " + std::to_string(static_cast<long long>(timeoutS + 0.5)) + " s";
            return out;
        }
        pollfd fds[2] = {{m_fromChild, POLLIN, 0}, {m_childErr, POLLIN, 0}};
        const int waitMs = static_cast<int>(std::min(left * 1000.0, 100.0)) + 1;
        const int ready = ::poll(fds, m_childErr >= 0 ? 2 : 1, waitMs);
        if (ready < 0) {
            if (errno == EINTR) continue;
            out.kind = ReadOutcome::Kind::ProtocolBroken;
            out.detail = std::string("poll failed: ") + std::strerror(errno);
            return out;
        }
        if (m_childErr >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) drainStderr();
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = ::read(m_fromChild, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                out.kind = ReadOutcome::Kind::Died;
                out.detail = "kwb-runner closed its output";
                if (!lastGarbage.empty()) out.detail += " (last stray output: " + lastGarbage + ")";
                return out;
            }
            m_readBuffer.append(buf, static_cast<std::size_t>(n));
        }
    }
}

Result<Capabilities> ProcessClient::capabilities()
{
    if (m_haveCapabilities && m_pid > 0) return m_capabilities;
    KWB_RETURN_IF_ERROR(ensureStarted());
    return m_capabilities;
}

Result<RerunResult> ProcessClient::execute(const RerunRequest& request, const TaskContext& ctx)
{
    KWB_RETURN_IF_ERROR(ensureStarted());
    const std::string line = encodeMessage(request);
    if (Status s = writeLine(line); !s) {
        // The runner went away between requests: one fresh start, one retry.
        stop(false);
        KWB_RETURN_IF_ERROR(start());
        KWB_RETURN_IF_ERROR(writeLine(line));
    }
    const auto started = Clock::now();
    const double deadlineS = replyDeadlineS(request.options);
    ReadOutcome out = readUntilReply(request.id, deadlineS, ctx, false);

    RerunResult r;
    r.id = request.id;
    r.problemId = request.problem.id;
    r.candidateId = request.candidate.id;
    r.precision = request.problem.precision;
    r.device = m_capabilities.device;
    switch (out.kind) {
    case ReadOutcome::Kind::Reply: {
        if (auto* result = std::get_if<RerunResult>(&out.reply)) {
            RerunResult got = std::move(*result);
            got.precision = request.problem.precision;
            if (got.fatal) {
                // The runner exits after a sticky error; reap it now, start fresh on the next request.
                stop(true);
                got.runnerRestarted = true;
            }
            return got;
        }
        const auto& err = std::get<ErrorMessage>(out.reply);
        return Status(ErrorCode::Internal, "kwb-runner rejected request '" + request.id + "': " + err.message);
    }
    case ReadOutcome::Kind::Cancelled:
        stop(false);
        return Status(ErrorCode::Cancelled, "re-run of '" + request.candidate.id + "' cancelled");
    case ReadOutcome::Kind::TimedOut:
        stop(false);
        r.status = RerunStatus::Timeout;
        r.message = "no result after " + std::to_string(static_cast<long long>(deadlineS + 0.5))
            + " s (last stage: " + (out.lastStage.empty() ? std::string("none") : out.lastStage)
            + "); kwb-runner was killed and a fresh one will serve the next request";
        r.wallMs = secondsSince(started) * 1e3;
        r.runnerRestarted = true;
        return r;
    case ReadOutcome::Kind::Died:
    case ReadOutcome::Kind::ProtocolBroken: {
        // Give the child a moment to finish dying so that its exit status is known.
        int status = 0;
        bool reaped = false;
        const auto t0 = Clock::now();
        if (out.kind == ReadOutcome::Kind::Died)
            while (secondsSince(t0) < 2.0) {
                if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                    reaped = true;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        drainStderr();
        std::string why = out.detail;
        if (reaped) {
            why = describeWait(status);
            m_pid = -1; // already reaped
        }
        const std::string tail = lastLines(m_stderrTail, 5);
        stop(false);
        r.status = RerunStatus::Fault;
        if ((reaped && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) || isOomText(tail))
            r.status = RerunStatus::OutOfMemory; // SIGKILL we did not send: the kernel's OOM killer
        r.message = why + " while running '" + request.candidate.id + "' (last stage: "
            + (out.lastStage.empty() ? std::string("none") : out.lastStage) + ")";
        if (!tail.empty()) r.message += "; stderr: " + tail;
        r.wallMs = secondsSince(started) * 1e3;
        r.runnerRestarted = true;
        return r;
    }
    }
    return Status(ErrorCode::Internal, "unreachable");
}

Result<std::string> findRunner()
{
    std::vector<std::string> tried;
    if (const char* env = std::getenv("KWB_RUNNER"); env && *env) {
        if (::access(env, X_OK) == 0) return std::string(env);
        return Status(ErrorCode::NotFound, std::string("KWB_RUNNER is set to '") + env + "', which is not an executable");
    }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto dir = self.parent_path();
        for (const auto& candidate : {dir / "kwb-runner", dir / ".." / "runner" / "kwb-runner"}) {
            const std::string p = candidate.lexically_normal().string();
            if (::access(p.c_str(), X_OK) == 0) return p;
            tried.push_back(p);
        }
    }
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    return Status(ErrorCode::NotFound, "kwb-runner not found (set KWB_RUNNER; looked at: " + list + ")");
}

} // namespace kwb
