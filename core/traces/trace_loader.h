#pragma once
// One entry point for every trace format. Sniffs the content (SQLite magic,
// gzip magic, JSON object) rather than trusting the extension.
//
// Thread: any; each call is independent. Errors: a file that cannot be read,
// a corrupt gzip stream, a truncated or malformed JSON document, or a file that
// is not a trace come back as a Status naming the file, the byte offset (and
// line:column where known) and the reason. Bad single events do not fail the
// load: they are counted in Trace::report().
#include <memory>
#include <string>

#include "base/progress.h"
#include "base/status.h"
#include "traces/trace.h"

namespace kwb {

enum class TraceFileKind { Unknown, KinetoJson, KinetoJsonGz, NsysSqlite };

// From the first bytes of the file.
TraceFileKind sniffTraceFile(const std::string& path);

struct TraceLoadOptions {
    std::string name; // workload name; empty = from the file name
};

// Progress stage "Reading trace", done/total in input bytes; honours ctx.cancel.
Result<TracePtr> loadTrace(const std::string& path, const TaskContext& ctx = {},
    const TraceLoadOptions& options = {});

} // namespace kwb
