#pragma once
// `kwb verify` as a use case: re-run every record of some record files and
// append each, with its verification filled in, to a native JSONL file. One
// line per record as it finishes, so an interrupted run resumes: records
// already in the output are skipped (a trailing partial line is cut first).
// Records that cannot be re-run are written with a not_run flag saying why.
// Printing is the caller's: it gets events.
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "records/eval_record.h"
#include "rerun/flags.h"
#include "rerun/rerun_session.h"
#include "workbench/build_pool.h"
#include "workbench/executor_set.h"
#include "workbench/rerun_job.h"
#include "workbench/runner_pool.h"
#include "workbench/shard.h"

namespace kwb::workbench {

struct VerifyOptions {
    std::vector<std::string> recordFiles;  // any format kwb reads (files or folders)
    std::string out;                       // native JSONL, appended to
    std::vector<std::string> problemDirs;  // where problem ids are looked up
    std::vector<std::string> candidateDirs; // where records without a spec path find theirs (by id, by source file name)
    std::string kernelbenchDir;            // KernelBench checkout for samples' problems
    RerunOptions rerun;
    FlagThresholds thresholds;
    std::optional<ShardSpec> shard;        // only the records of this shard (workbench/shard.h)
    std::vector<GpuPlacement> gpus;        // one runner per GPU (empty: one runner, not pinned)
    int buildJobs = 0;                     // build pool workers for KernelBench samples (0: no pre-build)
    std::string buildScratchDir;           // where the pool writes the samples it builds (default: a temp folder)
};

// One record to verify: the record, where it came from, and its job (or why
// it has none).
struct VerifyItem {
    EvalRecord record;
    std::string recordFile;
    std::optional<RerunJob> job;
    std::string whyNot;
};

struct VerifyPlan {
    std::vector<VerifyItem> items;
    std::size_t alreadyDone = 0;   // records found in the output
    std::vector<std::string> order; // the (shard's) record ids in input order: the finished file's order
    std::vector<Status> fileErrors; // record files that failed as a whole
    std::vector<Status> issues;     // bad records the readers skipped
    std::size_t jobs(ExecutorKind kind) const;
};

// Ids already in `out` (cutting a trailing partial line, an interrupted write).
Result<std::set<std::string>> verifiedIds(const std::string& out);

// Reads the record files and resolves every record not already in the output
// to a job under the one rule set (workbench/rerun_job.h). Duplicate ids are
// verified once.
Result<VerifyPlan> planVerify(const VerifyOptions& options);

struct VerifyEvents {
    // Progress of one record's re-run (stage changes).
    std::function<ProgressFn(std::size_t index, std::size_t count, const std::string& recordId)> progressFor;
    // After each record is written: its outcome (null when it was not re-run)
    // or the executor error text.
    std::function<void(std::size_t index, std::size_t count, const VerifyItem& item, const RerunOutcome* outcome)> onRecord;
    // With options.gpus: each GPU's placement once its runner is up.
    std::function<void(std::size_t slot, const GpuPlacement& placement)> onGpu;
    // The build pool's progress ({"build", done, total}) and its report.
    ProgressFn buildProgress;
    std::function<void(const BuildReport& report)> onBuilt;
};

struct VerifyReport {
    std::size_t gpus = 0;         // runners the records were spread over (0: one, not pinned)
    std::int32_t runnerRestarts = 0;
    std::int32_t bridgeRestarts = 0;
    std::size_t written = 0;
    std::size_t errors = 0;       // records whose re-run the executor could not serve (not written)
    std::vector<Status> errorDetails;
    bool cancelled = false;
    std::map<std::string, int> flagCounts;
};

// Runs the plan's items in order (each on the executor its kind needs) and
// appends every finished record to options.out. A Status error: the output
// could not be written, or an executor the plan needs is unavailable (its
// reason), in which case nothing is run. With options.buildJobs > 0 every
// distinct KernelBench sample is built first, in parallel (workbench/
// build_pool.h); a sample that fails to build is written as compile_error
// with the compiler's first error and never reaches the GPU. With
// options.gpus the records are spread over one runner per GPU
// (workbench/runner_pool.h) and each carries verification.placement. Records
// are appended as they finish; a run that completes rewrites the file in
// input order, so it is the same however many GPUs or shards wrote it.
Result<VerifyReport> runVerify(VerifyPlan& plan, const VerifyOptions& options, ExecutorSet& executors,
    const VerifyEvents& events, const CancelFlag* cancel);

} // namespace kwb::workbench
