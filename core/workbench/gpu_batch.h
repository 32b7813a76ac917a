#pragma once
// A list of re-run jobs (kwb rerun's candidates or records) on one isolated
// runner per GPU (`--gpus`): the same RunnerPool as `kwb verify --gpus`, the
// outcomes returned in job order, so the output is the one-runner output
// whatever the GPUs' finishing order, plus where each ran.
#include <memory>
#include <optional>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "rerun/flags.h"
#include "workbench/executor_set.h"
#include "workbench/rerun_job.h"
#include "workbench/runner_pool.h"

namespace kwb::workbench {

struct GpuBatch {
    std::vector<RerunOutcome> outcomes;        // one per job, in job order
    std::vector<GpuPlacement> placements;      // where each job ran
    std::vector<GpuPlacement> gpus;            // the pool's GPUs, with the UUIDs and names their runners reported
    std::int32_t restarts = 0;                 // runner + bridge restarts over all GPUs
    bool cancelled = false;                    // interrupted: outcomes holds only the jobs before it
};

using JobProgress = std::function<ProgressFn(std::size_t job, std::size_t gpu)>;

// A runner (and bridge) per GPU, started with `executors`' ways of starting
// them. The processes probe() started are ended first: they would sit idle
// for the whole batch, unpinned, a bridge with its judge's and its spare
// workers' CUDA contexts on the first GPU (on an H100 they cost a leaderboard
// record the 6 GiB of its output: docs/gpu-validation.md). An error names
// the GPU that could not start.
Result<std::unique_ptr<RunnerPool>> startRunnerPool(ExecutorSet& executors, const std::vector<GpuPlacement>& gpus,
    const FlagThresholds& thresholds, bool needRunner, bool needBridge);

// `executors` supplies how runner and bridge start (clientOptions); the pool
// starts its own per GPU. An error names the GPU that could not start.
Result<GpuBatch> runJobsOnGpus(ExecutorSet& executors, const std::vector<RerunJob>& jobs,
    const std::vector<GpuPlacement>& gpus, const FlagThresholds& thresholds, const CancelFlag* cancel,
    const JobProgress& progress = {});

} // namespace kwb::workbench
