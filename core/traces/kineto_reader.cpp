#include "traces/kineto_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/mapped_file.h"

namespace kwb {

namespace {

constexpr std::size_t kChunk = 4u << 20;

// ---------------------------------------------------------------- input

class InputStream {
public:
    virtual ~InputStream() = default;
    // Writes up to `capacity` bytes to dst; 0 means end of input.
    virtual Result<std::size_t> read(char* dst, std::size_t capacity) = 0;
    virtual std::uint64_t rawConsumed() const = 0;
    virtual std::uint64_t rawTotal() const = 0;
};

class MemoryStream final : public InputStream {
public:
    explicit MemoryStream(std::string_view data) : m_data(data) {}
    Result<std::size_t> read(char* dst, std::size_t capacity) override
    {
        const std::size_t n = std::min(capacity, m_data.size() - m_pos);
        std::memcpy(dst, m_data.data() + m_pos, n);
        m_pos += n;
        return n;
    }
    std::uint64_t rawConsumed() const override { return m_pos; }
    std::uint64_t rawTotal() const override { return m_data.size(); }

private:
    std::string_view m_data;
    std::size_t m_pos = 0;
};

class FileStream final : public InputStream {
public:
    ~FileStream() override
    {
        if (m_fd >= 0) ::close(m_fd);
    }
    Status open(const std::string& path)
    {
        m_path = path;
        m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (m_fd < 0) return Status(ErrorCode::IoError, std::string("cannot open: ") + std::strerror(errno), SourcePosition{path});
        struct stat st {};
        if (::fstat(m_fd, &st) == 0) m_total = static_cast<std::uint64_t>(st.st_size);
#ifdef POSIX_FADV_SEQUENTIAL
        ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        return {};
    }
    Result<std::size_t> read(char* dst, std::size_t capacity) override
    {
        for (;;) {
            const ssize_t n = ::read(m_fd, dst, capacity);
            if (n >= 0) {
                m_consumed += static_cast<std::uint64_t>(n);
                return static_cast<std::size_t>(n);
            }
            if (errno == EINTR) continue;
            SourcePosition where{m_path};
            where.offset = static_cast<std::int64_t>(m_consumed);
            return Status(ErrorCode::IoError, std::string("read failed: ") + std::strerror(errno), where);
        }
    }
    std::uint64_t rawConsumed() const override { return m_consumed; }
    std::uint64_t rawTotal() const override { return m_total; }

private:
    std::string m_path;
    int m_fd = -1;
    std::uint64_t m_total = 0;
    std::uint64_t m_consumed = 0;
};

// Inflates gzip (several members allowed) chunk by chunk.
class GzipStream final : public InputStream {
public:
    explicit GzipStream(std::unique_ptr<InputStream> raw, std::string path)
        : m_raw(std::move(raw)), m_path(std::move(path)), m_in(1u << 20)
    {
        std::memset(&m_z, 0, sizeof(m_z));
        m_ok = ::inflateInit2(&m_z, 15 + 32) == Z_OK;
    }
    ~GzipStream() override { ::inflateEnd(&m_z); }

    Result<std::size_t> read(char* dst, std::size_t capacity) override
    {
        if (!m_ok) return Status(ErrorCode::Internal, "zlib initialisation failed", SourcePosition{m_path});
        m_z.next_out = reinterpret_cast<Bytef*>(dst);
        m_z.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1u << 30));
        const uInt wanted = m_z.avail_out;
        while (m_z.avail_out == wanted) {
            if (m_z.avail_in == 0) {
                if (m_rawEof) {
                    if (!m_streamEnded) return error("gzip stream is truncated (ends before its end marker)");
                    break;
                }
                KWB_ASSIGN_OR_RETURN(std::size_t n, m_raw->read(m_in.data(), m_in.size()));
                if (n == 0) {
                    m_rawEof = true;
                    continue;
                }
                m_z.next_in = reinterpret_cast<Bytef*>(m_in.data());
                m_z.avail_in = static_cast<uInt>(n);
                if (m_streamEnded) {
                    // Another gzip member follows the one that ended.
                    ::inflateReset(&m_z);
                    m_streamEnded = false;
                }
            }
            const int rc = ::inflate(&m_z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                m_streamEnded = true;
                if (m_z.avail_in > 0) {
                    ::inflateReset(&m_z);
                    m_streamEnded = false;
                }
                continue;
            }
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                return error(std::string("gzip stream is corrupt: ") + (m_z.msg ? m_z.msg : "inflate failed"));
        }
        const std::size_t produced = wanted - m_z.avail_out;
        m_out += produced;
        return produced;
    }
    std::uint64_t rawConsumed() const override { return m_raw->rawConsumed() - m_z.avail_in; }
    std::uint64_t rawTotal() const override { return m_raw->rawTotal(); }

private:
    Status error(const std::string& reason) const
    {
        SourcePosition where{m_path};
        where.offset = static_cast<std::int64_t>(rawConsumed());
        return Status(ErrorCode::ParseError,
            reason + " (at compressed byte " + std::to_string(rawConsumed()) + ", after " + std::to_string(m_out)
                + " inflated bytes)",
            where);
    }
    std::unique_ptr<InputStream> m_raw;
    std::string m_path;
    std::vector<char> m_in;
    z_stream m_z;
    bool m_ok = false;
    bool m_rawEof = false;
    bool m_streamEnded = false;
    std::uint64_t m_out = 0;
};

