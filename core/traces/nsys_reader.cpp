#include "traces/nsys_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "base/checked_int.h"
#include "base/input_limits.h"

namespace kwb {

namespace {

// Hard cap on SQLite's heap while a trace is read: a crafted query (a
// recursive CTE behind a view) cannot grow without bound.
constexpr sqlite3_int64 kSqliteHeapLimit = sqlite3_int64(1) << 30;

struct DbCloser {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtCloser {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtCloser>;

class NsysReader {
public:
    NsysReader(std::string path, const TaskContext& ctx) : m_path(std::move(path)), m_ctx(ctx), m_builder(m_path, TraceFormat::NsysSqlite) {}
    Result<TracePtr> run();
    void setName(const std::string& name) { m_builder.setName(name); }

private:
    Status error(const std::string& what) const
    {
        std::string msg = what;
        if (m_db) msg += std::string(": ") + sqlite3_errmsg(m_db.get());
        return Status(ErrorCode::ParseError, msg, SourcePosition{m_path});
    }
    Result<Stmt> prepare(const std::string& sql);
    bool hasTable(const std::string& table);
    Status checkIsTable(const std::string& table);
    Status stepFailed(const std::string& table, int rc);
    void badRow(const std::string& table, std::int64_t row, const char* member, const std::string& reason);
    bool validTimes(sqlite3_stmt* s, int startCol, int endCol, const std::string& table, std::int64_t row, bool needEnd = true);
    Status countRow(const std::string& table, std::int64_t row);
    static int onProgress(void* self);
    std::set<std::string> columns(const std::string& table);
    Status loadStrings();
    std::string_view stringOf(sqlite3_stmt* s, int col, bool* found = nullptr);
    Status readKernels();
    Status readMemory(const std::string& table, ActivityKind kind);
    Status readRuntime();
    Status readNvtx();
    Status readDevices();
    std::int32_t thread(std::int64_t globalTid);

