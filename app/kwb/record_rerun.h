#pragma once
// `kwb rerun --record FILE#ID`: re-run evaluation records, whatever their
// form — a record naming a candidate spec goes to kwb-runner, a KernelBench
// sample (inline ModelNew source: the leaderboard's kernels) to the PyTorch
// bridge — resolved by the one rule set of workbench/rerun_job.h.
#include <string>
#include <vector>

#include "arg_parser.h"
#include "rerun/flags.h"
#include "rerun/protocol.h"
#include "workbench/runner_pool.h"

namespace kwb::cli {

// Declares --kernelbench DIR and --python PATH (kwb rerun and kwb verify).
void addBridgeOptions(ArgParser& p);
// Declares --record FILE#ID (repeatable) and the bridge options.
void addRecordOptions(ArgParser& p);
// True when the command line names records with --record.
bool wantsRecords(const ArgParser& p);

// Re-runs each --record and prints the outcomes like `kwb rerun` (table or
// json). Returns the exit code.
int runRecordRerun(const ArgParser& p, const RerunOptions& options, const FlagThresholds& thresholds,
    const std::string& format, const std::vector<GpuPlacement>& gpus = {});

} // namespace kwb::cli
