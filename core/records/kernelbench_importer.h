#pragma once
// Importers for files that KernelBench writes:
//  - runs/<run>/eval_results.json: v0 maps problem id -> one sample object;
//    later versions map problem id -> list of sample objects.
//  - results/timing/<GPU>/<config>.json: level -> "{id}_{Name}.py" -> stats (ms).
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "records/record_set.h"

namespace kwb {

struct KernelBenchEvalOptions {
    std::optional<std::int64_t> level; // eval_results.json does not say; else inferred from the path
    std::string model;                 // model configuration; default: the run name
    std::string run;                   // default: the folder holding the file
};

RecordSet importKernelBenchEval(std::string_view text, const std::string& fileName, const KernelBenchEvalOptions& options);
RecordSet loadKernelBenchEval(const std::string& path, const KernelBenchEvalOptions& options);

struct BaselineKey {
    std::int64_t level = 0;
    std::int64_t problemId = 0;
    auto operator<=>(const BaselineKey&) const = default;
};

struct BaselineEntry {
    std::string problemName; // "3_Batched_matrix_multiplication" (no .py)
    RuntimeStats stats;
};

// One baseline timing file.
struct BaselineTable {
    std::string file;
    std::string hardware; // folder name, e.g. "H100_Modal"
    std::string config;   // file stem, e.g. "baseline_time_torch"
    std::string name;     // "torch_eager" or "torch_compile" (from the config)
    std::map<BaselineKey, BaselineEntry> entries;
    std::size_t badEntries = 0;
    std::vector<Status> issues;

    const BaselineEntry* find(std::int64_t level, std::int64_t problemId) const;
};

Result<BaselineTable> parseKernelBenchBaseline(std::string_view text, const std::string& fileName);
Result<BaselineTable> loadKernelBenchBaseline(const std::string& path);

// Attaches the table's entry to each matching record (same level and problem id)
// and, where the record has none yet, computes the speedup over it.
// Returns the number of records joined.
std::size_t joinBaseline(std::span<EvalRecord> records, const BaselineTable& table);

// What KernelBench's evaluator wrote about one sample, read from the record's
// "kernelbench_metadata" field (the sample's "metadata" object, which the
// importer keeps verbatim, so native files written from an import keep it too):
// the parts a reader needs to judge an incorrect or failed sample.
struct KernelBenchSampleMetadata {
    std::optional<std::int64_t> trialsPassed; // "correctness_trials": "(3 / 5)"
    std::optional<std::int64_t> trialsTotal;
    std::vector<double> maxDifference; // per failed trial ("max_difference", strings or numbers)
    std::vector<double> avgDifference; // per failed trial ("avg_difference")
    std::string correctnessIssue;      // "Output mismatch", "Output shape mismatch: ..."
    std::string compilationError;
    std::string runtimeError;
    std::string otherError;
    std::string hardware;
    std::vector<std::pair<std::string, std::string>> other; // every other member, as text
    bool empty() const;
};

// nullopt when the record has no KernelBench metadata or it is not a JSON object.
std::optional<KernelBenchSampleMetadata> kernelBenchMetadata(const EvalRecord& record);

// "{id}_{Name}.py" -> (id, "{id}_{Name}"); nullopt when the name has no numeric prefix.
std::optional<std::pair<std::int64_t, std::string>> parseProblemFileName(std::string_view fileName);

} // namespace kwb
