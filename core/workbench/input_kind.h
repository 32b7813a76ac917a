#pragma once
// What an input file or folder is, in one place: the GUI's open and drop
// paths, the project loader, the record loader and the trace loader all ask
// here. Decides from the name and the first 4 KiB (inflated when gzipped);
// never reads a whole file.
//
// Thread: any; each call is independent. Never fails: a file it cannot open
// is Missing, one it does not recognise is Unknown.
#include <string>
#include <string_view>

namespace kwb {

enum class InputKind {
    Missing,             // no such path, or unreadable
    Folder,
    Unknown,
    NativeRecords,       // kwb JSON Lines (plain or .gz)
    KernelBenchEval,     // KernelBench eval_results.json (either shape)
    KernelBenchBaseline, // KernelBench baseline timing (pairs with eval results)
    Leaderboard,         // KernelBench leaderboard raw_data.json
    KinetoTrace,         // PyTorch profiler / Kineto Chrome-trace JSON
    KinetoTraceGz,       // the same, gzipped
    NsysSqlite,          // Nsight Systems SQLite export
    ProblemSpec,         // kwb.problem/1
    CandidateSpec,       // kwb.candidate/1
    Project,             // kwb.project/1
};

// Stable lower-case name ("kineto-trace", "kernelbench-eval", ...), for messages and tests.
const char* inputKindName(InputKind kind);

bool isRecordKind(InputKind kind);
bool isTraceKind(InputKind kind);
bool isSpecKind(InputKind kind);

// Reads the head of `path` (inflating gzip) and classifies it.
InputKind sniffInputKind(const std::string& path);

// Pure: classifies a file from its name and its first bytes, already inflated
// when the file is gzipped (`gzipped` says whether it was).
InputKind classifyInputHead(std::string_view fileName, std::string_view head, bool gzipped = false);

} // namespace kwb
