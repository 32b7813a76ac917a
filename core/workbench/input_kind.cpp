#include "workbench/input_kind.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace kwb {

namespace {

constexpr std::size_t kHeadBytes = 4096;

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string_view skipSpace(std::string_view s)
{
    if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

// The string value of the first top-level-looking "schema" member in the head, or "".
std::string_view schemaValue(std::string_view head)
{
    const auto at = head.find("\"schema\"");
    if (at == std::string_view::npos) return {};
    std::string_view rest = skipSpace(head.substr(at + 8));
    if (rest.empty() || rest.front() != ':') return {};
    rest = skipSpace(rest.substr(1));
    if (rest.empty() || rest.front() != '"') return {};
    rest.remove_prefix(1);
    const auto end = rest.find('"');
    return end == std::string_view::npos ? std::string_view{} : rest.substr(0, end);
}

std::string readHead(const std::string& path, bool& gzipped, bool& readable)
{
    readable = false;
    gzipped = false;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return {};
    std::array<char, 2> magic{};
    const std::size_t n = std::fread(magic.data(), 1, magic.size(), f);
    std::fclose(f);
    readable = true;
    gzipped = n == 2 && static_cast<unsigned char>(magic[0]) == 0x1f && static_cast<unsigned char>(magic[1]) == 0x8b;
    std::string head(kHeadBytes, '\0');
    if (gzipped) {
        gzFile gz = gzopen(path.c_str(), "rb");
        if (!gz) return {};
        const int got = gzread(gz, head.data(), static_cast<unsigned>(head.size()));
        gzclose(gz);
        head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
        return head;
    }
    f = std::fopen(path.c_str(), "rb");
    if (!f) return {};
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
    return head;
}

} // namespace

const char* inputKindName(InputKind kind)
{
    switch (kind) {
    case InputKind::Missing: return "missing";
    case InputKind::Folder: return "folder";
    case InputKind::Unknown: return "unknown";
    case InputKind::NativeRecords: return "kwb-jsonl";
    case InputKind::KernelBenchEval: return "kernelbench-eval";
    case InputKind::KernelBenchBaseline: return "kernelbench-baseline";
    case InputKind::Leaderboard: return "leaderboard";
    case InputKind::KinetoTrace: return "kineto-trace";
    case InputKind::KinetoTraceGz: return "kineto-trace-gz";
    case InputKind::NsysSqlite: return "nsys-sqlite";
    case InputKind::ProblemSpec: return "problem-spec";
    case InputKind::CandidateSpec: return "candidate-spec";
    case InputKind::Project: return "project";
    }
    return "unknown";
}

bool isRecordKind(InputKind kind)
{
    return kind == InputKind::NativeRecords || kind == InputKind::KernelBenchEval ||
           kind == InputKind::KernelBenchBaseline || kind == InputKind::Leaderboard;
}

bool isTraceKind(InputKind kind)
{
    return kind == InputKind::KinetoTrace || kind == InputKind::KinetoTraceGz || kind == InputKind::NsysSqlite;
}

bool isSpecKind(InputKind kind)
{
    return kind == InputKind::ProblemSpec || kind == InputKind::CandidateSpec;
}

InputKind classifyInputHead(std::string_view fileName, std::string_view head, bool gzipped)
{
    if (head.starts_with(std::string_view("SQLite format 3\0", 16))) return InputKind::NsysSqlite;
    std::string name = lower(fileName);
    if (endsWith(name, ".gz")) name.resize(name.size() - 3);
    const std::string_view schema = schemaValue(head);
    if (schema.starts_with("kwb.project/") || endsWith(name, ".kwbproject.json")) return InputKind::Project;
    if (schema.starts_with("kwb.problem/")) return InputKind::ProblemSpec;
    if (schema.starts_with("kwb.candidate/")) return InputKind::CandidateSpec;
    if (endsWith(name, ".jsonl") || endsWith(name, ".ndjson")) return InputKind::NativeRecords;
    const auto trace = gzipped ? InputKind::KinetoTraceGz : InputKind::KinetoTrace;
    if (endsWith(name, ".pt.trace.json")) return trace;

    const std::string_view body = skipSpace(head);
    if (body.empty()) return InputKind::Unknown;
    if (body.front() == '[') return InputKind::Leaderboard;
    if (body.front() != '{') return InputKind::Unknown;
    // Kineto's members (traceEvents, schemaVersion, deviceProperties, ...) come
    // in no fixed order; any of them in the head makes it a trace.
    if (contains(head, "\"traceEvents\"") || contains(head, "\"schemaVersion\"") ||
        contains(head, "\"deviceProperties\"") || contains(head, "\"displayTimeUnit\""))
        return trace;
    // The native format's first member is "schema"; KernelBench files start with
    // "levelN" (baselines) or a problem id (eval results).
    const std::string_view inner = skipSpace(body.substr(1));
    if (inner.starts_with("\"schema\"")) return InputKind::NativeRecords;
    if (inner.starts_with("\"level")) return InputKind::KernelBenchBaseline;
    if (inner.size() > 1 && inner[0] == '"' && inner[1] >= '0' && inner[1] <= '9') return InputKind::KernelBenchEval;
    if (inner.starts_with("}")) return InputKind::KernelBenchEval; // "{}": an empty eval run
    if (schema.starts_with("kwb.record/")) return InputKind::NativeRecords;
    return InputKind::Unknown;
}

InputKind sniffInputKind(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) return InputKind::Missing;
    if (std::filesystem::is_directory(status)) return InputKind::Folder;
    bool gzipped = false;
    bool readable = false;
    const std::string head = readHead(path, gzipped, readable);
    if (!readable) return InputKind::Missing;
    return classifyInputHead(std::filesystem::path(path).filename().string(), head, gzipped);
}

} // namespace kwb
