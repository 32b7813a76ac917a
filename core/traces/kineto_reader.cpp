#include "traces/kineto_reader.h"

#include <sys/mman.h>
#include <unistd.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/byte_stream.h"
#include "base/checked_int.h"
#include "base/input_limits.h"
#include "base/json_scanner.h"
#include "base/mapped_file.h"

namespace kwb {

namespace {

using jscan::Cursor;
using jscan::is;
using jscan::Scan;
using jscan::StrTok;
using jscan::decode;
using jscan::forEachMember;
using jscan::isWs;
using jscan::scanNumber;
using jscan::scanString;
using jscan::skipValue;
using jscan::skipWs;

constexpr std::size_t kChunk = 4u << 20;

std::optional<std::int64_t> toInt(std::string_view t)
{
    return jscan::numberToInt64(t);
}


// µs (integer, fractional or exponent form) to integer ns, rounded; nullopt
// unless a valid number whose ns value lies within ±kMaxTimeNs. Every form
// obeys the same range, so 9.1e15 fails exactly as 9100000000000000 does.
std::optional<std::int64_t> usToNs(std::string_view t)
{
    std::size_t i = 0;
    bool neg = false;
    if (i < t.size() && t[i] == '-') {
        neg = true;
        ++i;
    }
    constexpr std::uint64_t kMaxUs = static_cast<std::uint64_t>(kMaxTimeNs) / 1000;
    std::uint64_t whole = 0;
    std::size_t digits = 0;
    for (; i < t.size() && jscan::isDigit(t[i]); ++i, ++digits) {
        whole = whole * 10 + static_cast<std::uint64_t>(t[i] - '0');
        if (whole > kMaxUs) return std::nullopt;
    }
    std::uint64_t frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < t.size() && t[i] == '.') {
        ++i;
        for (; i < t.size() && jscan::isDigit(t[i]); ++i, ++digits) {
            if (fracDigits < 3) {
                frac = frac * 10 + static_cast<std::uint64_t>(t[i] - '0');
                ++fracDigits;
            } else if (fracDigits == 3) {
                roundUp = t[i] >= '5';
                ++fracDigits;
            }
        }
    }
    if (digits == 0) return std::nullopt;
    if (i != t.size()) {
        // Exponent form: rare, take the slow path, under the same bound.
        const std::string tmp(t);
        char* endp = nullptr;
        const double ns = std::strtod(tmp.c_str(), &endp) * 1000.0;
        if (endp != tmp.c_str() + tmp.size()) return std::nullopt;
        if (!(ns >= -static_cast<double>(kMaxTimeNs) && ns <= static_cast<double>(kMaxTimeNs))) return std::nullopt;
        return static_cast<std::int64_t>(ns + (ns >= 0 ? 0.5 : -0.5));
    }
    for (int k = std::min(fracDigits, 3); k < 3; ++k) frac *= 10;
    const auto ns = static_cast<std::int64_t>(whole * 1000 + frac + (roundUp ? 1 : 0));
    if (ns > kMaxTimeNs) return std::nullopt;
    return neg ? -ns : ns;
}

struct Scalar {
    std::string_view number; // set when a number
    StrTok string;           // set when a string
    bool isString = false;
    bool present = false;
};

Scan scanScalar(Cursor& c, Scalar& out)
{
    out.present = true;
    if (*c.p == '"') {
        out.isString = true;
        return scanString(c, out.string);
    }
    if (*c.p == '-' || (*c.p >= '0' && *c.p <= '9')) return scanNumber(c, out.number);
    out.present = false;
    return skipValue(c);
}

Scan scanDims(Cursor& c, std::uint32_t dims[3], bool& present)
{
    if (*c.p != '[') return skipValue(c);
    ++c.p;
    int i = 0;
    for (;;) {
        KWB_SCAN(skipWs(c));
        if (*c.p == ']') {
            ++c.p;
            present = true;
            return Scan::Ok;
        }
        std::string_view num;
        if (*c.p == '-' || (*c.p >= '0' && *c.p <= '9')) {
            KWB_SCAN(scanNumber(c, num));
            if (auto v = toInt(num); v && i < 3 && *v >= 0 && *v <= 0xFFFFFFFFll) dims[i] = static_cast<std::uint32_t>(*v);
        } else {
            KWB_SCAN(skipValue(c));
        }
        ++i;
        KWB_SCAN(skipWs(c));
        if (*c.p == ',') ++c.p;
        else if (*c.p != ']') return c.bad(c.p, "expected ',' or ']' in an array");
    }
}

struct RawEvent {
    StrTok ph, cat, name;
    Scalar pid, tid, id;
    std::string_view ts, dur;
    std::string_view externalId, correlation, device, stream;
    std::uint32_t grid[3] = {0, 0, 0};
    std::uint32_t block[3] = {0, 0, 0};
    bool hasPh = false, hasCat = false, hasName = false, hasGrid = false, hasBlock = false;
    // Members present with a type the reader cannot use: reported, never dropped silently.
    const char* wrongType = nullptr;

