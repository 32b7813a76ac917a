#pragma once
// GpuExecutor: runs re-run requests on the local GPU, inside kwb-runner.
//
// For one request, the steps of gpu/pipeline/run_steps.h: compile the
// candidate (NVRTC module or nvcc shared object, cached by source hash),
// generate inputs on the GPU, run the coverage check (sentinel A run + scan,
// sentinel B run + scan), the correctness trials on fresh inputs against the built-in reference (with
// input hashes before/after, zero acceptance and a determinism re-run), then
// time candidate and reference the same way (warm-up, L2 flush, CUDA events,
// CUPTI window over every stream). Whatever the candidate does comes back as
// a RerunResult status; a sticky CUDA error sets `fatal` so the runner exits
// and the parent starts a fresh one.
//
// Thread: every GPU handle (context, streams, cuBLAS, modules, CUPTI) is
// created and used on the thread that calls execute()/capabilities(); call
// them from one thread only (kwb-runner's main thread).
#include <memory>
#include <string>
#include <vector>

#include "rerun/executor.h"

namespace kwb::gpu {

class GpuExecutor : public Executor {
public:
    GpuExecutor();
    ~GpuExecutor() override;
    GpuExecutor(const GpuExecutor&) = delete;
    GpuExecutor& operator=(const GpuExecutor&) = delete;

    Result<Capabilities> capabilities() override;
    Result<RerunResult> execute(const RerunRequest& request, const TaskContext& ctx) override;

    // Names of the built-in references this executor implements.
    static std::vector<std::string> referenceNames();

    // kwb-runner --correctness-only (the compute-sanitizer child): coverage and
    // correctness only, no timing, no sanitizer pass of its own.
    void setCorrectnessOnly(bool on) { m_correctnessOnly = on; }
    // The runner binary the sanitizer child runs (default /proc/self/exe).
    void setRunnerPath(std::string path) { m_runnerPath = std::move(path); }

    struct State; // implementation detail (GpuResources), defined in the .cpp

private:
    std::unique_ptr<State> m_state;
    bool m_correctnessOnly = false;
    std::string m_runnerPath = "/proc/self/exe";
};

} // namespace kwb::gpu