    std::string m_path;
    const TaskContext& m_ctx;
    TraceBuilder m_builder;
    Db m_db;
    std::unordered_map<std::int64_t, std::string> m_strings;
    std::unordered_map<std::int64_t, std::int32_t> m_threads;
    std::string m_textScratch;
    InputLimits m_limits = inputLimits();
    std::chrono::steady_clock::time_point m_deadline;
    bool m_timedOut = false;
};

// Called by SQLite every few thousand virtual-machine steps: a non-zero
// return interrupts the statement, which then fails with SQLITE_INTERRUPT.
int NsysReader::onProgress(void* self)
{
    auto* r = static_cast<NsysReader*>(self);
    if (std::chrono::steady_clock::now() > r->m_deadline) {
        r->m_timedOut = true;
        return 1;
    }
    return r->m_ctx.cancelled() ? 1 : 0;
}

Status NsysReader::stepFailed(const std::string& table, int rc)
{
    if (m_timedOut)
        return Status(ErrorCode::Timeout,
            "reading " + table + " took longer than " + std::to_string(m_limits.sqliteTimeoutSeconds)
                + " s (the limit is KWB_SQLITE_TIMEOUT_S)",
            SourcePosition{m_path});
    if (m_ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled", SourcePosition{m_path});
    if (rc == SQLITE_TOOBIG)
        return Status(ErrorCode::SchemaError,
            "a value in " + table + " is longer than " + describeByteLimit(static_cast<std::uint64_t>(m_limits.sqliteMaxStringBytes), "KWB_SQLITE_MAX_STRING_KB"),
            SourcePosition{m_path});
    return error("reading " + table + " failed");
}

// The activity tables must be tables: a VIEW can compute anything (an endless
// recursive query, huge strings) from an 8 KB file.
Status NsysReader::checkIsTable(const std::string& table)
{
    auto st = prepare("SELECT type FROM sqlite_master WHERE name = ?1");
    if (!st.isOk()) return st.status();
    sqlite3_bind_text(st->get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st->get()) != SQLITE_ROW) return {};
    const auto* type = reinterpret_cast<const char*>(sqlite3_column_text(st->get(), 0));
    if (type && std::string_view(type) == "table") return {};
    return Status(ErrorCode::SchemaError,
        table + " is a " + (type ? std::string(type) : std::string("non-table")) + ", not a table: refused (an Nsight Systems export stores activities in tables)",
        SourcePosition{m_path, 0, 0, -1, table});
}

void NsysReader::badRow(const std::string& table, std::int64_t row, const char* member, const std::string& reason)
{
    auto& r = m_builder.report();
    ++r.badEvents;
    if (r.issues.size() >= kMaxTraceIssues) return;
    SourcePosition where{m_path};
    where.path = table + " row " + std::to_string(row) + (member ? std::string(".") + member : std::string());
    r.issues.emplace_back(ErrorCode::SchemaError, reason, std::move(where));
}

// start/end columns: integers within ±kMaxTimeNs, end not before start.
bool NsysReader::validTimes(sqlite3_stmt* s, int startCol, int endCol, const std::string& table, std::int64_t row, bool needEnd)
{
    if (sqlite3_column_type(s, startCol) != SQLITE_INTEGER) {
        badRow(table, row, "start", "\"start\" is not an integer (NULL, text or real)");
        return false;
    }
    const std::int64_t start = sqlite3_column_int64(s, startCol);
    if (!timeInRange(start)) {
        badRow(table, row, "start", "\"start\" is outside ±4e18 ns: " + std::to_string(start));
        return false;
    }
    if (!needEnd) return true;
    if (sqlite3_column_type(s, endCol) != SQLITE_INTEGER) {
        badRow(table, row, "end", "\"end\" is not an integer (NULL, text or real)");
        return false;
    }
    const std::int64_t end = sqlite3_column_int64(s, endCol);
    if (!timeInRange(end) || end < start) {
        badRow(table, row, "end", "\"end\" is before \"start\" or outside ±4e18 ns: " + std::to_string(end));
        return false;
    }
    return true;
}

Status NsysReader::countRow(const std::string& table, std::int64_t row)
{
    if (row > m_limits.sqliteMaxRows)
        return Status(ErrorCode::SchemaError,
            table + " has more than " + std::to_string(m_limits.sqliteMaxRows) + " rows (the limit is KWB_SQLITE_MAX_ROWS)",
            SourcePosition{m_path, 0, 0, -1, table});
    if ((row & 0xFFFF) == 0) {
        m_ctx.report("Reading " + table, row, 0);
        if (m_ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled", SourcePosition{m_path});
    }
    return {};
}

Result<Stmt> NsysReader::prepare(const std::string& sql)
{
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(m_db.get(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) return error("cannot query (" + sql + ")");
    return Stmt(raw);
}

bool NsysReader::hasTable(const std::string& table)
{
    auto st = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1");
    if (!st.isOk()) return false;
    sqlite3_bind_text(st->get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    return sqlite3_step(st->get()) == SQLITE_ROW;
}

std::set<std::string> NsysReader::columns(const std::string& table)
{
    std::set<std::string> out;
    auto st = prepare("PRAGMA table_info(\"" + table + "\")");
    if (!st.isOk()) return out;
    while (sqlite3_step(st->get()) == SQLITE_ROW) {
        if (auto* t = sqlite3_column_text(st->get(), 1)) out.insert(reinterpret_cast<const char*>(t));
    }
    return out;
}

Status NsysReader::loadStrings()
{
    if (!hasTable("StringIds")) {
        m_builder.report().notes.push_back("no StringIds table: names stored inline");
        return {};
    }
    KWB_RETURN_IF_ERROR(checkIsTable("StringIds"));
    KWB_ASSIGN_OR_RETURN(Stmt st, prepare("SELECT id, value FROM StringIds"));
    std::int64_t row = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
        KWB_RETURN_IF_ERROR(countRow("StringIds", ++row));
        const auto* t = sqlite3_column_text(st.get(), 1);
        if (!t) {
            badRow("StringIds", row, "value", "string is NULL");
            continue;
        }
        m_strings.emplace(sqlite3_column_int64(st.get(), 0),
            std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(st.get(), 1))));
    }
    if (rc != SQLITE_DONE) return stepFailed("StringIds", rc);
    return {};
}

// A name column holds either a StringIds id or the text itself.
std::string_view NsysReader::stringOf(sqlite3_stmt* s, int col, bool* found)
{
    if (found) *found = true;
    switch (sqlite3_column_type(s, col)) {
    case SQLITE_INTEGER: {
        auto it = m_strings.find(sqlite3_column_int64(s, col));
        if (it != m_strings.end()) return it->second;
        break;
    }
    case SQLITE_TEXT: {
        const auto* t = sqlite3_column_text(s, col);
        m_textScratch.assign(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(s, col)));
        return m_textScratch;
    }
    default: break;
    }
    if (found) *found = false;
    return {};
}

std::int32_t NsysReader::thread(std::int64_t globalTid)
{
    auto [it, inserted] = m_threads.emplace(globalTid, static_cast<std::int32_t>(m_threads.size()));
    return it->second;
}

// "expr AS alias" for an optional column: the column if present, else a constant.
std::string optionalColumn(const std::set<std::string>& cols, const char* name, const char* fallback = "NULL")
{
    return cols.count(name) ? std::string("\"") + name + "\"" : std::string(fallback);
}

Status NsysReader::readKernels()
{
    const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!hasTable(table)) {
        return Status(ErrorCode::SchemaError,
            "not an Nsight Systems trace with GPU activity: no " + table + " table (was CUDA tracing on?)",
            SourcePosition{m_path});
    }
    const auto cols = columns(table);
    if (!cols.count("start") || !cols.count("end"))
        return Status(ErrorCode::SchemaError, table + " has no start/end columns", SourcePosition{m_path});
    std::string nameCol;
    for (const char* c : {"demangledName", "shortName", "mangledName", "name"}) {
        if (cols.count(c)) {
            nameCol = c;
            break;
        }
    }
    if (nameCol.empty())
        return Status(ErrorCode::SchemaError, table + " has no name column (demangledName, shortName, mangledName or name)",
            SourcePosition{m_path});
    if (nameCol != "demangledName") m_builder.report().notes.push_back("kernel names from " + nameCol);
    const std::string sql = "SELECT start, end, " + optionalColumn(cols, "deviceId") + ", " + optionalColumn(cols, "streamId")
        + ", " + optionalColumn(cols, "correlationId") + ", \"" + nameCol + "\", " + optionalColumn(cols, "gridX", "0") + ", "
        + optionalColumn(cols, "gridY", "0") + ", " + optionalColumn(cols, "gridZ", "0") + ", "
        + optionalColumn(cols, "blockX", "0") + ", " + optionalColumn(cols, "blockY", "0") + ", "
        + optionalColumn(cols, "blockZ", "0") + " FROM " + table;
    KWB_RETURN_IF_ERROR(checkIsTable(table));
    KWB_ASSIGN_OR_RETURN(Stmt st, prepare(sql));
    std::int64_t row = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
        ++row;
        KWB_RETURN_IF_ERROR(countRow(table, row));
        ++m_builder.report().eventsSeen;
        sqlite3_stmt* s = st.get();
        if (!validTimes(s, 0, 1, table, row)) continue;
        bool named = false;
        const std::string_view name = stringOf(s, 5, &named);
        if (!named) {
            badRow(table, row, nameCol.c_str(), "kernel name is NULL or names no StringIds row");
            continue;
        }
        GpuActivity a;
        a.kind = ActivityKind::Kernel;
        a.startNs = sqlite3_column_int64(s, 0);
        a.durationNs = sqlite3_column_int64(s, 1) - a.startNs;
        a.device = static_cast<std::int16_t>(sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2));
        a.stream = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3);
        a.correlation = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 4);
        a.name = m_builder.intern(name);
        for (int i = 0; i < 3; ++i) {
            a.grid[i] = static_cast<std::uint32_t>(std::max<std::int64_t>(0, sqlite3_column_int64(s, 6 + i)));
            a.block[i] = static_cast<std::uint32_t>(std::max<std::int64_t>(0, sqlite3_column_int64(s, 9 + i)));
        }
        m_builder.addActivity(a);
    }
    if (rc != SQLITE_DONE) return stepFailed(table, rc);
    return {};
}

