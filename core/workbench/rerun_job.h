#pragma once
// Record -> re-run job, under ONE rule set for every front end (kwb rerun,
// kwb verify, the window). In order:
//   1. the record's "candidate_spec" member (a path), else its source.path
//      when that is a candidate spec (*.json): loaded from the path as given,
//      else beside the record file;
//   2. a KernelBench sample (inline ModelNew source, records/leaderboard):
//      its problem from the record, else `kernelbenchDir` (PyTorch bridge);
//   3. a candidate spec of the index whose id is the record id, else the only
//      one whose source file has the record's source file name;
//   then the problem: the record's "problem_spec" member (a path), else the
//   index by the candidate's problem id (after adding the problems/ folders
//   beside the candidate's folder). The request is built and validated by
//   makeRerunRequest (sizes, tensors, launches) here, so a record that one
//   front end can re-run, every front end can.
// Reads spec files; thread-safe for distinct indexes.
#include <optional>
#include <string>

#include "base/status.h"
#include "records/eval_record.h"
#include "records/record_set.h"
#include "rerun/protocol.h"
#include "workbench/spec_index.h"

namespace kwb::workbench {

enum class ExecutorKind : std::uint8_t {
    Runner, // kwb-runner: NVRTC and shared-object candidates
    Bridge, // the PyTorch bridge: KernelBench samples
};
const char* executorKindName(ExecutorKind kind); // "kwb-runner", "PyTorch bridge"
ExecutorKind executorKindFor(const RerunRequest& request);

struct JobContext {
    std::string recordFile;     // the file the record came from (relative spec paths resolve beside it)
    std::string kernelbenchDir; // a KernelBench checkout for samples' problems (may be empty)
    std::string requestPrefix;  // request id = prefix + record id (e.g. "gui-")
};

struct RerunJob {
    std::string recordId;
    ExecutorKind executor = ExecutorKind::Runner;
    RerunRequest request; // validated; the candidate is request.candidate
};

// `index` may gain the problems/ folders beside a candidate spec found by
// path (that is why it is not const). NotFound says which rules were tried.
Result<RerunJob> resolveRerunJob(const EvalRecord& record, SpecIndex& index, const JobContext& context,
    const RerunOptions& options);

// The same without touching a shared index: folders beside a candidate are
// scanned into a private index when the shared one lacks the problem. For
// callers that share one index between threads (the window).
Result<RerunJob> resolveRerunJob(const EvalRecord& record, const SpecIndex& index, const JobContext& context,
    const RerunOptions& options);

// The file record `index` of `set` came from (records are in file order):
// what JobContext::recordFile needs for records of a loaded set.
std::string recordFileOf(const RecordSet& set, std::size_t index);

// A record member that holds a string, e.g. "candidate_spec"; nullopt when
// absent or not a string.
std::optional<std::string> recordStringMember(const EvalRecord& record, const char* key);

} // namespace kwb::workbench
