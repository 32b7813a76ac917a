#pragma once
// The executors a front end re-runs on — kwb-runner for NVRTC/shared-object
// candidates, the PyTorch bridge for KernelBench samples — with ONE answer to
// "can I re-run this, and if not, why?" for the CLI and the window alike.
// Each is a ProcessClient started on first use and kept for later requests.
//
// Thread: not thread-safe. The window serialises use on its one re-run worker
// (views/rerun_service); the CLI uses it from its main thread.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "rerun/executor.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/process_client.h"
#include "workbench/rerun_job.h"

namespace kwb::workbench {

struct ExecutorConfig {
    std::string runnerPath;   // kwb-runner; empty: findRunner() ($KWB_RUNNER, beside the executable)
    std::string python;       // python3 for the bridge; empty: $KWB_PYTHON, else PATH
    bool forwardStderr = false;
    double runnerStartupTimeoutS = 20.0;
};

struct Availability {
    bool probed = false;
    bool available = false;
    std::string reason;       // why not, or what it runs on ("Re-runs on NVIDIA H200 through …")
    std::string command;      // what was started (runner path, or python + script)
    Capabilities capabilities;
};

class ExecutorSet {
public:
    explicit ExecutorSet(ExecutorConfig config = {});
    ~ExecutorSet();
    ExecutorSet(const ExecutorSet&) = delete;
    ExecutorSet& operator=(const ExecutorSet&) = delete;

    // How the executor of `kind` is started (found on $PATH, beside kwb, …),
    // with NVLink multicast off in its environment; NotFound says where it
    // looked. For callers that start their own (one runner per GPU).
    Result<ProcessClientOptions> clientOptions(ExecutorKind kind);

    // Finds and starts the executor of `kind` (once) and asks for its
    // capabilities; later calls return the cached answer.
    const Availability& probe(ExecutorKind kind);
    // The started executor when probe(kind) found it available, else null.
    Executor* executor(ExecutorKind kind);
    std::int32_t restarts(ExecutorKind kind) const;
    // Ends the processes probe() started, keeping its answers (a later request
    // starts them again). For callers that then start their own, one per GPU.
    void endProcesses();
    // How the bridge is started (after probe(Bridge) found it): the build pool
    // runs the same interpreter and script.
    const std::optional<TorchBridgeCommand>& bridgeCommand() const { return m_bridgeCommand; }

private:
    struct Slot {
        Availability availability;
        std::unique_ptr<ProcessClient> client;
    };
    Slot& slot(ExecutorKind kind) { return m_slots[static_cast<int>(kind)]; }

    ExecutorConfig m_config;
    std::map<int, Slot> m_slots;
    std::optional<TorchBridgeCommand> m_bridgeCommand;
};

} // namespace kwb::workbench
