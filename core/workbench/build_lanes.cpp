#include "workbench/build_lanes.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace kwb::workbench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int buildNiceness()
{
    if (const char* e = std::getenv("KWB_BUILD_NICE"); e && *e) {
        char* end = nullptr;
        const long v = std::strtol(e, &end, 10);
        if (end && *end == '\0' && v >= 0 && v <= 19) return static_cast<int>(v);
    }
    return 10;
}

std::string readLogFrom(const std::string& path, std::uintmax_t from, std::size_t maxBytes)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::uintmax_t>(in.tellg());
    if (size <= from) return {};
    const std::uintmax_t start = std::max<std::uintmax_t>(from, size > maxBytes ? size - maxBytes : 0);
    in.seekg(static_cast<std::streamoff>(start));
    std::string s(static_cast<std::size_t>(size - start), '\0');
    in.read(s.data(), static_cast<std::streamsize>(s.size()));
    return s;
}

namespace {

constexpr std::size_t kLogTail = 64 * 1024;

double since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

std::uintmax_t fileSize(const std::string& path)
{
    std::error_code ec;
    const auto n = fs::file_size(path, ec);
    return ec ? 0 : n;
}

struct Lane {
    pid_t pid = -1;
    int in = -1;  // its stdin (we write)
    int out = -1; // its stdout (we read)
    std::string errPath;
    std::string buffer;
    long task = -1; // the input it is working on
    Clock::time_point start;
    std::uintmax_t errFrom = 0; // its stderr's size when the input was sent
    int answered = 0;
};

void closeFd(int& fd)
{
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// Starts a lane in a process group of its own, niced; "" or why not.
std::string startLane(Lane& lane, const std::vector<std::string>& argv, const std::string& errPath)
{
    int toChild[2];
    int fromChild[2];
    if (::pipe2(toChild, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
    if (::pipe2(fromChild, O_CLOEXEC) != 0) {
        ::close(toChild[0]);
        ::close(toChild[1]);
        return std::string("pipe: ") + std::strerror(errno);
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = argv.empty() ? EINVAL : ::posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(toChild[0]);
    ::close(fromChild[1]);
    if (rc != 0) {
        ::close(toChild[1]);
        ::close(fromChild[0]);
        return std::string("cannot start '") + (argv.empty() ? "" : argv[0]) + "': " + std::strerror(rc);
    }
    if (const int nice = buildNiceness(); nice > 0)
        (void)::setpriority(PRIO_PGRP, static_cast<id_t>(pid), std::min(19, ::getpriority(PRIO_PROCESS, 0) + nice));
    ::fcntl(fromChild[0], F_SETFL, ::fcntl(fromChild[0], F_GETFL) | O_NONBLOCK);
    lane = Lane{};
    lane.pid = pid;
    lane.in = toChild[1];
    lane.out = fromChild[0];
    lane.errPath = errPath;
    return {};
}

// A lane that died leaves a pipe with no reader: writing to it must fail with
// EPIPE, not raise SIGPIPE in kwb (blocked for the write, the pending one taken).
bool writeLine(int fd, const std::string& line)
{
    sigset_t pipeSet;
    sigset_t old;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
    const ssize_t n = ::write(fd, line.data(), line.size());
    const bool ok = n == static_cast<ssize_t>(line.size());
    if (!ok && errno == EPIPE) {
        const timespec zero{0, 0};
        (void)sigtimedwait(&pipeSet, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

void killLane(Lane& lane)
{
    closeFd(lane.in);
    closeFd(lane.out);
    if (lane.pid > 0) {
        ::kill(-lane.pid, SIGKILL);
        int status = 0;
        while (::waitpid(lane.pid, &status, 0) < 0 && errno == EINTR) {}
    }
    lane.pid = -1;
}

// Waits up to `seconds` for the lane to exit (its status in `status`); false if it has not.
bool reap(const Lane& lane, int& status, double seconds)
{
    const auto t0 = Clock::now();
    for (;;) {
        const pid_t got = ::waitpid(lane.pid, &status, WNOHANG);
        if (got == lane.pid || (got < 0 && errno != EINTR)) return got == lane.pid;
        if (since(t0) >= seconds) return false;
        ::usleep(20 * 1000);
    }
}

// Closes every lane's stdin (a lane exits at end of input), gives them all a
// few seconds together, then kills what is left, each with its process group.
void endLanes(std::vector<Lane>& pool)
{
    for (auto& lane : pool) closeFd(lane.in);
    const auto t0 = Clock::now();
    for (auto& lane : pool) {
        int status = 0;
        if (lane.pid > 0 && reap(lane, status, std::max(0.0, 5.0 - since(t0)))) {
            ::kill(-lane.pid, SIGKILL); // anything it left running
            lane.pid = -1;
        }
        killLane(lane);
    }
}

} // namespace

std::vector<LaneResult> runLanes(const std::vector<std::string>& argv, const std::vector<std::string>& inputs,
    int lanes, double timeoutS, const TaskContext& ctx, const LaneDone& onDone)
{
    std::vector<LaneResult> results(inputs.size());
    lanes = std::max(1, std::min<int>(lanes, static_cast<int>(std::max<std::size_t>(inputs.size(), 1))));
    char dirTemplate[] = "/tmp/kwb-lanes-XXXXXX";
    const char* dir = ::mkdtemp(dirTemplate);
    std::vector<Lane> pool(static_cast<std::size_t>(dir ? lanes : 0));
    std::size_t next = 0;
    std::size_t answered = 0;
    int started = 0;
    int deadBeforeAnswer = 0; // lanes that died before their first answer: a bridge that cannot serve
    std::string startFailure;
    ctx.report("build", 0, static_cast<std::int64_t>(inputs.size()));
    const auto done = [&](std::size_t t, LaneResult r) {
        results[t] = std::move(r);
        ++answered;
        ctx.report("build", static_cast<std::int64_t>(answered), static_cast<std::int64_t>(inputs.size()));
        if (onDone) onDone(t, results[t]);
    };
    // The lane's current input ends without an answer: its log says why.
    const auto fail = [&](Lane& lane, const std::string& why, bool timedOut, bool cancelled) {
        if (lane.task < 0) return;
        LaneResult r;
        r.seconds = since(lane.start);
        r.timedOut = timedOut;
        r.cancelled = cancelled;
        r.log = readLogFrom(lane.errPath, lane.errFrom, kLogTail);
        if (!why.empty()) r.log += (r.log.empty() || r.log.back() == '\n' ? "" : "\n") + why;
        const auto t = static_cast<std::size_t>(lane.task);
        lane.task = -1;
        done(t, std::move(r));
    };
    while (answered < inputs.size()) {
        const bool cancelled = ctx.cancelled();
        if (cancelled || !dir || deadBeforeAnswer > 2 * lanes) {
            const std::string why = !dir ? "cannot create a scratch folder in /tmp"
                                  : cancelled ? "cancelled"
                                              : "the build lanes exit before answering: " + startFailure;
            for (auto& lane : pool) {
                fail(lane, why, false, cancelled);
                killLane(lane);
            }
            for (; next < inputs.size(); ++next) {
                LaneResult r;
                r.cancelled = cancelled;
                r.log = why;
                done(next, std::move(r));
            }
            break;
        }
        // Every idle lane (started on demand) gets the next input.
        for (std::size_t i = 0; i < pool.size() && next < inputs.size(); ++i) {
            Lane& lane = pool[i];
            if (lane.task >= 0) continue;
            if (lane.pid <= 0) {
                const std::string errPath = std::string(dir) + "/lane" + std::to_string(started++) + ".err";
                if (std::string why = startLane(lane, argv, errPath); !why.empty()) {
                    startFailure = why;
                    ++deadBeforeAnswer;
                    continue;
                }
            }
            const std::string line = inputs[next] + "\n";
            // A lane's first input owns what it said while starting (why it cannot serve, say).
            lane.errFrom = lane.answered == 0 ? 0 : fileSize(lane.errPath);
            lane.start = Clock::now();
            lane.task = static_cast<long>(next++);
            if (!writeLine(lane.in, line)) { // it has exited already
                if (lane.answered == 0) {
                    ++deadBeforeAnswer;
                    startFailure = readLogFrom(lane.errPath, 0, 2000);
                    if (startFailure.empty()) startFailure = "the build lane exited at once";
                }
                fail(lane, "the build lane exited before taking its input", false, false);
                killLane(lane);
            }
        }
        std::vector<pollfd> fds;
        for (const auto& lane : pool)
            if (lane.out >= 0) fds.push_back({lane.out, POLLIN, 0});
        (void)::poll(fds.data(), fds.size(), 50);
        for (auto& lane : pool) {
            if (lane.out < 0) continue;
            char buf[4096];
            bool eof = false;
            for (;;) {
                const ssize_t n = ::read(lane.out, buf, sizeof buf);
                if (n > 0) {
                    lane.buffer.append(buf, static_cast<std::size_t>(n));
                    if (lane.buffer.size() > 4 * kLogTail) break; // a runaway line: handled below
                    continue;
                }
                if (n == 0) eof = true;
                break; // EAGAIN, or an error treated as the lane's end below
            }
            std::size_t nl;
            while ((nl = lane.buffer.find('\n')) != std::string::npos) {
                const std::string lineText = lane.buffer.substr(0, nl);
                lane.buffer.erase(0, nl + 1);
                if (lane.task < 0) continue; // nothing asked: ignore
                const auto j = nlohmann::json::parse(lineText, nullptr, false);
                // An answer for another sample than the one asked is a lane out of step.
                const bool otherPath = j.is_object() && j.contains("path") &&
                    (!j["path"].is_string() || j["path"].get<std::string>() != inputs[static_cast<std::size_t>(lane.task)]);
                if (j.is_discarded() || !j.is_object() || !j.contains("ok") || !j["ok"].is_boolean() || otherPath) {
                    fail(lane, "the build lane broke its protocol: " + lineText.substr(0, 200), false, false);
                    killLane(lane);
                    break;
                }
                LaneResult r;
                r.ok = j["ok"].get<bool>();
                r.cacheHit = r.ok && j.value("cache_hit", false);
                r.seconds = since(lane.start);
                if (!r.ok) {
                    r.log = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>() : std::string();
                    const std::string err = readLogFrom(lane.errPath, lane.errFrom, kLogTail);
                    if (!err.empty()) r.log = err + (err.back() == '\n' ? "" : "\n") + r.log;
                }
                const auto t = static_cast<std::size_t>(lane.task);
                lane.task = -1;
                ++lane.answered;
                done(t, std::move(r));
            }
            if (lane.out < 0) continue;
            if (lane.buffer.size() > 4 * kLogTail) {
                fail(lane, "the build lane wrote a line longer than 256 KiB", false, false);
                killLane(lane);
                continue;
            }
            if (eof) {
                int status = 0;
                closeFd(lane.in);
                closeFd(lane.out);
                // Its answers' pipe closed: it has exited, or is about to (else it is killed).
                if (!reap(lane, status, 2.0)) {
                    ::kill(-lane.pid, SIGKILL);
                    while (::waitpid(lane.pid, &status, 0) < 0 && errno == EINTR) {}
                }
                const std::string how = WIFEXITED(status) ? "the build lane exited with status " + std::to_string(WEXITSTATUS(status))
                                                          : "the build lane was killed by signal " + std::to_string(WTERMSIG(status));
                ::kill(-lane.pid, SIGKILL);
                lane.pid = -1;
                if (lane.answered == 0) {
                    ++deadBeforeAnswer;
                    startFailure = readLogFrom(lane.errPath, 0, 2000);
                    if (startFailure.empty()) startFailure = how;
                }
                fail(lane, how, false, false);
            }
        }
        for (auto& lane : pool)
            if (lane.task >= 0 && since(lane.start) > timeoutS) {
                fail(lane, "the build took longer than " + std::to_string(static_cast<int>(timeoutS)) + " s", true, false);
                killLane(lane);
            }
    }
    endLanes(pool);
    if (dir) {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    return results;
}

} // namespace kwb::workbench
