#include "workbench/build_pool.h"

#include "workbench/build_lanes.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>


extern char** environ;

namespace kwb::workbench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Running {
    std::size_t task = 0;
    pid_t pid = -1;
    Clock::time_point start;
    std::string errPath;
};

// Builds run below normal priority (buildNiceness(), workbench/build_lanes.h):
// the GPU side of the same batch (the judge, the candidate worker, the timer's
// fresh-input round trips) then gets its CPU on time while every core compiles.
// On the H200 machine's leaderboard run 14 builds (28 compilers) shared 16
// cores with them, and a batch of ten fresh-input round trips could outlast the
// timer's 500 ms gate.

double since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

std::vector<PoolTaskResult> runPool(const std::vector<PoolTask>& tasks, int jobs, const TaskContext& ctx,
    const PoolTaskDone& onDone)
{
    std::vector<PoolTaskResult> results(tasks.size());
    if (jobs < 1) jobs = 1;
    char errTemplate[] = "/tmp/kwb-pool-XXXXXX";
    const char* dir = ::mkdtemp(errTemplate);
    std::vector<Running> running;
    std::size_t next = 0;
    std::size_t finished = 0;
    ctx.report("build", 0, static_cast<std::int64_t>(tasks.size()));
    const auto finish = [&](std::size_t slot, int status, bool killed, bool timedOut) {
        Running r = running[slot];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(slot));
        PoolTaskResult& out = results[r.task];
        out.seconds = since(r.start);
        out.timedOut = timedOut;
        out.cancelled = killed && !timedOut;
        out.exitCode = killed ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        out.stderrText = readLogFrom(r.errPath, 0, 64 * 1024);
        std::error_code ec;
        fs::remove(r.errPath, ec);
        ++finished;
        ctx.report("build", static_cast<std::int64_t>(finished), static_cast<std::int64_t>(tasks.size()));
        if (onDone) onDone(r.task, out);
    };
    while (finished < tasks.size()) {
        const bool cancelled = ctx.cancelled();
        while (!cancelled && dir && next < tasks.size() && running.size() < static_cast<std::size_t>(jobs)) {
            const std::size_t t = next++;
            Running r;
            r.task = t;
            r.errPath = std::string(dir) + "/" + std::to_string(t) + ".err";
            posix_spawn_file_actions_t actions;
            posix_spawn_file_actions_init(&actions);
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, r.errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            posix_spawnattr_t attr;
            posix_spawnattr_init(&attr);
            posix_spawnattr_setpgroup(&attr, 0); // its own group: a timeout kills the compilers it started too
            posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
            std::vector<char*> argv;
            for (const auto& a : tasks[t].argv) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            pid_t pid = -1;
            const int rc = tasks[t].argv.empty() ? EINVAL
                                                 : ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
            posix_spawn_file_actions_destroy(&actions);
            posix_spawnattr_destroy(&attr);
            if (rc != 0) {
                results[t].startError = std::string("cannot start '") + (argv[0] ? argv[0] : "") + "': " + std::strerror(rc);
                ++finished;
                if (onDone) onDone(t, results[t]);
                continue;
            }
            // The group is the child alone yet (it is still starting): what it starts inherits this.
            // Relative to ours, as nice(1) does (a lowered priority cannot be raised back unprivileged).
            if (const int nice = buildNiceness(); nice > 0)
                (void)::setpriority(PRIO_PGRP, static_cast<id_t>(pid), std::min(19, ::getpriority(PRIO_PROCESS, 0) + nice));
            r.pid = pid;
            r.start = Clock::now();
            running.push_back(std::move(r));
        }
        if (!dir || (cancelled && running.empty())) {
            for (std::size_t t = next; t < tasks.size(); ++t) {
                results[t].startError = dir ? "cancelled" : "cannot create a scratch folder in /tmp";
                results[t].cancelled = dir != nullptr;
                ++finished;
                if (onDone) onDone(t, results[t]);
            }
            next = tasks.size();
            if (running.empty()) break;
        }
        bool reaped = false;
        for (std::size_t i = 0; i < running.size(); ++i) {
            int status = 0;
            const pid_t got = ::waitpid(running[i].pid, &status, WNOHANG);
            const bool overdue = since(running[i].start) > tasks[running[i].task].timeoutS;
            if (got == running[i].pid) {
                finish(i, status, false, false);
                reaped = true;
                break;
            }
            if (overdue || cancelled) {
                ::kill(-running[i].pid, SIGKILL);
                while (::waitpid(running[i].pid, &status, 0) < 0 && errno == EINTR) {}
                finish(i, status, true, overdue);
                reaped = true;
                break;
            }
        }
        if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (dir) {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    return results;
}

std::string firstCompilerError(const std::string& log)
{
    std::istringstream in(log);
    std::string line;
    std::string last;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // nvcc: "file.cu(12): error: …"; gcc: "file.cpp:3:5: error: …"; ld: "… error: …"
        if (line.find("error:") != std::string::npos || line.find(": error ") != std::string::npos) return line;
        if (line.find_first_not_of(" \t") != std::string::npos) last = line;
    }
    return last;
}