const char* copyKindName(std::int64_t kind)
{
    // CUpti_ActivityMemcpyKind
    switch (kind) {
    case 1: return "Memcpy HtoD";
    case 2: return "Memcpy DtoH";
    case 3: return "Memcpy HtoA";
    case 4: return "Memcpy AtoH";
    case 5: return "Memcpy AtoA";
    case 6: return "Memcpy AtoD";
    case 7: return "Memcpy DtoA";
    case 8: return "Memcpy DtoD";
    case 9: return "Memcpy HtoH";
    case 10: return "Memcpy PtoP";
    default: return "Memcpy";
    }
}

Status NsysReader::readMemory(const std::string& table, ActivityKind kind)
{
    if (!hasTable(table)) {
        m_builder.report().notes.push_back("no " + table + " table");
        return {};
    }
    const auto cols = columns(table);
    if (!cols.count("start") || !cols.count("end")) {
        m_builder.report().notes.push_back(table + " has no start/end columns: skipped");
        return {};
    }
    const std::string sql = "SELECT start, end, " + optionalColumn(cols, "deviceId") + ", " + optionalColumn(cols, "streamId")
        + ", " + optionalColumn(cols, "correlationId") + ", " + optionalColumn(cols, "copyKind", "0") + " FROM " + table;
    KWB_RETURN_IF_ERROR(checkIsTable(table));
    KWB_ASSIGN_OR_RETURN(Stmt st, prepare(sql));
    std::int64_t row = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
        sqlite3_stmt* s = st.get();
        KWB_RETURN_IF_ERROR(countRow(table, ++row));
        ++m_builder.report().eventsSeen;
        if (!validTimes(s, 0, 1, table, row)) continue;
        GpuActivity a;
        a.kind = kind;
        a.startNs = sqlite3_column_int64(s, 0);
        a.durationNs = sqlite3_column_int64(s, 1) - a.startNs;
        a.device = static_cast<std::int16_t>(sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2));
        a.stream = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3);
        a.correlation = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 4);
        a.name = m_builder.intern(kind == ActivityKind::Memcpy ? copyKindName(sqlite3_column_int64(s, 5)) : "Memset");
        m_builder.addActivity(a);
    }
    if (rc != SQLITE_DONE) return stepFailed(table, rc);
    return {};
}

