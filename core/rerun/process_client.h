#pragma once
// The parent side of the process model: an Executor that forwards requests to
// a kwb-runner child process over pipes and survives whatever the candidate
// does. On a crash (the child exits or dies by a signal), a timeout (no result
// within replyDeadlineS(options): the child is killed) or a broken protocol stream it
// answers with a RerunResult whose status says why (Fault, Timeout,
// OutOfMemory) and starts a fresh runner for the next request.
//
// Thread: not thread-safe; one request at a time. The child's stderr is
// drained continuously; its tail is quoted in fault messages.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rerun/executor.h"

namespace kwb {

struct ProcessClientOptions {
    std::string runnerPath;             // kwb-runner (see findRunner)
    std::vector<std::string> runnerArgs;
    double startupTimeoutS = 60.0;      // hello reply after a (re)start
    double killGraceS = 2.0;            // SIGTERM .. SIGKILL on shutdown
    std::size_t stderrTailBytes = 4096;
    bool forwardStderr = false;         // also copy the child's stderr to ours
    // Set in the child's environment on top of ours (e.g. CUDA_VISIBLE_DEVICES
    // for a runner pinned to one GPU); an empty value is set as empty, not removed.
    std::map<std::string, std::string> environment;
};

class ProcessClient final : public Executor {
public:
    explicit ProcessClient(ProcessClientOptions options);
    ~ProcessClient() override; // sends shutdown, then terminates the child
    ProcessClient(const ProcessClient&) = delete;
    ProcessClient& operator=(const ProcessClient&) = delete;

    Result<Capabilities> capabilities() override;
    Result<RerunResult> execute(const RerunRequest& request, const TaskContext& ctx) override;

    // Ends the child now (a shutdown request, then a kill after the grace); a
    // later request starts a fresh one.
    void shutdown() { stop(true); }

    std::int32_t restarts() const { return m_restarts; } // fresh runners started after the first
    pid_t childPid() const { return m_pid; }             // -1 when none is running
    const std::string& stderrTail() const { return m_stderrTail; }

private:
    Status ensureStarted();
    Status start();
    void stop(bool graceful);
    Status writeLine(const std::string& line);
    // Reads lines until `done` or the deadline; kills the child on timeout.
    struct ReadOutcome;
    ReadOutcome readUntilReply(const std::string& id, double timeoutS, const TaskContext& ctx,
        bool wantCapabilities);
    void drainStderr();

    ProcessClientOptions m_options;
    pid_t m_pid = -1;
    int m_toChild = -1;
    int m_fromChild = -1;
    int m_childErr = -1;
    std::string m_readBuffer;
    std::string m_stderrTail;
    std::int32_t m_restarts = 0;
    std::int32_t m_starts = 0;
    bool m_haveCapabilities = false;
    Capabilities m_capabilities;
};

// kwb-runner to use: $KWB_RUNNER if set, else "kwb-runner" next to the
// running executable (/proc/self/exe), else beside it in ../runner (build
// tree layout). NotFound names every place looked at.
Result<std::string> findRunner();

} // namespace kwb
