#include "workbench/zero_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <tuple>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "records/zero_acceptance_table.h"
#include "rerun/protocol.h"

extern char** environ;

namespace kwb {

namespace fs = std::filesystem;

namespace {

int problemNumber(const std::string& stem)
{
    int n = 0;
    std::size_t i = 0;
    for (; i < stem.size() && std::isdigit(static_cast<unsigned char>(stem[i])); ++i) n = n * 10 + (stem[i] - '0');
    return i ? n : 1 << 30;
}

ZeroJob jobFor(const fs::path& file)
{
    ZeroJob j;
    j.path = file.string();
    j.problem = file.stem().string();
    static const std::regex levelDir("level([0-9]+)");
    std::vector<std::string> parts;
    for (const auto& p : file.parent_path()) parts.push_back(p.string());
    for (std::size_t i = parts.size(); i-- > 0;) {
        std::smatch m;
        if (std::regex_match(parts[i], m, levelDir)) {
            j.level = std::stoi(m[1].str());
            if (i >= 1 && parts[i - 1] == "KernelBench" && i >= 2) j.version = parts[i - 2];
            else if (i >= 1) j.version = parts[i - 1];
            break;
        }
    }
    if (j.version.empty()) j.version = file.parent_path().filename().string();
    return j;
}

// The bridge child: one JSON line in, one JSON line out, with a deadline.
class BridgeChild {
public:
    explicit BridgeChild(const TorchBridgeCommand& cmd) : m_cmd(cmd) {}
    ~BridgeChild() { stop(); }

    Status start()
    {
        int in[2];
        int out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
            return Status(ErrorCode::IoError, std::string("cannot create pipes for the bridge: ") + std::strerror(errno));
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        posix_spawnattr_setpgroup(&attr, 0); // a timeout kills the bridge and what it started
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        std::vector<std::string> args{m_cmd.python, "-u", m_cmd.script};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = -1;
        const int rc = ::posix_spawn(&pid, m_cmd.python.c_str(), &actions, &attr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        ::close(in[0]);
        ::close(out[1]);
        if (rc != 0) {
            ::close(in[1]);
            ::close(out[0]);
            return Status(ErrorCode::IoError, "cannot start '" + m_cmd.python + "': " + std::strerror(rc));
        }
        m_pid = pid;
        m_to = in[1];
        m_from = out[0];
        m_buffer.clear();
        return Status::ok();
    }

    bool running() const { return m_pid > 0; }

    Status send(const std::string& line)
    {
        std::string data = line + "\n";
        std::size_t off = 0;
        while (off < data.size()) {
            const ssize_t n = ::write(m_to, data.data() + off, data.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return Status(ErrorCode::IoError, "the bridge stopped reading its input");
            off += static_cast<std::size_t>(n);
        }
        return Status::ok();
    }

    // The next line; Timeout or IoError (the bridge exited) otherwise.
    Result<std::string> readLine(double timeoutS)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
        for (;;) {
            if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
                std::string line = m_buffer.substr(0, nl);
                m_buffer.erase(0, nl + 1);
                return line;
            }
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0) return Status(ErrorCode::Timeout, "no answer within " + std::to_string(timeoutS) + " s");
            pollfd p{m_from, POLLIN, 0};
            const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) continue;
            char buf[65536];
            const ssize_t n = ::read(m_from, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return Status(ErrorCode::IoError, "the bridge exited (" + reap() + ")");
            m_buffer.append(buf, static_cast<std::size_t>(n));
        }
    }

    void stop()
    {
        if (m_pid <= 0) return;
        if (m_to >= 0) {
            (void)send(nlohmann::json{{"protocol", std::string(kRerunProtocol)}, {"type", "shutdown"}, {"id", ""}}.dump());
            ::close(m_to);
            m_to = -1;
        }
        for (int i = 0; i < 20; ++i) {
            int st = 0;
            if (::waitpid(m_pid, &st, WNOHANG) == m_pid) {
                m_pid = -1;
                break;
            }
            ::usleep(100000);
        }
        if (m_pid > 0) {
            ::kill(-m_pid, SIGKILL);
            int st = 0;
            ::waitpid(m_pid, &st, 0);
            m_pid = -1;
        }
        if (m_from >= 0) ::close(m_from);
        m_from = -1;
    }

    void kill()
    {
        if (m_pid > 0) {
            ::kill(-m_pid, SIGKILL);
            int st = 0;
            ::waitpid(m_pid, &st, 0);
            m_pid = -1;
        }
        if (m_to >= 0) ::close(m_to);
        if (m_from >= 0) ::close(m_from);
        m_to = m_from = -1;
    }

private:
    std::string reap()
    {
        int st = 0;
        std::string how = "still running";
        if (::waitpid(m_pid, &st, 0) == m_pid) {
            how = WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st))
                                  : "exit status " + std::to_string(WEXITSTATUS(st));
            m_pid = -1;
        }
        return how;
    }

    TorchBridgeCommand m_cmd;
    pid_t m_pid = -1;
    int m_to = -1;
    int m_from = -1;
    std::string m_buffer;
};

ZeroAcceptanceRow failedRow(const ZeroJob& job, std::string status, std::string reason)
{
    ZeroAcceptanceRow r;
    r.version = job.version;
    r.level = job.level;
    r.problem = job.problem;
    r.status = std::move(status);
    r.reason = std::move(reason);
    return r;
}

} // namespace

