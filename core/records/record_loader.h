#pragma once
// Loads any mix of record files (native JSONL, KernelBench eval results,
// KernelBench baseline timings, leaderboard lists) and folders of them.
// Baseline tables are joined to the KernelBench eval records loaded with them.
#include <string>
#include <vector>

#include "base/progress.h"
#include "records/kernelbench_importer.h"
#include "records/record_set.h"

namespace kwb {

enum class RecordFormat { Auto, Native, KernelBenchEval, KernelBenchBaseline, Leaderboard };

const char* recordFormatName(RecordFormat f);
std::optional<RecordFormat> recordFormatFromName(std::string_view name);

struct RecordLoadOptions {
    RecordFormat format = RecordFormat::Auto;
    KernelBenchEvalOptions kernelbench;
    std::vector<std::string> baselineFiles; // extra baseline tables to join
};

// Sniffs the format from the name and the first bytes. Never fails: returns
// Auto when nothing matches, and the loader then reports why.
RecordFormat detectRecordFormat(const std::string& path, std::string_view head);

// Loads every file (folders are searched for *.json, *.jsonl, *.json.gz,
// *.jsonl.gz). A file that fails is reported in RecordSet::files and the
// others still load.
RecordSet loadRecordFiles(const std::vector<std::string>& paths, const RecordLoadOptions& options = {},
    const TaskContext& ctx = {});

// What a load's files did not give, one sentence each, for the CLI and the
// window alike: a KernelBench baseline timing file loaded without any
// eval_results.json holds timings, not evaluations (it names the file and how
// to pass both); files read that hold no records at all. Empty otherwise.
std::vector<std::string> recordLoadHints(const RecordSet& set);

} // namespace kwb