    // Field by field: cheaper per event than assigning a fresh RawEvent.
    void reset()
    {
        pid.present = tid.present = id.present = false;
        pid.isString = tid.isString = id.isString = false;
        pid.number = tid.number = id.number = {};
        ts = dur = externalId = correlation = device = stream = {};
        grid[0] = grid[1] = grid[2] = block[0] = block[1] = block[2] = 0;
        hasPh = hasCat = hasName = hasGrid = hasBlock = false;
        wrongType = nullptr;
    }
};

Scan scanArgs(Cursor& c, RawEvent& ev)
{
    if (*c.p != '{') return skipValue(c);
    return forEachMember(c, [&](std::string_view key, Cursor& cc) -> Scan {
        const char ch = *cc.p;
        const bool isNum = ch == '-' || (ch >= '0' && ch <= '9');
        switch (key.size()) {
        case 4: if (is(key, "grid")) return scanDims(cc, ev.grid, ev.hasGrid); break;
        case 5: if (is(key, "block")) return scanDims(cc, ev.block, ev.hasBlock); break;
        case 6:
            if (isNum && is(key, "device")) return scanNumber(cc, ev.device);
            if (isNum && is(key, "stream")) return scanNumber(cc, ev.stream);
            break;
        case 11:
            if (isNum && is(key, "External id")) return scanNumber(cc, ev.externalId);
            if (isNum && is(key, "correlation")) return scanNumber(cc, ev.correlation);
            break;
        default: break;
        }
        if (isNum) {
            std::string_view ignored;
            return scanNumber(cc, ignored);
        }
        return skipValue(cc);
    });
}

// A number, or a number some exporters write in quotes, as its text.
Scan scanNumberText(Cursor& c, std::string_view& out, RawEvent& ev, const char* member)
{
    const char ch = *c.p;
    if (ch == '"') {
        StrTok t;
        KWB_SCAN(scanString(c, t));
        out = t.raw();
        if (out.empty()) ev.wrongType = member;
        return Scan::Ok;
    }
    if (ch == '-' || jscan::isDigit(ch)) return scanNumber(c, out);
    ev.wrongType = member;
    return skipValue(c);
}

// A member that must be a string; anything else is noted as a wrong type.
Scan scanStringMember(Cursor& c, StrTok& out, bool& has, RawEvent& ev, const char* member)
{
    if (*c.p == '"') {
        has = true;
        return scanString(c, out);
    }
    ev.wrongType = member;
    return skipValue(c);
}

Scan scanEvent(Cursor& c, RawEvent& ev)
{
    return forEachMember(c, [&](std::string_view key, Cursor& cc) -> Scan {
        switch (key.size()) {
        case 2:
            if (is(key, "ph")) return scanStringMember(cc, ev.ph, ev.hasPh, ev, "ph");
            if (is(key, "ts")) return scanNumberText(cc, ev.ts, ev, "ts");
            if (is(key, "id")) return scanScalar(cc, ev.id);
            break;
        case 3:
            if (is(key, "cat")) return scanStringMember(cc, ev.cat, ev.hasCat, ev, "cat");
            if (is(key, "pid")) return scanScalar(cc, ev.pid);
            if (is(key, "tid")) return scanScalar(cc, ev.tid);
            if (is(key, "dur")) return scanNumberText(cc, ev.dur, ev, "dur");
            break;
        case 4:
            if (is(key, "name")) return scanStringMember(cc, ev.name, ev.hasName, ev, "name");
            if (is(key, "args")) return scanArgs(cc, ev);
            break;
        default: break;
        }
        return skipValue(cc);
    });
}

enum class Cat : std::uint8_t { Other, Kernel, Memcpy, Memset, CpuOp, Annotation, Runtime, Flow };

Cat classify(std::string_view cat)
{
    // Both the current spelling and the one of PyTorch 1.8-1.10.
    switch (cat.size()) {
    case 4: if (is(cat, "ac2g")) return Cat::Flow; break;
    case 6:
        if (is(cat, "kernel") || is(cat, "Kernel")) return Cat::Kernel;
        if (is(cat, "cpu_op")) return Cat::CpuOp;
        if (is(cat, "Memcpy")) return Cat::Memcpy;
        if (is(cat, "Memset")) return Cat::Memset;
        break;
    case 7: if (is(cat, "Runtime") || is(cat, "runtime")) return Cat::Runtime; break;
    case 8: if (is(cat, "Operator") || is(cat, "operator")) return Cat::CpuOp; break;
    case 10: if (is(cat, "gpu_memcpy")) return Cat::Memcpy; if (is(cat, "gpu_memset")) return Cat::Memset; break;
    case 11: if (is(cat, "cuda_driver")) return Cat::Runtime; break;
    case 12: if (is(cat, "cuda_runtime")) return Cat::Runtime; break;
    case 15: if (is(cat, "user_annotation")) return Cat::Annotation; break;
    default: break;
    }
    return Cat::Other;
}

// ---------------------------------------------------------------- the reader

// Newlines in [p, p+n), eight bytes at a time: every byte of the input passes here once.
std::int64_t countNewlines(const char* p, std::size_t n)
{
    constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
    constexpr std::uint64_t kNewlines = 0x0A0A0A0A0A0A0A0Aull;
    std::int64_t count = 0;
    std::size_t i = 0;
#ifdef __AVX2__
    const __m256i nl = _mm256_set1_epi8('\n');
    for (; i + 32 <= n; i += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
        count += __builtin_popcount(static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl))));
    }
