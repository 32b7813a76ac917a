#include "workbench/executor_set.h"

#include "rerun/kernelbench_sample.h"
#include "workbench/runner_pool.h"

namespace kwb::workbench {

ExecutorSet::ExecutorSet(ExecutorConfig config) : m_config(std::move(config)) {}
ExecutorSet::~ExecutorSet() = default;

namespace {

// Starts the client and turns its answer into one availability sentence.
void start(ExecutorKind kind, ProcessClientOptions options, Availability& a, std::unique_ptr<ProcessClient>& client)
{
    const char* name = executorKindName(kind);
    client = std::make_unique<ProcessClient>(std::move(options));
    auto caps = client->capabilities();
    if (!caps) {
        a.reason = std::string("the ") + name + " did not start: " + caps.status().toString();
        client.reset();
        return;
    }
    a.capabilities = *caps;
    if (!caps->devicePresent) {
        a.reason = std::string("no GPU: ") + (caps->reason.empty() ? std::string("the ") + name + " found no CUDA device"
                                                                    : caps->reason);
        client.reset();
        return;
    }
    a.available = true;
    a.reason = "re-runs on " + caps->device.name + " through the " + name + " (" + a.command + ")";
}

} // namespace

Result<ProcessClientOptions> ExecutorSet::clientOptions(ExecutorKind kind)
{
    ProcessClientOptions options;
    if (kind == ExecutorKind::Runner) {
        if (!m_config.runnerPath.empty()) {
            options.runnerPath = m_config.runnerPath;
        } else {
            KWB_ASSIGN_OR_RETURN(options.runnerPath, findRunner());
        }
        options.startupTimeoutS = m_config.runnerStartupTimeoutS;
    } else {
        KWB_ASSIGN_OR_RETURN(TorchBridgeCommand bridge, findTorchBridge(m_config.python));
        m_bridgeCommand = bridge;
        options = torchBridgeClientOptions(bridge);
    }
    options.forwardStderr = m_config.forwardStderr;
    options.environment = runnerEnvironment(GpuPlacement{}); // NVLink multicast off, also in what it starts
    return options;
}

const Availability& ExecutorSet::probe(ExecutorKind kind)
{
    Slot& s = slot(kind);
    if (s.availability.probed) return s.availability;
    Availability& a = s.availability;
    a.probed = true;
    auto options = clientOptions(kind);
    if (!options) {
        a.reason = options.status().message();
        return a;
    }
    a.command = options->runnerPath;
    for (const auto& arg : options->runnerArgs) a.command += " " + arg;
    start(kind, std::move(*options), a, s.client);
    return a;
}

Executor* ExecutorSet::executor(ExecutorKind kind)
{
    Slot& s = slot(kind);
    return s.availability.available ? s.client.get() : nullptr;
}

void ExecutorSet::endProcesses()
{
    for (auto& [kind, s] : m_slots)
        if (s.client) s.client->shutdown();
}

std::int32_t ExecutorSet::restarts(ExecutorKind kind) const
{
    auto it = m_slots.find(static_cast<int>(kind));
    return it == m_slots.end() || !it->second.client ? 0 : it->second.client->restarts();
}

} // namespace kwb::workbench
