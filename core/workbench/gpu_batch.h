#pragma once
// A list of re-run jobs (kwb rerun's candidates or records) on one isolated
// runner per GPU (`--gpus`): the same RunnerPool as `kwb verify --gpus`, the
// outcomes returned in job order, so the output is the one-runner output
// whatever the GPUs' finishing order, plus where each ran.
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

// `executors` supplies how runner and bridge start (clientOptions); the pool
// starts its own per GPU. An error names the GPU that could not start.
Result<GpuBatch> runJobsOnGpus(ExecutorSet& executors, const std::vector<RerunJob>& jobs,
    const std::vector<GpuPlacement>& gpus, const FlagThresholds& thresholds, const CancelFlag* cancel,
    const JobProgress& progress = {});

} // namespace kwb::workbench
