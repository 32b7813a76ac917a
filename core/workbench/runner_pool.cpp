#include "workbench/runner_pool.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "workbench/child_command.h"

namespace kwb {

namespace {

std::vector<std::string> splitList(std::string_view s)
{
    std::vector<std::string> items;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        const std::size_t comma = s.find(',', pos);
        const std::string_view item = s.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        const auto b = item.find_first_not_of(" \t");
        const auto e = item.find_last_not_of(" \t");
        items.emplace_back(b == std::string_view::npos ? std::string_view{} : item.substr(b, e - b + 1));
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return items;
}

bool isIndex(const std::string& s)
{
    return !s.empty() && s.size() < 6 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string describe(const GpuPlacement& g)
{
    std::string s = "GPU " + std::to_string(g.index);
    if (!g.visibleDevices.empty()) s += " (CUDA_VISIBLE_DEVICES=" + g.visibleDevices + ")";
    return s;
}

std::string hostName()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return {};
    return buf;
}

} // namespace

GpuEnvironment GpuEnvironment::fromProcess()
{
    GpuEnvironment env;
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) env.cudaVisibleDevices = std::string(v);
    if (const char* v = std::getenv("KWB_NVIDIA_SMI"); v && *v) env.nvidiaSmi = v;
    return env;
}

Result<std::vector<GpuPlacement>> parseNvidiaSmiList(std::string_view text)
{
    std::vector<GpuPlacement> gpus;
    std::size_t pos = 0;
    std::int64_t lineNo = 0;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        const std::string line(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        ++lineNo;
        // "GPU 0: NVIDIA H200 (UUID: GPU-5c1b…)"; MIG devices ("  MIG 1g.18gb Device 0: …") are not GPUs of their own here.
        if (line.rfind("GPU ", 0) != 0) continue;
        const auto colon = line.find(':');
        const auto uuidAt = line.find("(UUID: ");
        if (colon == std::string::npos || uuidAt == std::string::npos || !isIndex(line.substr(4, colon - 4)))
            return Status(ErrorCode::ParseError, "unexpected nvidia-smi -L line: " + line, SourcePosition{"nvidia-smi -L", lineNo, 1});
        GpuPlacement g;
        g.index = static_cast<std::int32_t>(std::stoi(line.substr(4, colon - 4)));
        const auto nameStart = line.find_first_not_of(' ', colon + 1);
        g.name = line.substr(nameStart, uuidAt > nameStart ? uuidAt - nameStart : 0);
        while (!g.name.empty() && g.name.back() == ' ') g.name.pop_back();
        const auto close = line.find(')', uuidAt);
        g.uuid = line.substr(uuidAt + 7, close == std::string::npos ? std::string::npos : close - uuidAt - 7);
        g.visibleDevices = g.uuid;
        gpus.push_back(std::move(g));
    }
    return gpus;
}

Result<std::vector<GpuPlacement>> listGpus(const GpuEnvironment& env)
{
    auto out = runCommand({env.nvidiaSmi, "-L"}, 30.0);
    if (!out)
        return Status(out.status().code(), "cannot list GPUs with nvidia-smi -L: " + out.status().message());
    if (out->exitCode != 0) {
        std::string why = out->err.empty() ? out->out : out->err;
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        return Status(ErrorCode::NotFound,
            "'" + env.nvidiaSmi + " -L' failed with status " + std::to_string(out->exitCode) + (why.empty() ? "" : ": " + why));
    }
    return parseNvidiaSmiList(out->out);
}

