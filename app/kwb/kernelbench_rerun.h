#pragma once
// KernelBench samples in `kwb rerun` and `kwb verify`: records whose inline
// source defines ModelNew (the leaderboard's kernels, KernelBench eval samples
// carrying code) are re-run by the PyTorch bridge (kwb_torch_bridge.py under
// python3) instead of kwb-runner, behind the same protocol and checks.
#include <optional>
#include <string>
#include <string_view>

#include "arg_parser.h"
#include "records/eval_record.h"
#include "rerun/flags.h"
#include "rerun/process_client.h"
#include "rerun/protocol.h"

namespace kwb::cli {

// Declares --record FILE#ID (repeatable), --kernelbench DIR and --python PATH.
void addKernelBenchOptions(ArgParser& p);
// True when the command line names KernelBench samples with --record.
bool wantsKernelBenchSamples(const ArgParser& p);

// `kwb rerun --record FILE#ID...`: re-runs each sample through the bridge and
// prints the outcomes like `kwb rerun` (table or json). Returns the exit code.
int runKernelBenchRerun(const ArgParser& p, const RerunOptions& options, const FlagThresholds& thresholds,
    const std::string& format);

// "FILE#ID" -> (FILE, ID); InvalidArgument without '#' or with an empty part.
Result<std::pair<std::string, std::string>> splitRecordReference(std::string_view reference);
// Loads FILE (any record format) and returns the record whose id is ID, or the
// only one whose id ends in "/ID" (leaderboard ids are "leaderboard/<file hash>").
Result<EvalRecord> findRecordByReference(std::string_view reference);

// For `kwb verify`: the bridge request of a record that is a KernelBench
// sample (isKernelBenchSample), its problem from the record or --kernelbench.
Result<RerunRequest> kernelBenchVerifyRequest(const ArgParser& p, const EvalRecord& record, const RerunOptions& options);
// The bridge's process options (--python, $KWB_PYTHON, PATH; $KWB_TORCH_BRIDGE
// or next to kwb); prints why and sets `exitCode` when it cannot be found.
std::optional<ProcessClientOptions> bridgeOptions(const ArgParser& p, const char* command, int& exitCode);

} // namespace kwb::cli