#endif
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        const std::uint64_t x = w ^ kNewlines; // zero bytes where '\n' was
        const std::uint64_t zero = ~(((x & kLow7) + kLow7) | x | kLow7);
        count += __builtin_popcountll(zero);
    }
    for (; i < n; ++i) count += p[i] == '\n';
    return count;
}

class KinetoReader {
public:
    KinetoReader(std::unique_ptr<ByteStream> in, std::string path, const TaskContext& ctx)
        : m_in(std::move(in)), m_path(std::move(path)), m_ctx(ctx), m_builder(m_path, TraceFormat::Kineto)
    {
        m_buf.resize(kChunk * 2);
    }
    // Scans bytes that are already contiguous in memory (a mapping or a
    // caller's buffer) without copying them. With dropPages, pages behind the
    // scan are released (only for a read-only file mapping).
    KinetoReader(std::string_view bytes, bool dropPages, std::string path, const TaskContext& ctx)
        : m_path(std::move(path)), m_ctx(ctx), m_builder(m_path, TraceFormat::Kineto), m_mapped(bytes.data()),
          m_dropPages(dropPages)
    {
        m_end = bytes.size();
        m_eof = true;
    }

    Result<TracePtr> run();
    void setName(const std::string& name) { m_builder.setName(name); }

private:
    enum class State { Start, TopMember, TopAfterMember, Events, EventsAfter, Done };

    const char* data() const { return m_mapped ? m_mapped : m_buf.data(); }
    Status fill();
    Status mappedCheckpoint();
    void discard(std::size_t n);
    Status syntaxError(const char* at, const std::string& what) const;
    SourcePosition positionOf(const char* at) const;
    Scan step(Cursor& c);
    Scan topMember(Cursor& c);
    Scan deviceProperties(Cursor& c);
    void handle(RawEvent& ev, const char* at);
    void badEvent(const char* at, std::string_view member, const std::string& reason);
    std::int32_t threadOf(const Scalar& pid, const Scalar& tid);
    std::int32_t threadIndex(const Scalar& pid, const Scalar& tid);
    std::int64_t scalarInt(const Scalar& s);

    std::unique_ptr<ByteStream> m_in;
    std::string m_path;
    const TaskContext& m_ctx;
    TraceBuilder m_builder;

    std::vector<char> m_buf;
    std::size_t m_begin = 0;   // first unconsumed byte
    std::size_t m_end = 0;     // end of valid data
    std::uint64_t m_base = 0;  // absolute offset of m_buf[0]
    std::int64_t m_linesBefore = 0;       // newlines before m_buf[0]
    std::int64_t m_lastNewlineAbs = -1;   // absolute offset of the last newline before m_buf[0]
    bool m_eof = false;
    std::uint64_t m_maxUnit = inputLimits().maxTraceUnitBytes;

