#pragma once
// One summary of a re-run, computed once and rendered everywhere: the `kwb
// rerun` table and JSON, the record `kwb verify` stores, and the window's
// re-run panel all show these numbers. Coverage is that of the LEAST-covered
// output: a kernel that fills one output and skips another is judged by the
// one it skipped. Flags are derived under the caller's thresholds.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/progress.h"
#include "records/eval_record.h"
#include "rerun/flags.h"
#include "rerun/rerun_session.h"
#include "workbench/executor_set.h"
#include "workbench/rerun_job.h"

namespace kwb::workbench {

struct RunSummary {
    std::string recordId;
    std::string problemId;
    std::string candidateId;
    bool completed = false;  // the executor answered with a result
    std::string status;      // rerunStatusName(), or "error" when the executor could not serve the request
    std::string message;     // the result's message, or the executor's error
    std::int32_t trials = 0; // correctness trials over all outputs, and how many passed
    std::int32_t trialsPassed = 0;
    std::optional<bool> correct;               // every output passed on every trial
    std::optional<OutputCoverage> coverage;    // the least-covered output
    std::size_t coveredOutputs = 0;            // outputs with a coverage scan
    std::optional<double> candidateMs;         // median
    std::optional<double> referenceMs;
    std::optional<double> speedup;
    std::vector<Flag> flags;
    std::vector<std::string> checksRun; // provenance: the checks the verdict passed through
    std::string device;
    bool runnerRestarted = false;
    ExpectationCheck expectation;
};

RunSummary summarizeOutcome(const RerunOutcome& outcome, const std::string& recordId = {});

// Stable JSON of a summary (the "summary" member of `kwb rerun --format json`).
nlohmann::json runSummaryToJson(const RunSummary& summary);

// One row per summary: candidate, status, correct, coverage, times, speedup,
// flag codes, the checks that ran; then every flag's reason (with the check it
// came from), one per line.
std::string runSummariesTable(const std::vector<RunSummary>& summaries, bool withExpectations);

// `kwb rerun --format json`'s outcome object: the summary and the whole result.
nlohmann::json rerunOutcomeJson(const RerunOutcome& outcome, const std::string& recordId = {});

// Runs a resolved job on the executor its kind needs (started on first use).
// An executor that is unavailable becomes the outcome's error with its reason.
RerunOutcome runJob(ExecutorSet& executors, const RerunJob& job, const FlagThresholds& thresholds,
    const TaskContext& ctx);

} // namespace kwb::workbench
