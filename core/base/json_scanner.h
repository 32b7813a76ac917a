#pragma once
// A format-agnostic, resumable JSON scanner over a byte window, for readers
// that stream (the Kineto reader) and for checking JSON text that is kept
// verbatim (unknown members of native records). No DOM, no allocation on the
// hot path, no recursion: nesting is tracked in a bit stack and bounded.
//
// Every step returns Scan: Ok (consumed), NeedMore (the window ended inside
// the token: refill and retry the unit from its start) or Bad (errorAt and
// errorWhat say where and why). Numbers and literals are validated against
// the JSON grammar (no NaN, no leading zeros); skipped containers are
// validated too. Strings are lenient by default (raw control bytes and
// invalid UTF-8 are kept, as profilers write them); validateJson() is strict.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kwb::jscan {

enum class Scan : std::uint8_t { Ok, NeedMore, Bad };

// Deepest nesting the scanner tracks at all; callers pass a lower bound.
inline constexpr int kMaxScanDepth = 4096;
inline constexpr int kDefaultMaxDepth = 512;

struct Cursor {
    const char* p;
    const char* end;
    // The window ends where the input ends: a number or literal that runs to
    // `end` is complete, not cut off.
    bool final = false;
    const char* errorAt = nullptr;
    const char* errorWhat = nullptr;

    Scan bad(const char* at, const char* what)
    {
        errorAt = at;
        errorWhat = what;
        return Scan::Bad;
    }
};

#define KWB_SCAN(expr)                                                                          \
    do {                                                                                        \
        const ::kwb::jscan::Scan KWB_CONCAT(kwb_scan_, __LINE__) = (expr);                      \
        if (KWB_CONCAT(kwb_scan_, __LINE__) != ::kwb::jscan::Scan::Ok) return KWB_CONCAT(kwb_scan_, __LINE__); \
    } while (0)

inline bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

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
    for (const char* stop = c.end < s + 16 ? c.end : s + 16; s < stop; ++s) {
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

// JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool validNumber(const char* s, const char* e)
{
    if (s < e && *s == '-') ++s;
    if (s == e) return false;
    if (*s == '0') ++s;
    else if (*s >= '1' && *s <= '9') {
        while (s < e && isDigit(*s)) ++s;
    } else {
        return false;
    }
    if (s < e && *s == '.') {
        ++s;
        if (s == e || !isDigit(*s)) return false;
        while (s < e && isDigit(*s)) ++s;
    }
    if (s < e && (*s == 'e' || *s == 'E')) {
        ++s;
        if (s < e && (*s == '+' || *s == '-')) ++s;
        if (s == e || !isDigit(*s)) return false;
        while (s < e && isDigit(*s)) ++s;
    }
    return s == e;
}

inline bool isNumChar(char ch)
{
    return isDigit(ch) || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E';
}

// A number token, kept as text; interpretation is up to the caller. One pass
// checks the grammar (this runs for every ts, dur, pid and id of a trace).
inline Scan scanNumber(Cursor& c, std::string_view& out)
{
    const char* s = c.p;
    const char* p = s;
    const char* end = c.end;
    auto digits = [&]() {
        const char* q = p;
        while (p < end && isDigit(*p)) ++p;
        return p > q;
    };
    bool ok = true;
    if (p < end && *p == '-') ++p;
    if (p < end && *p == '0') ++p;
    else ok = digits();
    if (ok && p < end && *p == '.') {
        ++p;
        ok = digits();
    }
    if (ok && p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end && (*p == '+' || *p == '-')) ++p;
        ok = digits();
    }
    if (p == end && !c.final) return Scan::NeedMore; // may continue in the next window
    // "01", "1.2.3", "1e": the token goes on past what the grammar allows.
    if (!ok || (p < end && isNumChar(*p))) return c.bad(s, "malformed number");
    c.p = p;
    out = {s, static_cast<std::size_t>(p - s)};
    return Scan::Ok;
}

// Skips one scalar (string, number, true, false, null).
Scan skipScalar(Cursor& c);

// Containers and literals: the out-of-line part of skipValue.
Scan skipValueSlow(Cursor& c, int maxDepth);

// Skips any JSON value, validating it; containers deeper than maxDepth are an error.
inline Scan skipValue(Cursor& c, int maxDepth = kDefaultMaxDepth)
{
    if (skipWs(c) != Scan::Ok) return Scan::NeedMore;
    const char ch = *c.p;
    if (ch == '"') {
        StrTok t;
        return scanString(c, t);
    }
    if (ch == '-' || isDigit(ch)) {
        std::string_view n;
        return scanNumber(c, n);
    }
    return skipValueSlow(c, maxDepth);
}

// Expects `ch` after optional whitespace.
inline Scan expect(Cursor& c, char ch, const char* what)
{
    if (skipWs(c) != Scan::Ok) return Scan::NeedMore;
    if (*c.p != ch) return c.bad(c.p, what);
    ++c.p;
    return Scan::Ok;
}

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

// Decodes JSON escapes into scratch when there are any; malformed escapes are
// kept literally (names matter more than purity).
std::string_view decode(const StrTok& t, std::string& scratch);

// Integer value of a number token: an integer literal within int64, or an
// integral fractional/exponent form within int64; nullopt otherwise.
std::optional<std::int64_t> numberToInt64(std::string_view token);

// Where a strict check of a complete JSON text failed.
struct JsonTextError {
    std::size_t offset = 0;
    std::string what;
};

// Checks that `text` is exactly one JSON value (whitespace around it is
// allowed) under the strict grammar: strings without raw control bytes,
// with valid escapes and valid UTF-8. nullopt when it is valid.
std::optional<JsonTextError> validateJson(std::string_view text, int maxDepth = kDefaultMaxDepth);

// Offset of the first bracket that nests deeper than maxDepth (strings are
// skipped), or nullopt. Linear and allocation-free: run before building a DOM.
std::optional<std::size_t> findTooDeep(std::string_view text, int maxDepth);

} // namespace kwb::jscan