    State m_state = State::Start;
    bool m_bareArray = false;
    bool m_sawEvents = false;
    std::uint64_t m_nextProgress = 0;
    std::string m_scratch;
    std::unordered_map<std::uint64_t, std::int32_t> m_threads;
    StringId internCached(std::string_view name);

    // Names repeat millions of times: a direct-mapped cache keyed by a cheap
    // hash of length and edges finds most of them without hashing the whole name.
    std::vector<StringId> m_nameCache = std::vector<StringId>(8192, StringInterner::kEmpty);
    RawEvent m_event;
    const char* m_mapped = nullptr;
    bool m_dropPages = false;
    std::size_t m_dropped = 0;
    std::size_t m_nextCheck = 0;
    std::string m_lastPid;
    std::string m_lastTid;
    bool m_lastPidString = false;
    bool m_lastTidString = false;
    std::int32_t m_lastThread = -1;
};

SourcePosition KinetoReader::positionOf(const char* at) const
{
    SourcePosition where{m_path};
    const std::size_t idx = static_cast<std::size_t>(at - data());
    where.offset = static_cast<std::int64_t>(m_base + idx);
    const char* b = data();
    std::int64_t line = m_linesBefore + countNewlines(b, idx) + 1;
    const void* nl = idx ? ::memrchr(b, '\n', idx) : nullptr;
    const std::int64_t lineStart = nl ? static_cast<std::int64_t>(m_base) + (static_cast<const char*>(nl) - b) + 1 : m_lastNewlineAbs + 1;
    where.line = line;
    where.column = where.offset - lineStart + 1;
    return where;
}

Status KinetoReader::syntaxError(const char* at, const std::string& what) const
{
    return Status(ErrorCode::ParseError, what, positionOf(at));
}

void KinetoReader::discard(std::size_t n)
{
    // Bytes [0, n) leave the buffer: remember their newlines for positions.
    const char* b = m_buf.data();
    m_linesBefore += countNewlines(b, n);
    if (const void* nl = n ? ::memrchr(b, '\n', n) : nullptr)
        m_lastNewlineAbs = static_cast<std::int64_t>(m_base) + (static_cast<const char*>(nl) - b);
    std::memmove(m_buf.data(), m_buf.data() + n, m_end - n);
    m_base += n;
    m_begin -= n;
    m_end -= n;
}

