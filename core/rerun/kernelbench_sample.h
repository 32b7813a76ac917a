#pragma once
// KernelBench samples as re-run requests. A KernelBench sample is a Python
// module defining `ModelNew` (usually with CUDA built by torch's load_inline);
// it is checked against the `Model` of a KernelBench problem file
// (KernelBench/level{L}/{id}_{Name}.py: Model, get_inputs, get_init_inputs).
// The 413 leaderboard kernels are such samples. This file turns a record (or
// a sample file) plus its problem file into a RerunRequest with
// CandidateForm::KernelBenchSample, and finds the PyTorch bridge process that
// serves such requests behind the kwb.rerun/1 protocol
// (app/runner/bridge/kwb_torch_bridge.py, spawned through ProcessClient).
//
// Pure functions except where they read files or the environment (said
// below); thread-safe.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "records/eval_record.h"
#include "rerun/process_client.h"
#include "rerun/protocol.h"

namespace kwb {

// ReferenceSpec::builtin of a problem synthesised for a KernelBench sample:
// the reference is the problem file's own `Model`.
inline constexpr std::string_view kKernelBenchModelReference = "kernelbench_model";
// Name of the single output tensor of such a problem. Its shape is whatever
// Model returns (known only when the bridge runs it), so the spec leaves the
// shape empty.
inline constexpr std::string_view kKernelBenchOutputName = "output";

// True when the record carries inline Python source that defines ModelNew.
bool isKernelBenchSample(const EvalRecord& record);

struct KernelBenchProblemFile {
    std::string path;    // file it was read from (or a label for inline sources)
    std::string name;    // file stem, e.g. "39_L2Norm_"
    std::string source;  // Python text
    std::optional<std::int64_t> level;
    std::optional<std::int64_t> problemId;
};

// Reads a problem file; the level and id come from the path when it follows
// KernelBench's layout (.../level1/39_L2Norm_.py). Errors name the file and
// what is missing (Model, get_inputs, get_init_inputs).
Result<KernelBenchProblemFile> loadKernelBenchProblemFile(const std::string& path);

// The problem of (level, id) in a KernelBench checkout: DIR/KernelBench/level{L}/{id}_*.py,
// else DIR/level{L}/{id}_*.py (DIR being the KernelBench package folder itself).
// NotFound names every pattern looked at; two matches are an error too.
Result<KernelBenchProblemFile> findKernelBenchProblem(const std::string& kernelbenchDir, std::int64_t level,
    std::int64_t problemId);

// Problem and candidate specs for a sample; ids are made spec-safe
// ([A-Za-z0-9_.-]) from the given names.
ProblemSpec kernelBenchProblemSpec(const KernelBenchProblemFile& problem);
CandidateSpec kernelBenchCandidateSpec(const ProblemSpec& problem, const std::string& sampleId,
    const std::string& sampleSource, const std::string& displayName = {});

// A complete request for one sample (checks that the sample defines ModelNew
// and the problem defines Model, get_inputs and get_init_inputs).
Result<RerunRequest> kernelBenchRequest(const KernelBenchProblemFile& problem, const std::string& sampleId,
    const std::string& sampleSource, const RerunOptions& options = {}, const std::string& recordId = {});

struct KernelBenchSampleOptions {
    std::string kernelbenchDir; // a KernelBench checkout; empty: only the record's own problem
    RerunOptions rerun;
};

// The problem of a record: its own "problem_source" (Python text) or
// "problem_file" / "problem_path" (a path) extra fields first, then
// `kernelbenchDir` by the record's level and problem id. Reads files.
Result<KernelBenchProblemFile> problemForRecord(const EvalRecord& record, const std::string& kernelbenchDir);

// The number of the record's problem file in KernelBench's layout
// ({number}_{Name}.py): the record's problem.id. (The leaderboard's raw_data.json
// numbers problems from 0 — its samples for id 95 implement 96_HuberLoss.py —
// and its importer stores id + 1.)
std::optional<std::int64_t> kernelBenchFileNumber(const EvalRecord& record);

// A KernelBench record re-run against a problem file takes the file's name
// ("40_LayerNorm", read back from the re-run's problem id, which
// kernelBenchProblemSpec builds from it) when it has none, so that the
// projection maps it to kernel families without a checkout at hand (the
// leaderboard's records carry only level and number). kwb verify and
// kwb reflag both apply it.
void nameFromKernelBenchRerun(EvalRecord& record, const RerunResult& result);

// Request for a record that isKernelBenchSample(). Reads files.
Result<RerunRequest> kernelBenchRequestFromRecord(const EvalRecord& record, const KernelBenchSampleOptions& options);

// How to start the bridge: an interpreter and the script.
struct TorchBridgeCommand {
    std::string python; // absolute path of python3
    std::string script; // absolute path of kwb_torch_bridge.py
};

// python3: `python` when given (the caller's --python), else $KWB_PYTHON, else
// python3; a name without '/' is looked up on $PATH, as a shell would. The script:
// $KWB_TORCH_BRIDGE, else kwb_torch_bridge.py next to the running executable,
// in ../runner (build tree) or ../libexec/kwb. Reads the environment and the
// file system; NotFound says where it looked.
Result<TorchBridgeCommand> findTorchBridge(const std::string& python = {});

// ProcessClient options that spawn `python3 kwb_torch_bridge.py`. The start-up
// timeout is longer than kwb-runner's: importing torch takes seconds.
ProcessClientOptions torchBridgeClientOptions(const TorchBridgeCommand& command);

} // namespace kwb