std::string sampleSourceKey(const std::string& source)
{
    // FNV-1a, 64 bits: a file name for the scratch copy, not a cache key (the
    // bridge keys its cache by everything load_inline is given).
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : source) h = (h ^ c) * 0x100000001b3ULL;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::vector<std::string> sampleKeysToBuild(const std::vector<const RerunJob*>& jobs)
{
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const RerunJob* job : jobs) {
        if (!job || job->executor != ExecutorKind::Bridge) continue;
        const std::string key = sampleSourceKey(job->request.candidate.source);
        if (seen.insert(key).second) keys.push_back(key);
    }
    return keys;
}

namespace {

constexpr double kSampleTimeoutS = 900.0;

SampleBuild sampleBuildOf(const PoolTaskResult& r, double timeoutS)
{
    SampleBuild b;
    b.seconds = r.seconds;
    b.cancelled = r.cancelled;
    b.ok = r.exitCode == 0 && r.startError.empty();
    b.cacheHit = b.ok && r.stderrText.find("(cache hit)") != std::string::npos;
    if (!b.ok) {
        b.error = !r.startError.empty() ? r.startError
            : r.timedOut ? "the build took longer than " + std::to_string(static_cast<int>(timeoutS)) + " s"
                         : firstCompilerError(r.stderrText);
        if (b.error.empty()) b.error = "the build exited with status " + std::to_string(r.exitCode);
    }
    return b;
}

SampleBuild sampleBuildOf(const LaneResult& r)
{
    SampleBuild b;
    b.seconds = r.seconds;
    b.cancelled = r.cancelled;
    b.ok = r.ok;
    b.cacheHit = r.cacheHit;
    if (!b.ok && !b.cancelled) {
        b.error = r.timedOut ? "the build took longer than " + std::to_string(static_cast<int>(kSampleTimeoutS)) + " s"
                             : firstCompilerError(r.log);
        if (b.error.empty()) b.error = "the build failed";
    }
    return b;
}

// Long-lived build lanes (workbench/build_lanes.h), unless KWB_BUILD_LANES=0
// asks for a process per sample (the form they are measured against).
bool buildLanes()
{
    const char* e = std::getenv("KWB_BUILD_LANES");
    return !(e && std::strcmp(e, "0") == 0);
}

} // namespace

Result<BuildReport> prebuildSamples(const std::vector<const RerunJob*>& jobs, const TorchBridgeCommand& command,
    int workers, const std::string& scratchDir, const TaskContext& ctx, const SampleBuilt& onSample)
{
    std::error_code ec;
    fs::create_directories(scratchDir, ec);
    if (ec) return Status(ErrorCode::IoError, "cannot create the build scratch folder: " + ec.message(), SourcePosition{scratchDir});
    BuildReport report;
    std::vector<std::string> keys;
    std::vector<std::string> files; // the samples written for their builds, by key order
    std::vector<PoolTask> tasks;
    for (const RerunJob* job : jobs) {
        if (!job || job->executor != ExecutorKind::Bridge) continue;
        const std::string key = sampleSourceKey(job->request.candidate.source);
        if (report.bySource.count(key)) continue;
        report.bySource[key] = {};
        const std::string file = (fs::path(scratchDir) / ("sample_" + key + ".py")).string();
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out << job->request.candidate.source;
        if (!out) return Status(ErrorCode::IoError, "cannot write the sample for its build", SourcePosition{file});
        keys.push_back(key);
        files.push_back(file);
        tasks.push_back(PoolTask{{command.python, command.script, "--build", file}, kSampleTimeoutS});
    }
    report.distinct = tasks.size();
    const auto t0 = Clock::now();
    std::vector<SampleBuild> builds;
    if (buildLanes()) {
        const auto results = runLanes({command.python, command.script, "--build-serve"}, files, workers, kSampleTimeoutS,
            ctx, [&](std::size_t t, const LaneResult& r) {
                if (onSample) onSample(keys[t], sampleBuildOf(r));
            });
        for (const auto& r : results) builds.push_back(sampleBuildOf(r));
    } else {
        const auto results = runPool(tasks, workers, ctx, [&](std::size_t t, const PoolTaskResult& r) {
            if (onSample) onSample(keys[t], sampleBuildOf(r, tasks[t].timeoutS));
        });
        for (std::size_t i = 0; i < results.size(); ++i) builds.push_back(sampleBuildOf(results[i], tasks[i].timeoutS));
    }
    report.wallSeconds = since(t0);
    for (std::size_t i = 0; i < builds.size(); ++i) {
        SampleBuild& b = report.bySource[keys[i]];
        b = builds[i];
        if (b.cancelled) {
            ++report.cancelled;
            continue;
        }
        if (!b.ok) ++report.failed;
        report.cacheHits += b.cacheHit;
        report.buildSeconds.push_back(b.seconds);
    }
    return report;
}

} // namespace kwb::workbench
