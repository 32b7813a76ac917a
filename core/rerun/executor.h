#pragma once
// The executor interface: runs one re-run request and answers with a result.
// Implementations: GpuExecutor (core/gpu, inside kwb-runner: owns every GPU
// handle on one thread), ProcessClient (rerun/process_client.h: forwards to a
// kwb-runner child process and survives its crashes and hangs), and a
// simulated executor for tests only (tests/core).
#include "base/progress.h"
#include "base/status.h"
#include "rerun/protocol.h"

namespace kwb {

class Executor {
public:
    virtual ~Executor() = default;

    // What this executor can run (device present, device info). Cheap after
    // the first call.
    virtual Result<Capabilities> capabilities() = 0;

    // Runs one request. Whatever the candidate does — compile error, fault,
    // hang, out of memory — comes back as a RerunResult with that status and a
    // message; an error Status means the executor itself could not serve the
    // request (invalid request, broken pipe that a restart did not fix,
    // cancelled). Progress goes to ctx.progress; ctx.cancel is polled between
    // steps. Not re-entrant: one request at a time per executor.
    virtual Result<RerunResult> execute(const RerunRequest& request, const TaskContext& ctx) = 0;
};

} // namespace kwb