Status NsysReader::readRuntime()
{
    const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!hasTable(table)) return {};
    const auto cols = columns(table);
    if (!cols.count("correlationId") || !cols.count("start") || !cols.count("globalTid")) return {};
    KWB_RETURN_IF_ERROR(checkIsTable(table));
    KWB_ASSIGN_OR_RETURN(Stmt st, prepare("SELECT correlationId, globalTid, start FROM " + table));
    std::int64_t row = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
        sqlite3_stmt* s = st.get();
        KWB_RETURN_IF_ERROR(countRow(table, ++row));
        if (!validTimes(s, 2, -1, table, row, false)) continue;
        m_builder.addRuntimeLaunch(sqlite3_column_int64(s, 0), -1, thread(sqlite3_column_int64(s, 1)), sqlite3_column_int64(s, 2));
    }
    if (rc != SQLITE_DONE) return stepFailed(table, rc);
    return {};
}

Status NsysReader::readNvtx()
{
    const std::string table = "NVTX_EVENTS";
    if (!hasTable(table)) return {};
    const auto cols = columns(table);
    if (!cols.count("start") || !cols.count("end") || !cols.count("globalTid")) return {};
    const std::string textExpr = cols.count("textId") && cols.count("text") ? "COALESCE(textId, text)"
        : cols.count("textId")                                                ? "textId"
        : cols.count("text")                                                  ? "text"
                                                                              : "NULL";
    // Push/pop (59) and start/end (60) ranges; marks and domain rows have no end.
    const std::string where = cols.count("eventType") ? " WHERE eventType IN (59, 60) AND end IS NOT NULL" : " WHERE end IS NOT NULL";
    KWB_RETURN_IF_ERROR(checkIsTable(table));
    KWB_ASSIGN_OR_RETURN(Stmt st, prepare("SELECT start, end, globalTid, " + textExpr + " FROM " + table + where));
    std::int64_t row = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
        sqlite3_stmt* s = st.get();
        KWB_RETURN_IF_ERROR(countRow(table, ++row));
        if (!validTimes(s, 0, 1, table, row)) continue;
        CpuOp op;
        op.startNs = sqlite3_column_int64(s, 0);
        op.durationNs = sqlite3_column_int64(s, 1) - op.startNs;
        op.thread = thread(sqlite3_column_int64(s, 2));
        const std::string_view name = stringOf(s, 3);
        op.annotation = !name.starts_with("aten::");
        if (name.starts_with("ProfilerStep#")) {
            m_builder.addStep(StepRange{op.startNs, op.endNs(), m_builder.intern(name)});
            continue;
        }
        op.name = m_builder.intern(name);
        m_builder.addOp(op);
    }
    if (rc != SQLITE_DONE) return stepFailed(table, rc);
    return {};
}