Status KinetoReader::fill()
{
    if (m_begin > 0) discard(m_begin);
    if (m_buf.size() - m_end < kChunk) m_buf.resize(std::max(m_buf.size() * 2, m_end + kChunk));
    KWB_ASSIGN_OR_RETURN(std::size_t n, m_in->read(m_buf.data() + m_end, m_buf.size() - m_end));
    if (n == 0) m_eof = true;
    m_end += n;
    if (m_in->rawConsumed() >= m_nextProgress) {
        m_ctx.report("Reading trace", static_cast<std::int64_t>(m_in->rawConsumed()), static_cast<std::int64_t>(m_in->rawTotal()));
        m_nextProgress = m_in->rawConsumed() + (32u << 20);
    }
    if (m_ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled", SourcePosition{m_path});
    return {};
}

StringId KinetoReader::internCached(std::string_view name)
{
    std::uint64_t h = name.size() * 0x9E3779B97F4A7C15ull;
    if (name.size() >= 8) {
        std::uint64_t a, b;
        std::memcpy(&a, name.data(), 8);
        std::memcpy(&b, name.data() + name.size() - 8, 8);
        h ^= a * 0xC2B2AE3D27D4EB4Full;
        h ^= (b + (h >> 29)) * 0x165667B19E3779F9ull;
        if (name.size() >= 24) {
            std::uint64_t m;
            std::memcpy(&m, name.data() + name.size() / 2 - 4, 8);
            h ^= (m + (h >> 31)) * 0x27D4EB2F165667C5ull;
        }
    } else {
        for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001B3ull;
    }
    StringId& slot = m_nameCache[(h ^ (h >> 32)) & (m_nameCache.size() - 1)];
    if (slot != StringInterner::kEmpty && m_builder.text(slot) == name) return slot;
    slot = m_builder.intern(name);
    return slot;
}

// Every 32 MB of a contiguous input: progress, cancellation, and giving back
// the pages already scanned so a multi-GB mapping does not stay resident.
Status KinetoReader::mappedCheckpoint()
{
    constexpr std::size_t kStep = 32u << 20;
    m_nextCheck = m_begin + kStep;
    m_ctx.report("Reading trace", static_cast<std::int64_t>(m_begin), static_cast<std::int64_t>(m_end));
    if (m_ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled", SourcePosition{m_path});
    if (m_dropPages) {
        const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        // Keep a margin: the current event may start a little before m_begin's page.
        const std::size_t upTo = m_begin > (1u << 20) ? ((m_begin - (1u << 20)) / page) * page : 0;
        if (upTo > m_dropped) {
            ::madvise(const_cast<char*>(m_mapped) + m_dropped, upTo - m_dropped, MADV_DONTNEED);
            m_dropped = upTo;
        }
    }
    return {};
}

std::int64_t KinetoReader::scalarInt(const Scalar& s)
{
    if (!s.present) return -1;
    if (!s.isString) return toInt(s.number).value_or(-1);
    // "stream 7", "7": the digits at the end.
    std::string_view t = s.string.raw();
    std::size_t i = t.size();
    while (i > 0 && t[i - 1] >= '0' && t[i - 1] <= '9') --i;
    return i < t.size() ? toInt(t.substr(i)).value_or(-1) : -1;
}

std::int32_t KinetoReader::threadOf(const Scalar& pid, const Scalar& tid)
{
    // Consecutive events mostly share a thread: skip the hashing then.
    auto text = [](const Scalar& s) { return s.isString ? s.string.raw() : s.number; };
    auto same = [](std::string_view a, const std::string& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != b[i]) return false;
        return true;
    };
    if (m_lastThread >= 0 && pid.isString == m_lastPidString && tid.isString == m_lastTidString && same(text(pid), m_lastPid)
        && same(text(tid), m_lastTid))
        return m_lastThread;
    m_lastPid.assign(text(pid));
    m_lastTid.assign(text(tid));
    m_lastPidString = pid.isString;
    m_lastTidString = tid.isString;
    m_lastThread = threadIndex(pid, tid);
    return m_lastThread;
}

std::int32_t KinetoReader::threadIndex(const Scalar& pid, const Scalar& tid)
{
    auto key1 = [](const Scalar& s) -> std::uint64_t {
        if (!s.present) return 0;
        if (s.isString) return std::hash<std::string_view>{}(s.string.raw()) | 1ull;
        return std::hash<std::string_view>{}(s.number) << 1;
    };
    const std::uint64_t key = key1(pid) * 0x9E3779B97F4A7C15ull ^ key1(tid);
    auto [it, inserted] = m_threads.emplace(key, static_cast<std::int32_t>(m_threads.size()));
    return it->second;
}

void KinetoReader::badEvent(const char* at, std::string_view member, const std::string& reason)
{
    auto& r = m_builder.report();
    ++r.badEvents;
    if (r.issues.size() >= kMaxTraceIssues) return;
    SourcePosition where = positionOf(at);
    where.path = "traceEvents[" + std::to_string(r.eventsSeen - 1) + "]";
    if (!member.empty()) where.path += "." + std::string(member);
    r.issues.emplace_back(ErrorCode::SchemaError, reason, std::move(where));
}

void KinetoReader::handle(RawEvent& ev, const char* at)
{
    ++m_builder.report().eventsSeen;
    if (ev.wrongType && (is(std::string_view(ev.wrongType), "ph") || is(std::string_view(ev.wrongType), "cat"))) {
        badEvent(at, ev.wrongType, std::string("event \"") + ev.wrongType + "\" is not a string");
        return;
    }
    if (!ev.hasPh) return; // metadata-less entries are legal in Chrome traces; nothing for us
    const std::string_view ph = ev.ph.raw();
    const char phase = ph.size() == 1 ? ph[0] : '\0';
    if (phase == 's' || phase == 'f') {
        if (phase == 's' && ev.hasCat && classify(ev.cat.raw()) == Cat::Flow) {
            const std::int64_t id = scalarInt(ev.id);
            auto ts = usToNs(ev.ts);
            if (id >= 0 && ts) m_builder.addFlowStart(id, threadOf(ev.pid, ev.tid), *ts);
            else if (!ev.ts.empty() && !ts) badEvent(at, "ts", "flow event \"ts\" is not a number in range: " + std::string(ev.ts.substr(0, 40)));
        }
        return;
    }
    if (phase != 'X' || !ev.hasCat) return;
    const Cat cat = classify(ev.cat.raw());
    if (cat == Cat::Other || cat == Cat::Flow) return;
    if (ev.wrongType) {
        badEvent(at, ev.wrongType, std::string("event \"") + ev.wrongType + "\" has the wrong type ("
            + (is(std::string_view(ev.wrongType), "name") ? "expected a string" : "expected a number") + ")");
        return;
    }
    auto ts = usToNs(ev.ts);
    if (!ts) {
        badEvent(at, "ts", ev.ts.empty() ? "event without \"ts\"" : "event \"ts\" is not a number within ±4e15 µs: " + std::string(ev.ts.substr(0, 40)));
        return;
    }
    if (cat == Cat::Runtime) {
        if (!ev.correlation.empty()) {
            const std::int64_t corr = toInt(ev.correlation).value_or(-1);
            const std::int64_t ext = ev.externalId.empty() ? -1 : toInt(ev.externalId).value_or(-1);
            if (corr >= 0) m_builder.addRuntimeLaunch(corr, ext, threadOf(ev.pid, ev.tid), *ts);
        }
        return;
    }
    auto dur = usToNs(ev.dur);
    if (!dur || *dur < 0) {
        badEvent(at, "dur", ev.dur.empty() ? "complete event without \"dur\"" : "event \"dur\" is not a non-negative number within 4e15 µs: " + std::string(ev.dur.substr(0, 40)));
        return;
    }
    // Both are within ±kMaxTimeNs, so the sum is exact; its end must be too.
    if (!timeInRange(*ts + *dur)) {
        badEvent(at, "dur", "event ends past the representable time range (ts + dur > 4e15 µs)");
        return;
    }
    if (!ev.hasName) {
        badEvent(at, "name", "event without \"name\"");
        return;
    }
    const std::string_view name = decode(ev.name, m_scratch);
    switch (cat) {
    case Cat::Kernel:
    case Cat::Memcpy:
    case Cat::Memset: {
        GpuActivity a;
        a.startNs = *ts;
        a.durationNs = *dur;
        a.kind = cat == Cat::Kernel ? ActivityKind::Kernel : cat == Cat::Memcpy ? ActivityKind::Memcpy : ActivityKind::Memset;
        a.name = internCached(name);
        if (!ev.correlation.empty()) a.correlation = toInt(ev.correlation).value_or(-1);
        if (!ev.externalId.empty()) a.externalId = toInt(ev.externalId).value_or(-1);
        const std::int64_t dev = ev.device.empty() ? scalarInt(ev.pid) : toInt(ev.device).value_or(-1);
        const std::int64_t stream = ev.stream.empty() ? scalarInt(ev.tid) : toInt(ev.stream).value_or(-1);
        a.device = static_cast<std::int16_t>(dev >= 0 && dev < 32768 ? dev : -1);
        a.stream = static_cast<std::int32_t>(stream >= 0 && stream <= INT32_MAX ? stream : -1);
        std::copy(ev.grid, ev.grid + 3, a.grid);
        std::copy(ev.block, ev.block + 3, a.block);
        m_builder.addActivity(a);
        return;
    }
    case Cat::CpuOp:
    case Cat::Annotation: {
        if (name.size() > 13 && name[0] == 'P' && name.starts_with("ProfilerStep#")) {
            m_builder.addStep(StepRange{*ts, *ts + *dur, m_builder.intern(name)});
            return;
        }
        CpuOp op;
        op.startNs = *ts;
        op.durationNs = *dur;
        op.name = internCached(name);
        op.thread = threadOf(ev.pid, ev.tid);
        op.annotation = cat == Cat::Annotation;
        if (!ev.externalId.empty()) op.externalId = toInt(ev.externalId).value_or(-1);
        m_builder.addOp(op);
        return;
    }
    default: return;
    }
}

Scan KinetoReader::deviceProperties(Cursor& c)
{
    if (*c.p != '[') return skipValue(c);
    // Parse into a local list first: a retry after NeedMore must not add twice.
    std::vector<TraceDevice> devices;
    ++c.p;
    for (;;) {
        KWB_SCAN(skipWs(c));
        if (*c.p == ']') {
            ++c.p;
            break;
        }
        if (*c.p == '{') {
            TraceDevice d;
            KWB_SCAN(forEachMember(c, [&](std::string_view key, Cursor& cc) -> Scan {
                if (*cc.p == '"' && is(key, "name")) {
                    StrTok t;
                    KWB_SCAN(scanString(cc, t));
                    d.name = std::string(decode(t, m_scratch));
                    return Scan::Ok;
                }
                if (*cc.p == '-' || (*cc.p >= '0' && *cc.p <= '9')) {
                    std::string_view num;
                    KWB_SCAN(scanNumber(cc, num));
                    const std::int64_t v = toInt(num).value_or(0);
                    if (is(key, "id")) d.id = static_cast<std::int32_t>(v);
                    else if (is(key, "computeMajor")) d.computeMajor = static_cast<std::int32_t>(v);
                    else if (is(key, "computeMinor")) d.computeMinor = static_cast<std::int32_t>(v);
                    else if (is(key, "totalGlobalMem")) d.totalMemoryBytes = v;
                    else if (is(key, "numSms")) d.smCount = static_cast<std::int32_t>(v);
                    return Scan::Ok;
                }
                return skipValue(cc);
            }));
            devices.push_back(std::move(d));
        } else {
            KWB_SCAN(skipValue(c));
        }
        KWB_SCAN(skipWs(c));
        if (*c.p == ',') ++c.p;
        else if (*c.p != ']') return c.bad(c.p, "expected ',' or ']' in deviceProperties");
    }
    for (auto& d : devices) m_builder.addDevice(std::move(d));
    return Scan::Ok;
}

Scan KinetoReader::topMember(Cursor& c)
{
    if (*c.p != '"') return c.bad(c.p, "expected a member name in quotes");
    StrTok key;
    KWB_SCAN(scanString(c, key));
    KWB_SCAN(expect(c, ':', "expected ':' after a member name"));
    KWB_SCAN(skipWs(c));
    if (is(key.raw(), "traceEvents")) {
        if (*c.p != '[') return c.bad(c.p, "\"traceEvents\" is not an array");
        ++c.p;
        m_sawEvents = true;
        m_state = State::Events;
        return Scan::Ok;
    }
    if (is(key.raw(), "deviceProperties")) KWB_SCAN(deviceProperties(c));
    else KWB_SCAN(skipValue(c));
    m_state = State::TopAfterMember;
    return Scan::Ok;
}

// One unit of progress from c.p; on NeedMore the caller refills and retries from the same place.
Scan KinetoReader::step(Cursor& c)
{
    KWB_SCAN(skipWs(c));
    switch (m_state) {
    case State::Start:
        if (static_cast<unsigned char>(c.p[0]) == 0xEF) { // UTF-8 byte-order mark
            if (c.end - c.p < 3) return Scan::NeedMore;
            c.p += 3;
            return Scan::Ok;
        }
        if (*c.p == '{') {
            ++c.p;
            KWB_SCAN(skipWs(c));
            if (*c.p == '}') {
                ++c.p;
                m_state = State::Done;
            } else {
                m_state = State::TopMember;
            }
            return Scan::Ok;
        }
        if (*c.p == '[') {
            ++c.p;
            m_bareArray = m_sawEvents = true;
            m_state = State::Events;
            return Scan::Ok;
        }
        return c.bad(c.p, "not a Chrome trace: the file does not start with '{' or '['");
    case State::TopMember:
        return topMember(c);
    case State::TopAfterMember:
        if (*c.p == ',') {
            ++c.p;
            m_state = State::TopMember;
            return Scan::Ok;
        }
        if (*c.p == '}') {
            ++c.p;
            m_state = State::Done;
            return Scan::Ok;
        }
        return c.bad(c.p, "expected ',' or '}' after a top-level member");
    case State::Events: {
        if (*c.p == ']') {
            ++c.p;
            m_state = m_bareArray ? State::Done : State::TopAfterMember;
            return Scan::Ok;
        }
        if (*c.p != '{') {
            // Not an event object (null, a number, a list...): count it and go on.
            const char* at = c.p;
            KWB_SCAN(skipValue(c));
            ++m_builder.report().eventsSeen;
            badEvent(at, {}, "trace event is not an object");
            m_state = State::EventsAfter;
            return Scan::Ok;
        }
        const char* at = c.p;
        m_event.reset();
        KWB_SCAN(scanEvent(c, m_event));
        handle(m_event, at);
        m_state = State::EventsAfter;
        return Scan::Ok;
    }
    case State::EventsAfter:
        if (*c.p == ',') {
            ++c.p;
            m_state = State::Events;
            return Scan::Ok;
        }
        if (*c.p == ']') {
            ++c.p;
            m_state = m_bareArray ? State::Done : State::TopAfterMember;
            return Scan::Ok;
        }
        return c.bad(c.p, "expected ',' or ']' between trace events");
    case State::Done:
        return c.bad(c.p, "unexpected data after the end of the JSON document");
    }
    return Scan::Bad;
}

Result<TracePtr> KinetoReader::run()
{
    if (!m_mapped) KWB_RETURN_IF_ERROR(fill());
    // Rough densities of real traces (bytes per row); unused capacity of a
    // large reservation stays virtual, it is never touched.
    // The size is untrusted (a sparse file claims terabytes): the guess is capped.
    else if (m_end > (64u << 20)) {
        const std::size_t bytes = std::min<std::size_t>(m_end, std::size_t(4) << 30);
        m_builder.reserve(bytes / 1000, bytes / 250, bytes / 800);
    }
    for (;;) {
        Cursor c{data() + m_begin, data() + m_end, m_eof};
        const State before = m_state;
        const Scan s = step(c);
        if (s == Scan::Ok) {
            m_begin = static_cast<std::size_t>(c.p - data());
            if (m_mapped && m_begin >= m_nextCheck) KWB_RETURN_IF_ERROR(mappedCheckpoint());
            continue;
        }
        if (s == Scan::Bad) return syntaxError(c.errorAt, c.errorWhat);
        // NeedMore: the unit restarts after a refill (the state is unchanged
        // unless the unit completed a transition before running dry).
        m_state = before;
        if (m_eof) {
            // Only whitespace left?
            const char* p = data() + m_begin;
            const char* e = data() + m_end;
            while (p < e && isWs(*p)) ++p;
            if (p == e && m_state == State::Done) break;
            if (p == e && m_state == State::Start) {
                return Status(ErrorCode::ParseError, "empty file: not a trace", positionOf(p));
            }
            std::string where = m_state == State::Events || m_state == State::EventsAfter
                ? "inside the traceEvents array"
                : "inside the top-level object";
            return syntaxError(e, "unexpected end of file " + where + " (truncated trace?)");
        }
        // Whitespace never starts a unit: drop it so that a run of it is not
        // buffered; what is left is one unit, and its size is bounded.
        while (m_begin < m_end && isWs(data()[m_begin])) ++m_begin;
        if (m_end - m_begin >= m_maxUnit)
            return syntaxError(data() + m_begin, "a single JSON value here is larger than "
                + describeByteLimit(m_maxUnit, "KWB_MAX_TRACE_UNIT_MB"));
        KWB_RETURN_IF_ERROR(fill());
    }
    if (!m_sawEvents)
        return Status(ErrorCode::SchemaError, "not a Kineto trace: no \"traceEvents\" array", SourcePosition{m_path});
    m_builder.report().bytesRead = m_base + m_end;
    const auto total = static_cast<std::int64_t>(m_in ? m_in->rawTotal() : m_end);
    m_ctx.report("Reading trace", total, total);
    KWB_RETURN_IF_ERROR(m_builder.checkTimes());
    return m_builder.finish();
}

} // namespace

