#pragma once
// One isolated runner per GPU (`kwb verify --gpus`): a batch of re-run
// requests spread over the GPUs of a node, each GPU served by its own
// kwb-runner (and, for KernelBench samples, its own PyTorch bridge) pinned by
// CUDA_VISIBLE_DEVICES. A crash or hang costs only the record that caused it:
// that GPU's ProcessClient reports it and starts a fresh runner, the other
// GPUs go on. Requests are handed out in batch order to whichever GPU is free,
// so results arrive in completion order; the caller writes them as they come
// and sorts the output at the end (workbench/shard.h defines the order).
//
// Every runner gets NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and
// NVSHMEM_DISABLE_NVLS=1 (NVLink multicast off, also in whatever it starts).
//
// Threads: run() starts one worker thread per GPU; each owns its GPU's
// clients. Progress callbacks are called from the workers one at a time
// (serialised by the pool); results are delivered on the thread that called run().
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "problems/candidate_spec.h"
#include "records/eval_record.h"
#include "rerun/flags.h"
#include "rerun/process_client.h"
#include "rerun/protocol.h"
#include "rerun/rerun_session.h"

namespace kwb {

// Where a runner runs: one GPU of this node.
struct GpuPlacement {
    std::int32_t index = -1;    // position in the --gpus list (0, 1, ...); -1: not pinned
    std::string visibleDevices; // CUDA_VISIBLE_DEVICES of its runner (an index or a GPU UUID)
    std::string uuid;           // "GPU-…" when known (the runner's capabilities, else nvidia-smi)
    std::string name;           // device name when known
};

// What `--gpus` resolves against: this process's CUDA_VISIBLE_DEVICES and
// the nvidia-smi to ask (`KWB_NVIDIA_SMI`, default "nvidia-smi" in PATH).
struct GpuEnvironment {
    std::optional<std::string> cudaVisibleDevices;
    std::string nvidiaSmi = "nvidia-smi";
    static GpuEnvironment fromProcess();
};

// `nvidia-smi -L` lines ("GPU 0: NVIDIA H200 (UUID: GPU-…)") as placements
// pinned by UUID (CUDA's own device order need not be nvidia-smi's PCI order;
// a UUID names the same GPU in both). Errors name the program and why.
Result<std::vector<GpuPlacement>> parseNvidiaSmiList(std::string_view text);
Result<std::vector<GpuPlacement>> listGpus(const GpuEnvironment& env);

// `--gpus` values:
//   "all"      every GPU this process may use: the entries of its
//              CUDA_VISIBLE_DEVICES when set (as under Slurm), else every GPU
//              `nvidia-smi -L` lists; none is an error that says which source was empty;
//   "0,2,…"    those GPUs: indices into our CUDA_VISIBLE_DEVICES when it is
//              set, else nvidia-smi indices (pinned by their UUID when
//              nvidia-smi knows them, else by the index with CUDA_DEVICE_ORDER=PCI_BUS_ID);
//   "GPU-…"    UUIDs, as they are. Duplicates are an error.
Result<std::vector<GpuPlacement>> resolveGpus(std::string_view spec, const GpuEnvironment& env);

// The environment entries a runner on `gpu` gets (the multicast switches
// always; CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER when pinned).
std::map<std::string, std::string> runnerEnvironment(const GpuPlacement& gpu);

// Records where a re-run ran under verification.placement
// {"gpu", "cuda_visible_devices", "uuid", "name", "host"} (docs/formats.md).
void recordPlacement(EvalRecord& record, const GpuPlacement& gpu);
// The same object on its own ({"gpu", "cuda_visible_devices", "uuid", "name", "host"}), as JSON text.
std::string placementJsonText(const GpuPlacement& gpu);

struct RunnerPoolOptions {
    std::vector<GpuPlacement> gpus;          // empty: one runner, not pinned (a plain `kwb verify`)
    std::optional<ProcessClientOptions> runner; // native candidates (kwb-runner)
    std::optional<ProcessClientOptions> bridge; // KernelBench samples (the PyTorch bridge)
    FlagThresholds thresholds;
};

struct PoolJob {
    std::string name;                 // for progress (the record id)
    const RerunRequest* request = nullptr;
    const CandidateSpec* candidate = nullptr;
    bool useBridge = false;           // served by the bridge, not kwb-runner
    // Called on the GPU's thread that took the job, before it runs: may block (kwb
    // verify waits there for the job's sample to be built, so every GPU starts on
    // the first samples while the build pool compiles the rest). An outcome is
    // delivered instead of running the job (a compile error; Cancelled), nullopt runs it.
    std::function<std::optional<RerunOutcome>(const CancelFlag*)> before;
};

struct PoolResult {
    std::size_t job = 0;              // index into the jobs given to run()
    std::size_t slot = 0;             // index into slots()
    bool ran = true;                  // false: the outcome came from the job's `before`, no GPU ran it
    RerunOutcome outcome;
};

class RunnerPool {
public:
    explicit RunnerPool(RunnerPoolOptions options);
    ~RunnerPool();
    RunnerPool(const RunnerPool&) = delete;
    RunnerPool& operator=(const RunnerPool&) = delete;

    // Starts each GPU's runner and/or bridge (as asked) and checks that each
    // has a device; fills in the UUID and name the runner reports. The error
    // names the GPU and the reason; `noDevice` tells "started, but no device" apart.
    Status start(bool needRunner, bool needBridge, bool* noDevice = nullptr);

    std::size_t size() const;
    const GpuPlacement& placement(std::size_t slot) const;
    const Capabilities& capabilities(std::size_t slot) const; // the runner's, else the bridge's

    // Progress of job `job` on `slot`. The factory and the callbacks it makes are
    // called from worker threads, one call at a time (the pool serialises them).
    using ProgressFactory = std::function<ProgressFn(std::size_t job, std::size_t slot)>;
    // Takes a result; false stops the batch (e.g. the output cannot be written).
    using ResultSink = std::function<bool(PoolResult&&)>;

    // Runs every job; returns when all are done, or early when `cancel` is
    // set or the sink says stop (results of jobs that finish meanwhile are
    // still delivered). Returns the number of jobs delivered.
    std::size_t run(const std::vector<PoolJob>& jobs, const CancelFlag* cancel, const ProgressFactory& progress,
        const ResultSink& sink);

    std::int32_t runnerRestarts() const;
    std::int32_t bridgeRestarts() const;

private:
    struct Slot;
    RunnerPoolOptions m_options;
    std::vector<std::unique_ptr<Slot>> m_slots;
};

} // namespace kwb