Status NsysReader::readDevices()
{
    const std::string table = "TARGET_INFO_GPU";
    if (!hasTable(table)) return {};
    const auto cols = columns(table);
    const std::string sql = "SELECT " + optionalColumn(cols, "id", "0") + ", " + optionalColumn(cols, "name", "''") + ", "
        + optionalColumn(cols, "computeMajor", "0") + ", " + optionalColumn(cols, "computeMinor", "0") + ", "
        + optionalColumn(cols, "totalMemory", "0") + ", " + optionalColumn(cols, "smCount", "0") + " FROM " + table;
    KWB_RETURN_IF_ERROR(checkIsTable(table));
    KWB_ASSIGN_OR_RETURN(Stmt st, prepare(sql));
    std::int64_t row = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
        sqlite3_stmt* s = st.get();
        KWB_RETURN_IF_ERROR(countRow(table, ++row));
        TraceDevice d;
        d.id = sqlite3_column_int(s, 0);
        d.name = std::string(stringOf(s, 1));
        d.computeMajor = sqlite3_column_int(s, 2);
        d.computeMinor = sqlite3_column_int(s, 3);
        d.totalMemoryBytes = sqlite3_column_int64(s, 4);
        d.smCount = sqlite3_column_int(s, 5);
        m_builder.addDevice(std::move(d));
    }
    if (rc != SQLITE_DONE) return stepFailed(table, rc);
    return {};
}

Result<TracePtr> NsysReader::run()
{
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(m_path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    m_db.reset(raw);
    if (rc != SQLITE_OK) return error("cannot open as SQLite");
    // The file is untrusted: no writes, no schema-defined functions, bounded
    // strings and statements, bounded heap, and a deadline checked while
    // statements run.
    sqlite3* db = m_db.get();
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, static_cast<int>(m_limits.sqliteMaxStringBytes));
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 200);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 50);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_hard_heap_limit64(kSqliteHeapLimit);
    m_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(m_limits.sqliteTimeoutSeconds);
    sqlite3_progress_handler(db, 10000, &NsysReader::onProgress, this);
    sqlite3_exec(db, "PRAGMA query_only = 1", nullptr, nullptr, nullptr);
    // A file that is not SQLite fails at the first query, not at open.
    if (!prepare("SELECT name FROM sqlite_master LIMIT 1").isOk()) return error("not an SQLite database");
    m_ctx.report("Reading trace", 0, 0);
    KWB_RETURN_IF_ERROR(loadStrings());
    KWB_RETURN_IF_ERROR(readKernels());
    KWB_RETURN_IF_ERROR(readMemory("CUPTI_ACTIVITY_KIND_MEMCPY", ActivityKind::Memcpy));
    KWB_RETURN_IF_ERROR(readMemory("CUPTI_ACTIVITY_KIND_MEMSET", ActivityKind::Memset));
    KWB_RETURN_IF_ERROR(readRuntime());
    KWB_RETURN_IF_ERROR(readNvtx());
    KWB_RETURN_IF_ERROR(readDevices());
    m_strings.clear();
    KWB_RETURN_IF_ERROR(m_builder.checkTimes());
    return m_builder.finish();
}

} // namespace

Result<TracePtr> readNsysSqlite(const std::string& path, const TaskContext& ctx, const std::string& name)
{
    NsysReader reader(path, ctx);
    if (!name.empty()) reader.setName(name);
    return reader.run();
}

} // namespace kwb