Result<TracePtr> readKinetoTrace(const std::string& path, const TaskContext& ctx, const std::string& name)
{
    char magic[2] = {0, 0};
    {
        FileStream probe;
        KWB_RETURN_IF_ERROR(probe.open(path));
        auto n = probe.read(magic, 2);
        if (!n.isOk()) return n.status();
        if (*n == 0) {
            SourcePosition where{path};
            where.offset = 0;
            where.line = where.column = 1;
            return Status(ErrorCode::ParseError, "empty file: not a trace", where);
        }
    }
    if (looksGzipped(std::string_view(magic, 2))) {
        auto file = std::make_unique<FileStream>();
        KWB_RETURN_IF_ERROR(file->open(path));
        KinetoReader reader(std::make_unique<GzipStream>(std::move(file), path), path, ctx);
        if (!name.empty()) reader.setName(name);
        return reader.run();
    }
    // Plain JSON is scanned in place through a mapping: no copy, and pages
    // behind the scan are dropped so the resident size stays small.
    KWB_ASSIGN_OR_RETURN(MappedFile mapping, MappedFile::open(path));
    KinetoReader reader(mapping.data(), true, path, ctx);
    if (!name.empty()) reader.setName(name);
    return reader.run();
}

Result<TracePtr> parseKinetoTrace(std::string_view json, const std::string& source, const TaskContext& ctx)
{
    KinetoReader reader(json, false, source, ctx);
    return reader.run();
}

} // namespace kwb