Result<std::vector<GpuPlacement>> resolveGpus(std::string_view spec, const GpuEnvironment& env)
{
    const bool fromParent = env.cudaVisibleDevices.has_value();
    std::vector<std::string> parent;
    if (fromParent)
        for (auto& e : splitList(*env.cudaVisibleDevices))
            if (!e.empty()) parent.push_back(e);
    std::vector<GpuPlacement> gpus;
    if (spec == "all") {
        if (fromParent) {
            if (parent.empty())
                return Status(ErrorCode::NotFound,
                    "--gpus all: CUDA_VISIBLE_DEVICES is set but empty, so this process may use no GPU");
            for (std::size_t i = 0; i < parent.size(); ++i)
                gpus.push_back({static_cast<std::int32_t>(i), parent[i], parent[i].rfind("GPU-", 0) == 0 ? parent[i] : "", ""});
            return gpus;
        }
        KWB_ASSIGN_OR_RETURN(gpus, listGpus(env));
        if (gpus.empty()) return Status(ErrorCode::NotFound, "--gpus all: '" + env.nvidiaSmi + " -L' lists no GPU on this machine");
        for (std::size_t i = 0; i < gpus.size(); ++i) gpus[i].index = static_cast<std::int32_t>(i);
        return gpus;
    }
    const std::vector<std::string> items = splitList(spec);
    std::optional<std::vector<GpuPlacement>> smi; // asked only when an index needs it
    std::set<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string& item = items[i];
        GpuPlacement g;
        g.index = static_cast<std::int32_t>(i);
        if (item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0) {
            g.visibleDevices = item;
            g.uuid = item;
        } else if (isIndex(item)) {
            const auto n = static_cast<std::size_t>(std::stoul(item));
            if (fromParent) {
                if (n >= parent.size())
                    return Status(ErrorCode::InvalidArgument, "--gpus: GPU " + item + " is not among the "
                        + std::to_string(parent.size()) + " of CUDA_VISIBLE_DEVICES=" + *env.cudaVisibleDevices);
                g.visibleDevices = parent[n];
                if (parent[n].rfind("GPU-", 0) == 0) g.uuid = parent[n];
            } else {
                if (!smi) {
                    auto listed = listGpus(env);
                    smi = listed ? *listed : std::vector<GpuPlacement>{};
                }
                const GpuPlacement* known = nullptr;
                for (const auto& s : *smi)
                    if (s.index == static_cast<std::int32_t>(n)) known = &s;
                if (!smi->empty() && !known)
                    return Status(ErrorCode::InvalidArgument, "--gpus: there is no GPU " + item + " ('" + env.nvidiaSmi
                        + " -L' lists " + std::to_string(smi->size()) + ")");
                g.visibleDevices = known ? known->uuid : item;
                if (known) {
                    g.uuid = known->uuid;
                    g.name = known->name;
                }
            }
        } else {
            return Status(ErrorCode::InvalidArgument,
                "--gpus: '" + item + "' is neither a GPU index nor a GPU UUID (use all, or a list such as 0,1,3)");
        }
        if (!seen.insert(g.visibleDevices).second)
            return Status(ErrorCode::InvalidArgument, "--gpus: GPU " + item + " is listed twice");
        gpus.push_back(std::move(g));
    }
    if (gpus.empty()) return Status(ErrorCode::InvalidArgument, "--gpus: no GPU given");
    return gpus;
}

std::map<std::string, std::string> runnerEnvironment(const GpuPlacement& gpu)
{
    std::map<std::string, std::string> env{
        {"NCCL_NVLS_ENABLE", "0"},
        {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"},
        {"NVSHMEM_DISABLE_NVLS", "1"},
    };
    if (!gpu.visibleDevices.empty()) {
        env["CUDA_VISIBLE_DEVICES"] = gpu.visibleDevices;
        // A bare index then means what nvidia-smi means by it.
        if (isIndex(gpu.visibleDevices)) env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
    }
    return env;
}

std::string placementJsonText(const GpuPlacement& gpu)
{
    nlohmann::ordered_json j;
    j["gpu"] = gpu.index;
    j["cuda_visible_devices"] = gpu.visibleDevices;
    if (!gpu.uuid.empty()) j["uuid"] = gpu.uuid;
    if (!gpu.name.empty()) j["name"] = gpu.name;
    if (const std::string host = hostName(); !host.empty()) j["host"] = host;
    return j.dump();
}

void recordPlacement(EvalRecord& record, const GpuPlacement& gpu)
{
    auto& extra = record.verification.extra;
    std::erase_if(extra, [](const RawField& f) { return f.key == "placement"; });
    extra.push_back({"placement", placementJsonText(gpu)});
}

struct RunnerPool::Slot {
    GpuPlacement placement;
    std::unique_ptr<ProcessClient> runner;
    std::unique_ptr<ProcessClient> bridge;
    Capabilities caps;
};

RunnerPool::RunnerPool(RunnerPoolOptions options) : m_options(std::move(options))
{
    std::vector<GpuPlacement> gpus = m_options.gpus;
    if (gpus.empty()) gpus.push_back(GpuPlacement{}); // one runner, not pinned
    for (auto& g : gpus) {
        auto slot = std::make_unique<Slot>();
        slot->placement = std::move(g);
        const auto env = runnerEnvironment(slot->placement);
        if (m_options.runner) {
            ProcessClientOptions o = *m_options.runner;
            for (const auto& [k, v] : env) o.environment[k] = v;
            slot->runner = std::make_unique<ProcessClient>(o);
        }
        if (m_options.bridge) {
            ProcessClientOptions o = *m_options.bridge;
            for (const auto& [k, v] : env) o.environment[k] = v;
            slot->bridge = std::make_unique<ProcessClient>(o);
        }
        m_slots.push_back(std::move(slot));
    }
}

RunnerPool::~RunnerPool() = default;

std::size_t RunnerPool::size() const { return m_slots.size(); }
const GpuPlacement& RunnerPool::placement(std::size_t slot) const { return m_slots.at(slot)->placement; }
const Capabilities& RunnerPool::capabilities(std::size_t slot) const { return m_slots.at(slot)->caps; }

Status RunnerPool::start(bool needRunner, bool needBridge, bool* noDevice)
{
    if (noDevice) *noDevice = false;
    std::vector<Status> errors(m_slots.size());
    std::vector<char> missing(m_slots.size(), 0);
    const auto startOne = [&](std::size_t i) {
        Slot& s = *m_slots[i];
        for (auto [client, wanted, what] : {std::tuple{s.runner.get(), needRunner, "kwb-runner"},
                 std::tuple{s.bridge.get(), needBridge, "the PyTorch bridge"}}) {
            if (!wanted) continue;
            if (!client) {
                errors[i] = Status(ErrorCode::InvalidArgument, std::string("no ") + what + " configured");
                return;
            }
            auto caps = client->capabilities();
            if (!caps) {
                errors[i] = Status(caps.status().code(), std::string("cannot start ") + what + ": " + caps.status().toString());
                return;
            }
            if (!caps->devicePresent) {
                missing[i] = 1;
                errors[i] = Status(ErrorCode::NotFound,
                    std::string("no GPU: ") + (caps->reason.empty() ? "the runner found no CUDA device" : caps->reason));
                return;
            }
            if (client == s.runner.get() || !needRunner) s.caps = *caps;
        }
        if (s.placement.uuid.empty()) s.placement.uuid = s.caps.device.uuid;
        if (!s.caps.device.name.empty()) s.placement.name = s.caps.device.name;
    };
    // Concurrently: a bridge takes seconds to import PyTorch, once per GPU.
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < m_slots.size(); ++i) threads.emplace_back(startOne, i);
    startOne(0);
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        if (errors[i].isOk()) continue;
        if (noDevice) *noDevice = missing[i] != 0;
        if (m_slots[i]->placement.index < 0) return errors[i];
        return Status(errors[i].code(), describe(m_slots[i]->placement) + ": " + errors[i].message());
    }
    return Status::ok();
}

