#include "workbench/gpu_batch.h"

#include <algorithm>

namespace kwb::workbench {

Result<std::unique_ptr<RunnerPool>> startRunnerPool(ExecutorSet& executors, const std::vector<GpuPlacement>& gpus,
    const FlagThresholds& thresholds, bool needRunner, bool needBridge)
{
    RunnerPoolOptions po;
    po.gpus = gpus;
    po.thresholds = thresholds;
    if (needRunner) {
        KWB_ASSIGN_OR_RETURN(po.runner, executors.clientOptions(ExecutorKind::Runner));
    }
    if (needBridge) {
        KWB_ASSIGN_OR_RETURN(po.bridge, executors.clientOptions(ExecutorKind::Bridge));
    }
    executors.endProcesses();
    auto pool = std::make_unique<RunnerPool>(std::move(po));
    KWB_RETURN_IF_ERROR(pool->start(needRunner, needBridge));
    return pool;
}

Result<GpuBatch> runJobsOnGpus(ExecutorSet& executors, const std::vector<RerunJob>& jobs,
    const std::vector<GpuPlacement>& gpus, const FlagThresholds& thresholds, const CancelFlag* cancel,
    const JobProgress& progress)
{
    if (gpus.empty()) return Status(ErrorCode::InvalidArgument, "no GPUs to run on");
    const bool needRunner = std::any_of(jobs.begin(), jobs.end(), [](const RerunJob& j) { return j.executor == ExecutorKind::Runner; });
    const bool needBridge = std::any_of(jobs.begin(), jobs.end(), [](const RerunJob& j) { return j.executor == ExecutorKind::Bridge; });
    KWB_ASSIGN_OR_RETURN(std::unique_ptr<RunnerPool> started,
        startRunnerPool(executors, gpus, thresholds, needRunner, needBridge));
    RunnerPool& pool = *started;

    std::vector<PoolJob> poolJobs;
    poolJobs.reserve(jobs.size());
    for (const auto& j : jobs)
        poolJobs.push_back({j.recordId.empty() ? j.request.candidate.id : j.recordId, &j.request, &j.request.candidate,
            j.executor == ExecutorKind::Bridge});
    std::vector<std::optional<RerunOutcome>> got(jobs.size());
    std::vector<std::size_t> slotOf(jobs.size(), 0);
    GpuBatch batch;
    pool.run(poolJobs, cancel,
        [&](std::size_t job, std::size_t slot) { return progress ? progress(job, slot) : ProgressFn{}; },
        [&](PoolResult&& r) {
            if (r.outcome.error.code() == ErrorCode::Cancelled) {
                batch.cancelled = true;
                return false;
            }
            slotOf[r.job] = r.slot;
            got[r.job] = std::move(r.outcome);
            return true;
        });
    if (cancel && cancel->isCancelled()) batch.cancelled = true;
    // Job order; after an interruption only the unbroken run of finished jobs from the start.
    for (std::size_t i = 0; i < got.size() && got[i]; ++i) {
        batch.outcomes.push_back(std::move(*got[i]));
        batch.placements.push_back(pool.placement(slotOf[i]));
    }
    if (!batch.cancelled && batch.outcomes.size() != jobs.size())
        return Status(ErrorCode::Internal, "the GPU pool returned " + std::to_string(batch.outcomes.size()) + " of " +
                                               std::to_string(jobs.size()) + " results");
    for (std::size_t g = 0; g < pool.size(); ++g) batch.gpus.push_back(pool.placement(g));
    batch.restarts = pool.runnerRestarts() + pool.bridgeRestarts();
    return batch;
}

} // namespace kwb::workbench
