#pragma once
// Pieces `kwb rerun` and `kwb verify` share: re-run options from the command
// line, locating specs, starting the runner, progress on stderr, Ctrl-C.
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arg_parser.h"
#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "rerun/flags.h"
#include "rerun/protocol.h"
#include "rerun/rerun_session.h"
#include "workbench/executor_set.h"
#include "workbench/runner_pool.h"
#include "workbench/rerun_job.h"

namespace kwb::cli {

// Declares --trials, --warmup, --correctness-trials, --no-l2-flush,
// --coverage, --timeout, --seed, --size, --no-reference-timing, --no-cupti,
// --excessive-speedup, --runner, --verbose-runner.
void addRerunOptions(ArgParser& p);
// false: a usage error was printed.
bool readRerunOptions(const ArgParser& p, const char* command, RerunOptions& options, FlagThresholds& thresholds);

// A whole-string decimal number (an option's value); false when it is not one.
bool parseDouble(const std::string& s, double& out);

// "this build has no GPU support" unless the build has CUDA: returns the exit code to use, or nullopt.
std::optional<int> gpuBuildCheck(const char* command);

// The executors' configuration from --runner, --python and --verbose-runner.
workbench::ExecutorConfig executorConfig(const ArgParser& p);
// Starts the executor of `kind` and checks that it has a device; prints the
// availability reason and sets `exitCode` when it cannot run anything.
bool requireExecutor(workbench::ExecutorSet& executors, workbench::ExecutorKind kind, const char* command,
    int& exitCode);

// A problem spec from a path, or from an id searched in `dirs` (*.json files).
Result<ProblemSpec> findProblem(const std::string& pathOrId, const std::vector<std::string>& dirs);
// The default folders: <problem spec folder>/../candidates and KWB_DATASET_DIR/candidates.
std::vector<std::string> defaultCandidateDirs(const ProblemSpec& problem);
std::vector<std::string> defaultProblemDirs();

// Progress lines on stderr when the stage changes (at most one per stage).
class StderrProgress {
public:
    StderrProgress(const char* command, bool enabled) : m_command(command), m_enabled(enabled) {}
    ProgressFn forItem(std::size_t index, std::size_t count, const std::string& name);

private:
    const char* m_command;
    bool m_enabled;
};

// Ctrl-C sets this flag instead of killing kwb, so the runner is stopped cleanly.
const CancelFlag* installInterruptFlag();

// What a batch ran: outcomes in job order, and with --gpus where each ran.
struct BatchRun {
    std::vector<RerunOutcome> outcomes;
    std::vector<GpuPlacement> placements; // empty without --gpus
    std::int32_t poolRestarts = 0;        // with --gpus: runner + bridge restarts over all GPUs
};

// A placement as JSON, and "ran on 2 GPUs: 0 (NVIDIA H200, 3 jobs), 1 (…)".
nlohmann::json placementJson(const GpuPlacement& gpu);
std::string placementsLine(const std::vector<GpuPlacement>& placements);

// Declares --gpus (kwb rerun; kwb verify declares its own).
void addGpusOption(ArgParser& p);
// --gpus resolved (empty when absent); false after printing why it cannot be.
bool readGpusOption(const ArgParser& p, const char* command, std::vector<GpuPlacement>& gpus);

// Runs each job on the executor its kind needs, in order, or with `gpus` on
// one isolated runner per GPU (workbench/gpu_batch.h; outcomes still in job
// order), with progress on stderr unless quiet. nullopt when Ctrl-C
// interrupted the batch or the GPUs could not start (already reported).
std::optional<BatchRun> runBatch(workbench::ExecutorSet& executors, const std::vector<workbench::RerunJob>& jobs,
    const FlagThresholds& thresholds, const char* command, bool quiet, const std::vector<GpuPlacement>& gpus = {});

} // namespace kwb::cli