std::size_t RunnerPool::run(const std::vector<PoolJob>& jobs, const CancelFlag* cancel, const ProgressFactory& progress,
    const ResultSink& sink)
{
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<PoolResult> results;
    std::size_t workersLeft = m_slots.size();
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex progressMutex;

    const auto worker = [&](std::size_t slotIndex) {
        Slot& slot = *m_slots[slotIndex];
        while (!stop.load() && !(cancel && cancel->isCancelled())) {
            const std::size_t i = next.fetch_add(1);
            if (i >= jobs.size()) break;
            const PoolJob& job = jobs[i];
            TaskContext ctx;
            ctx.cancel = cancel;
            if (progress) {
                ProgressFn fn;
                {
                    std::lock_guard lock(progressMutex);
                    fn = progress(i, slotIndex);
                }
                if (fn)
                    ctx.progress = [&progressMutex, fn](const Progress& p) {
                        std::lock_guard lock(progressMutex);
                        fn(p);
                    };
            }
            ProcessClient* client = job.useBridge ? slot.bridge.get() : slot.runner.get();
            PoolResult r;
            r.job = i;
            r.slot = slotIndex;
            std::optional<RerunOutcome> instead = job.before ? job.before(cancel) : std::nullopt;
            if (instead) {
                r.ran = false;
                r.outcome = std::move(*instead);
            } else if (!client) {
                r.outcome.candidateId = job.candidate ? job.candidate->id : job.name;
                r.outcome.error = Status(ErrorCode::InvalidArgument,
                    std::string("no ") + (job.useBridge ? "PyTorch bridge" : "kwb-runner") + " configured for '" + job.name + "'");
            } else {
                r.outcome = runRerun(*client, *job.request, *job.candidate, m_options.thresholds, ctx);
            }
            std::lock_guard lock(mutex);
            results.push_back(std::move(r));
            ready.notify_one();
        }
        std::lock_guard lock(mutex);
        --workersLeft;
        ready.notify_one();
    };
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < m_slots.size(); ++i) threads.emplace_back(worker, i);

    std::size_t delivered = 0;
    while (true) {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return !results.empty() || workersLeft == 0; });
        if (results.empty()) break;
        PoolResult r = std::move(results.front());
        results.pop_front();
        lock.unlock();
        ++delivered;
        if (!sink(std::move(r))) stop.store(true);
    }
    for (auto& t : threads) t.join();
    return delivered;
}

std::int32_t RunnerPool::runnerRestarts() const
{
    std::int32_t n = 0;
    for (const auto& s : m_slots)
        if (s->runner) n += s->runner->restarts();
    return n;
}

std::int32_t RunnerPool::bridgeRestarts() const
{
    std::int32_t n = 0;
    for (const auto& s : m_slots)
        if (s->bridge) n += s->bridge->restarts();
    return n;
}

} // namespace kwb
