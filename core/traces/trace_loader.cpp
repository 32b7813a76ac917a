#include "traces/trace_loader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/mapped_file.h"
#include "traces/kineto_reader.h"
#include "traces/nsys_reader.h"

namespace kwb {

TraceFileKind sniffTraceFile(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return TraceFileKind::Unknown;
    char head[64] = {};
    const std::size_t n = std::fread(head, 1, sizeof(head), f);
    std::fclose(f);
    const std::string_view h(head, n);
    if (h.starts_with(std::string_view("SQLite format 3\0", 16))) return TraceFileKind::NsysSqlite;
    if (looksGzipped(h)) return TraceFileKind::KinetoJsonGz;
    for (char c : h) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '{' || c == '[') return TraceFileKind::KinetoJson;
        break;
    }
    if (h.starts_with("\xEF\xBB\xBF")) return TraceFileKind::KinetoJson;
    return TraceFileKind::Unknown;
}

Result<TracePtr> loadTrace(const std::string& path, const TaskContext& ctx, const TraceLoadOptions& options)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return Status(ErrorCode::NotFound, std::string("cannot open: ") + std::strerror(errno), SourcePosition{path});
    std::fclose(f);
    switch (sniffTraceFile(path)) {
    case TraceFileKind::NsysSqlite: return readNsysSqlite(path, ctx, options.name);
    case TraceFileKind::KinetoJson:
    case TraceFileKind::KinetoJsonGz: return readKinetoTrace(path, ctx, options.name);
    case TraceFileKind::Unknown: break;
    }
    SourcePosition where{path};
    where.offset = 0;
    return Status(ErrorCode::Unsupported,
        "not a trace: neither Chrome-trace JSON (plain or gzip) nor an Nsight Systems SQLite export", where);
}

} // namespace kwb