// ---------------------------------------------------------------- scanning

// Thrown-free scanning: each step returns one of these.
enum class Scan : std::uint8_t { Ok, NeedMore, Bad };

struct Cursor {
    const char* p;
    const char* end;
    const char* errorAt = nullptr;
    const char* errorWhat = nullptr;

    Scan bad(const char* at, const char* what)
    {
        errorAt = at;
        errorWhat = what;
        return Scan::Bad;
    }
};

inline bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline Scan skipWs(Cursor& c)
{
    // Most calls find a token right away: one compare settles those.
    const char* p = c.p;
    const char* end = c.end;
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && isWs(*p)) ++p;
    c.p = p;
    return p < end ? Scan::Ok : Scan::NeedMore;
}

// A string token: raw bytes between the quotes and whether it has escapes.
struct StrTok {
    const char* begin = nullptr;
    const char* end = nullptr;
    bool escaped = false;
    std::string_view raw() const { return {begin, static_cast<std::size_t>(end - begin)}; }
};

// c.p at the opening quote.
inline Scan scanString(Cursor& c, StrTok& out)
{
    const char* s = c.p + 1;
    out.begin = s;
    out.escaped = false;
    // Keys and most values are short: a plain loop beats memchr's call there.
    for (const char* stop = std::min(c.end, s + 16); s < stop; ++s) {
        if (*s == '\\') break;
        if (*s == '"') {
            out.end = s;
            c.p = s + 1;
            return Scan::Ok;
        }
    }
    for (;;) {
        const void* q = std::memchr(s, '"', static_cast<std::size_t>(c.end - s));
        if (!q) return Scan::NeedMore;
        const char* qp = static_cast<const char*>(q);
        // An odd run of backslashes before the quote escapes it.
        const char* b = qp;
        while (b > out.begin && b[-1] == '\\') --b;
        if ((qp - b) % 2 == 1) {
            out.escaped = true;
            s = qp + 1;
            continue;
        }
        out.end = qp;
        c.p = qp + 1;
        return Scan::Ok;
    }
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int hexVal(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

// Decodes JSON escapes; malformed escapes are kept literally (names matter more than purity).
std::string_view decode(const StrTok& t, std::string& scratch)
{
    if (!t.escaped && !std::memchr(t.begin, '\\', static_cast<std::size_t>(t.end - t.begin))) return t.raw();
    scratch.clear();
    for (const char* s = t.begin; s < t.end; ++s) {
        if (*s != '\\' || s + 1 >= t.end) {
            scratch += *s;
            continue;
        }
        const char e = *++s;
        switch (e) {
        case 'n': scratch += '\n'; break;
        case 't': scratch += '\t'; break;
        case 'r': scratch += '\r'; break;
        case 'b': scratch += '\b'; break;
        case 'f': scratch += '\f'; break;
        case 'u': {
            std::uint32_t cp = 0;
            bool ok = s + 4 < t.end;
            for (int i = 1; ok && i <= 4; ++i) {
                const int h = hexVal(s[i]);
                ok = h >= 0;
                cp = cp * 16 + static_cast<std::uint32_t>(h);
            }
            if (!ok) {
                scratch += "\\u";
                break;
            }
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && s + 6 < t.end && s[1] == '\\' && s[2] == 'u') {
                std::uint32_t lo = 0;
                bool okLo = true;
                for (int i = 3; okLo && i <= 6; ++i) {
                    const int h = hexVal(s[i]);
                    okLo = h >= 0;
                    lo = lo * 16 + static_cast<std::uint32_t>(h);
                }
                if (okLo && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
            }
            appendUtf8(scratch, cp);
            break;
        }
        default: scratch += e; break; // \" \\ \/ and unknown escapes
        }
    }
    return scratch;
}

inline bool isNumChar(char ch)
{
    return (ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E';
}

// A number token, kept as text; interpretation is up to the field.
inline Scan scanNumber(Cursor& c, std::string_view& out)
{
    const char* s = c.p;
    while (c.p < c.end && isNumChar(*c.p)) ++c.p;
    if (c.p == c.end) return Scan::NeedMore; // may continue in the next chunk
    out = {s, static_cast<std::size_t>(c.p - s)};
    if (out.empty() || out == "-") return c.bad(s, "malformed number");
    return Scan::Ok;
}

// Integer value of a number token; nullopt when not an integer within int64.
std::optional<std::int64_t> toInt(std::string_view t)
{
    bool neg = false;
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') {
        neg = true;
        ++i;
    }
    if (i == t.size()) return std::nullopt;
    std::uint64_t v = 0;
    for (; i < t.size(); ++i) {
        const char ch = t[i];
        if (ch < '0' || ch > '9') {
            if (ch == '.' || ch == 'e' || ch == 'E') {
                // 12.0 or 1e3: accept when the value is integral and in range.
                char* endp = nullptr;
                const std::string tmp(t);
                const double d = std::strtod(tmp.c_str(), &endp);
                if (d >= -9.2e18 && d <= 9.2e18 && static_cast<double>(static_cast<std::int64_t>(d)) == d)
                    return static_cast<std::int64_t>(d);
                return std::nullopt;
            }
            return std::nullopt;
        }
        if (v > (static_cast<std::uint64_t>(INT64_MAX) - static_cast<std::uint64_t>(ch - '0')) / 10) return std::nullopt;
        v = v * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

// µs (integer or fractional) to integer ns, rounded; nullopt when not a finite number in range.
std::optional<std::int64_t> usToNs(std::string_view t)
{
    std::size_t i = 0;
    bool neg = false;
    if (i < t.size() && t[i] == '-') {
        neg = true;
        ++i;
    }
    std::uint64_t whole = 0;
    std::size_t digits = 0;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
        if (whole > 9'000'000'000'000'000ull / 10) return std::nullopt;
        whole = whole * 10 + static_cast<std::uint64_t>(t[i] - '0');
    }
    std::uint64_t frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < t.size() && t[i] == '.') {
        ++i;
        for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
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
        // Exponent form: rare, take the slow path.
        const std::string tmp(t);
        char* endp = nullptr;
        const double us = std::strtod(tmp.c_str(), &endp);
        if (endp != tmp.c_str() + tmp.size() || !(us > -9.2e15 && us < 9.2e15)) return std::nullopt;
        return static_cast<std::int64_t>(us * 1000.0 + (us >= 0 ? 0.5 : -0.5));
    }
    for (int k = std::min(fracDigits, 3); k < 3; ++k) frac *= 10;
    if (whole > 9'000'000'000'000'000ull / 1000) return std::nullopt;
    std::int64_t ns = static_cast<std::int64_t>(whole * 1000 + frac + (roundUp ? 1 : 0));
    return neg ? -ns : ns;
}

// Skips any JSON value. Strings are skipped with memchr, containers by depth.
Scan skipValue(Cursor& c)
{
    if (skipWs(c) != Scan::Ok) return Scan::NeedMore;
    const char first = *c.p;
    if (first == '"') {
        StrTok t;
        return scanString(c, t);
    }
    if (first == '{' || first == '[') {
        std::vector<char> stack; // expected closers
        stack.reserve(8);
        stack.push_back(first == '{' ? '}' : ']');
        ++c.p;
        while (!stack.empty()) {
            if (c.p >= c.end) return Scan::NeedMore;
            const char ch = *c.p;
            if (ch == '"') {
                StrTok t;
                if (scanString(c, t) != Scan::Ok) return Scan::NeedMore;
                continue;
            }
            if (ch == '{') stack.push_back('}');
            else if (ch == '[') stack.push_back(']');
            else if (ch == '}' || ch == ']') {
                if (ch != stack.back()) return c.bad(c.p, ch == '}' ? "unexpected '}'" : "unexpected ']'");
                stack.pop_back();
            }
            ++c.p;
        }
        return Scan::Ok;
    }
    if (first == '-' || (first >= '0' && first <= '9')) {
        std::string_view num;
        return scanNumber(c, num);
    }
    for (std::string_view lit : {std::string_view("true"), std::string_view("false"), std::string_view("null"),
             std::string_view("NaN"), std::string_view("Infinity")}) {
        const auto avail = static_cast<std::size_t>(c.end - c.p);
        if (avail < lit.size()) {
            if (std::string_view(c.p, avail) == lit.substr(0, avail)) return Scan::NeedMore;
            continue;
        }
        if (std::string_view(c.p, lit.size()) == lit) {
            c.p += lit.size();
            return Scan::Ok;
        }
    }
    return c.bad(c.p, "expected a JSON value");
}

// Expects `ch` after optional whitespace.
inline Scan expect(Cursor& c, char ch, const char* what)
{
    if (skipWs(c) != Scan::Ok) return Scan::NeedMore;
    if (*c.p != ch) return c.bad(c.p, what);
    ++c.p;
    return Scan::Ok;
}

#define KWB_SCAN(expr)                                                        \
    do {                                                                      \
        const Scan KWB_CONCAT(kwb_scan_, __LINE__) = (expr);                  \
        if (KWB_CONCAT(kwb_scan_, __LINE__) != Scan::Ok) return KWB_CONCAT(kwb_scan_, __LINE__); \
    } while (0)

// Iterates the members of an object: fn(key, cursor) must consume the value.
template <typename Fn>
Scan forEachMember(Cursor& c, Fn&& fn)
{
    KWB_SCAN(expect(c, '{', "expected '{'"));
    KWB_SCAN(skipWs(c));
    if (*c.p == '}') {
        ++c.p;
        return Scan::Ok;
    }
    for (;;) {
        KWB_SCAN(skipWs(c));
        if (*c.p != '"') return c.bad(c.p, "expected a member name in quotes");
        StrTok key;
        KWB_SCAN(scanString(c, key));
        KWB_SCAN(expect(c, ':', "expected ':' after a member name"));
        KWB_SCAN(skipWs(c));
        KWB_SCAN(fn(key.raw(), c));
        KWB_SCAN(skipWs(c));
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        if (*c.p == '}') {
            ++c.p;
            return Scan::Ok;
        }
        return c.bad(c.p, "expected ',' or '}' in an object");
    }
}

// key == literal with the length known at compile time, so the compare is inlined.
template <std::size_t N>
inline bool is(std::string_view key, const char (&literal)[N])
{
    return key.size() == N - 1 && __builtin_memcmp(key.data(), literal, N - 1) == 0;
}

// A scalar that may be a number or a string (pid, tid, id).
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

    // Field by field: cheaper per event than assigning a fresh RawEvent.
    void reset()
    {
        pid.present = tid.present = id.present = false;
        pid.isString = tid.isString = id.isString = false;
        pid.number = tid.number = id.number = {};
        ts = dur = externalId = correlation = device = stream = {};
        grid[0] = grid[1] = grid[2] = block[0] = block[1] = block[2] = 0;
        hasPh = hasCat = hasName = hasGrid = hasBlock = false;
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

Scan scanEvent(Cursor& c, RawEvent& ev)
{
    return forEachMember(c, [&](std::string_view key, Cursor& cc) -> Scan {
        const char ch = *cc.p;
        switch (key.size()) {
        case 2:
            if (is(key, "ph") && ch == '"') {
                ev.hasPh = true;
                return scanString(cc, ev.ph);
            }
            if (is(key, "ts")) {
                if (ch == '"') {
                    StrTok t; // some exporters quote numbers
                    KWB_SCAN(scanString(cc, t));
                    ev.ts = t.raw();
                    return Scan::Ok;
                }
                return ch == '-' || (ch >= '0' && ch <= '9') ? scanNumber(cc, ev.ts) : skipValue(cc);
            }
            if (is(key, "id")) return scanScalar(cc, ev.id);
            break;
        case 3:
            if (is(key, "cat") && ch == '"') {
                ev.hasCat = true;
                return scanString(cc, ev.cat);
            }
            if (is(key, "pid")) return scanScalar(cc, ev.pid);
            if (is(key, "tid")) return scanScalar(cc, ev.tid);
            if (is(key, "dur")) {
                if (ch == '"') {
                    StrTok t;
                    KWB_SCAN(scanString(cc, t));
                    ev.dur = t.raw();
                    return Scan::Ok;
                }
                return ch == '-' || (ch >= '0' && ch <= '9') ? scanNumber(cc, ev.dur) : skipValue(cc);
            }
            break;
        case 4:
            if (is(key, "name") && ch == '"') {
                ev.hasName = true;
                return scanString(cc, ev.name);
            }
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
    KinetoReader(std::unique_ptr<InputStream> in, std::string path, const TaskContext& ctx)
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
    void badEvent(const char* at, const std::string& reason);
    std::int32_t threadOf(const Scalar& pid, const Scalar& tid);
    std::int32_t threadIndex(const Scalar& pid, const Scalar& tid);
    std::int64_t scalarInt(const Scalar& s);

    std::unique_ptr<InputStream> m_in;
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

void KinetoReader::badEvent(const char* at, const std::string& reason)
{
    auto& r = m_builder.report();
    ++r.badEvents;
    if (r.issues.size() < kMaxTraceIssues) r.issues.emplace_back(ErrorCode::SchemaError, reason, positionOf(at));
}

void KinetoReader::handle(RawEvent& ev, const char* at)
{
    ++m_builder.report().eventsSeen;
    if (!ev.hasPh) return; // metadata-less entries are legal in Chrome traces; nothing for us
    const std::string_view ph = ev.ph.raw();
    const char phase = ph.size() == 1 ? ph[0] : '\0';
    if (phase == 's' || phase == 'f') {
        if (phase == 's' && ev.hasCat && classify(ev.cat.raw()) == Cat::Flow) {
            const std::int64_t id = scalarInt(ev.id);
            auto ts = usToNs(ev.ts);
            if (id >= 0 && ts) m_builder.addFlowStart(id, threadOf(ev.pid, ev.tid), *ts);
        }
        return;
    }
    if (phase != 'X' || !ev.hasCat) return;
    const Cat cat = classify(ev.cat.raw());
    if (cat == Cat::Other || cat == Cat::Flow) return;
    auto ts = usToNs(ev.ts);
    if (!ts) {
        badEvent(at, ev.ts.empty() ? "event without \"ts\"" : "event \"ts\" is not a number in range: " + std::string(ev.ts.substr(0, 40)));
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
        badEvent(at, ev.dur.empty() ? "complete event without \"dur\"" : "event \"dur\" is not a non-negative number: " + std::string(ev.dur.substr(0, 40)));
        return;
    }
    if (!ev.hasName) {
        badEvent(at, "event without \"name\"");
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
            if (*c.p == '"' || *c.p == '[' || *c.p == '-' || (*c.p >= '0' && *c.p <= '9')) {
                // Not an event object: count it and go on.
                const char* at = c.p;
                KWB_SCAN(skipValue(c));
                badEvent(at, "trace event is not an object");
                m_state = State::EventsAfter;
                return Scan::Ok;
            }
            return c.bad(c.p, "expected a trace event object");
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
    else if (m_end > (64u << 20)) m_builder.reserve(m_end / 1000, m_end / 250, m_end / 800);
    for (;;) {
        Cursor c{data() + m_begin, data() + m_end};
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
        KWB_RETURN_IF_ERROR(fill());
    }
    if (!m_sawEvents)
        return Status(ErrorCode::SchemaError, "not a Kineto trace: no \"traceEvents\" array", SourcePosition{m_path});
    m_builder.report().bytesRead = m_base + m_end;
    const auto total = static_cast<std::int64_t>(m_in ? m_in->rawTotal() : m_end);
    m_ctx.report("Reading trace", total, total);
    return m_builder.finish();
}

} // namespace

namespace {

// A read-only private mapping of a whole file, unmapped on destruction.
class FileMapping {
public:
    ~FileMapping()
    {
        if (m_data) ::munmap(m_data, m_size);
    }
    Status open(const std::string& path, std::size_t size)
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return Status(ErrorCode::IoError, std::string("cannot open: ") + std::strerror(errno), SourcePosition{path});
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (p == MAP_FAILED) return Status(ErrorCode::IoError, std::string("cannot map: ") + std::strerror(errno), SourcePosition{path});
        m_data = p;
        m_size = size;
        ::madvise(p, size, MADV_SEQUENTIAL);
        return {};
    }
    std::string_view bytes() const { return {static_cast<const char*>(m_data), m_size}; }

private:
    void* m_data = nullptr;
    std::size_t m_size = 0;
};

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
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Status(ErrorCode::IoError, std::string("cannot stat: ") + std::strerror(errno), SourcePosition{path});
    FileMapping mapping;
    KWB_RETURN_IF_ERROR(mapping.open(path, static_cast<std::size_t>(st.st_size)));
    KinetoReader reader(mapping.bytes(), true, path, ctx);
    if (!name.empty()) reader.setName(name);
    return reader.run();
}

Result<TracePtr> parseKinetoTrace(std::string_view json, const std::string& source, const TaskContext& ctx)
{
    KinetoReader reader(json, false, source, ctx);
    return reader.run();
}

} // namespace kwb