Result<std::vector<ZeroJob>> listZeroJobs(const std::vector<std::string>& inputs, const std::vector<int>& levels)
{
    std::vector<ZeroJob> jobs;
    for (const auto& in : inputs) {
        std::error_code ec;
        if (fs::is_regular_file(in, ec)) {
            jobs.push_back(jobFor(fs::path(in)));
        } else if (fs::is_directory(in, ec)) {
            for (auto it = fs::recursive_directory_iterator(in, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file() && it->path().extension() == ".py" && it->path().filename() != "__init__.py")
                    jobs.push_back(jobFor(it->path()));
            if (ec) return Status(ErrorCode::IoError, in + ": " + ec.message());
        } else {
            return Status(ErrorCode::NotFound, in + ": no such file or folder");
        }
    }
    if (!levels.empty())
        jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                       [&](const ZeroJob& j) { return std::find(levels.begin(), levels.end(), j.level) == levels.end(); }),
            jobs.end());
    std::sort(jobs.begin(), jobs.end(), [](const ZeroJob& a, const ZeroJob& b) {
        return std::tuple(a.level, a.version, problemNumber(a.problem), a.problem)
             < std::tuple(b.level, b.version, problemNumber(b.problem), b.problem);
    });
    return jobs;
}

Result<ZeroAcceptanceRow> zeroRowFromReply(const std::string& line, const ZeroJob& job)
{
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return Status(ErrorCode::ParseError, "the bridge's answer is not a JSON object: " + line.substr(0, 200));
    if (j.value("type", "") == "error")
        return Status(ErrorCode::Unsupported, "the bridge refused the request: " + j.value("message", std::string()));
    if (j.value("type", "") != "zero_probe_result")
        return Status(ErrorCode::SchemaError, "unexpected answer of type '" + j.value("type", std::string()) + "'");
    ZeroAcceptanceRow r = failedRow(job, j.value("status", std::string("error")), j.value("message", std::string()));
    if (r.status == "ok") {
        const auto outs = j.find("outputs");
        if (outs == j.end() || !outs->is_array() || outs->empty())
            return Status(ErrorCode::SchemaError, job.path + ": the bridge answered ok with no outputs");
        for (std::size_t i = 0; i < outs->size(); ++i) {
            KWB_ASSIGN_OR_RETURN(ZeroOutputStats s,
                parseZeroOutputStats((*outs)[i].dump(), job.path + " outputs[" + std::to_string(i) + "]"));
            r.outputs.push_back(std::move(s));
        }
        r.combined = combineZeroOutputs(r.outputs);
        r.reason.clear();
    }
    auto num = [&j](const char* k) -> std::optional<double> {
        auto it = j.find(k);
        return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    r.setupS = num("setup_s");
    r.forwardMs = num("forward_ms");
    if (auto b = num("input_bytes")) r.inputBytes = static_cast<std::int64_t>(*b);
    return r;
}

Result<ZeroRunResult> runZeroProbes(const std::vector<ZeroJob>& jobs, const ZeroRunOptions& options)
{
    ZeroRunResult result;
    BridgeChild child(options.bridge);
    auto hello = [&]() -> Status {
        KWB_RETURN_IF_ERROR(child.start());
        KWB_RETURN_IF_ERROR(child.send(nlohmann::json{{"protocol", std::string(kRerunProtocol)}, {"type", "hello"}, {"id", "hello"}}.dump()));
        auto line = child.readLine(180.0); // importing torch takes seconds
        if (!line.isOk()) return Status(line.status().code(), "the PyTorch bridge did not answer hello: " + line.status().message());
        const auto c = nlohmann::json::parse(*line, nullptr, false);
        if (!c.is_object() || c.value("type", "") != "capabilities")
            return Status(ErrorCode::SchemaError, "the PyTorch bridge answered hello with: " + line->substr(0, 300));
        if (!c.value("device_present", false))
            return Status(ErrorCode::Unsupported, "no GPU here: " + c.value("reason", std::string("the bridge sees no device")));
        if (c.contains("device") && c["device"].is_object()) result.device = c["device"].value("name", std::string());
        result.runnerVersion = c.value("runner_version", std::string());
        return Status::ok();
    };
    KWB_RETURN_IF_ERROR(hello());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const ZeroJob& job = jobs[i];
        if (!child.running()) KWB_RETURN_IF_ERROR(hello());
        ZeroAcceptanceRow row;
        const auto started = std::chrono::steady_clock::now();
        auto source = readFileContents(job.path);
        if (!source.isOk()) {
            row = failedRow(job, "error", source.status().toString());
        } else {
            nlohmann::json req{{"protocol", std::string(kRerunProtocol)}, {"type", "zero_probe"}, {"id", std::to_string(i)},
                {"problem_file", job.path}, {"problem_source", *source}, {"seed", options.seed}};
            Status sent = child.send(req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            auto line = sent.isOk() ? child.readLine(options.timeoutS) : Result<std::string>(sent);
            if (!line.isOk()) {
                const bool timeout = line.status().code() == ErrorCode::Timeout;
                row = failedRow(job, timeout ? "timeout" : "crash", line.status().message());
                child.kill(); // the next problem gets a fresh bridge
            } else {
                auto parsed = zeroRowFromReply(*line, job);
                if (!parsed.isOk()) return parsed.status();
                row = std::move(*parsed);
                if (row.status == "no_device") return Status(ErrorCode::Unsupported, "no GPU here: " + row.reason);
            }
        }
        row.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (options.onRow) options.onRow(row, i + 1, jobs.size());
        result.rows.push_back(std::move(row));
    }
    child.stop();
    return result;
}

} // namespace kwb
