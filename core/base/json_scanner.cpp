#include "base/json_scanner.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "base/utf8.h"

namespace kwb::jscan {

namespace {

int hexVal(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
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

// The strict string grammar: no raw control bytes, only JSON's escapes, valid UTF-8.
Scan scanStringStrict(Cursor& c)
{
    const char* s = c.p + 1;
    const char* begin = s;
    for (; s < c.end; ++s) {
        const auto ch = static_cast<unsigned char>(*s);
        if (ch == '"') {
            if (const std::size_t bad = firstInvalidUtf8({begin, static_cast<std::size_t>(s - begin)}); bad != std::string_view::npos)
                return c.bad(begin + bad, "invalid UTF-8 in a string");
            c.p = s + 1;
            return Scan::Ok;
        }
        if (ch < 0x20) return c.bad(s, "control character in a string (must be escaped)");
        if (ch == '\\') {
            if (s + 1 >= c.end) return Scan::NeedMore;
            const char e = s[1];
            if (e == 'u') {
                if (s + 5 >= c.end) return Scan::NeedMore;
                std::uint32_t cp = 0;
                for (int i = 2; i <= 5; ++i) {
                    const int h = hexVal(s[i]);
                    if (h < 0) return c.bad(s, "malformed \\u escape");
                    cp = cp * 16 + static_cast<std::uint32_t>(h);
                }
                // UTF-16 surrogates come in pairs: strict parsers reject a lone one.
                if (cp >= 0xDC00 && cp < 0xE000) return c.bad(s, "lone low surrogate in a \\u escape");
                if (cp >= 0xD800 && cp < 0xDC00) {
                    if (s + 11 >= c.end) return c.bad(s, "high surrogate not followed by a low one");
                    std::uint32_t lo = 0;
                    bool ok = s[6] == '\\' && s[7] == 'u';
                    for (int i = 8; ok && i <= 11; ++i) {
                        const int h = hexVal(s[i]);
                        ok = h >= 0;
                        lo = lo * 16 + static_cast<std::uint32_t>(h);
                    }
                    if (!ok || lo < 0xDC00 || lo >= 0xE000) return c.bad(s, "high surrogate not followed by a low one");
                    s += 6;
                }
                s += 5;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                ++s;
            } else {
                return c.bad(s, "invalid escape in a string");
            }
        }
    }
    return Scan::NeedMore;
}

template <bool kStrict>
Scan skipScalarImpl(Cursor& c)
{
    const char first = *c.p;
    if (first == '"') {
        if constexpr (kStrict) return scanStringStrict(c);
        StrTok t;
        return scanString(c, t);
    }
    if (first == '-' || isDigit(first)) {
        std::string_view num;
        const Scan s = scanNumber(c, num);
        if constexpr (kStrict) {
            // Valid grammar, but 1e400 is no double: common parsers refuse it.
            if (s == Scan::Ok && !std::isfinite(std::strtod(std::string(num).c_str(), nullptr)))
                return c.bad(num.data(), "number out of range of a double");
        }
        return s;
    }
    for (std::string_view lit : {std::string_view("true"), std::string_view("false"), std::string_view("null")}) {
        if (first != lit[0]) continue;
        const auto avail = static_cast<std::size_t>(c.end - c.p);
        if (avail < lit.size()) {
            if (!c.final && std::string_view(c.p, avail) == lit.substr(0, avail)) return Scan::NeedMore;
            return c.bad(c.p, "malformed literal (expected true, false or null)");
        }
        if (std::string_view(c.p, lit.size()) != lit) return c.bad(c.p, "malformed literal (expected true, false or null)");
        c.p += lit.size();
        // "nullx", "true1": a literal runs into more letters or digits.
        if (c.p < c.end && (std::isalnum(static_cast<unsigned char>(*c.p)) || *c.p == '_'))
            return c.bad(c.p - lit.size(), "malformed literal (expected true, false or null)");
        return Scan::Ok;
    }
    if (first == 'N' || first == 'I') return c.bad(c.p, "NaN and Infinity are not JSON numbers");
    return c.bad(c.p, "expected a JSON value");
}

template <bool kStrict>
Scan skipValueImpl(Cursor& c, int maxDepth)
{
    if (skipWs(c) != Scan::Ok) return Scan::NeedMore;
    if (*c.p != '{' && *c.p != '[') return skipScalarImpl<kStrict>(c);
    if (maxDepth > kMaxScanDepth) maxDepth = kMaxScanDepth;
    // One bit per open container (1 = object): a word covers real documents,
    // deeper nesting spills to the heap.
    std::uint64_t shallow = 0;
    std::vector<std::uint64_t> deep;
    int depth = 0;
    auto open = [&](char ch) -> bool {
        if (depth >= maxDepth) return false;
        const std::uint64_t bit = std::uint64_t(1) << (depth % 64);
        std::uint64_t* word = &shallow;
        if (depth >= 64) {
            if (deep.size() <= static_cast<std::size_t>(depth / 64)) deep.resize(static_cast<std::size_t>(depth / 64) + 1, 0);
            word = &deep[static_cast<std::size_t>(depth / 64)];
        }
        if (ch == '{') *word |= bit;
        else *word &= ~bit;
        ++depth;
        ++c.p;
        return true;
    };
    auto inObject = [&]() {
        const int d = depth - 1;
        const std::uint64_t word = d < 64 ? shallow : deep[static_cast<std::size_t>(d / 64)];
        return (word >> (d % 64)) & 1;
    };
    if (!open(*c.p)) return c.bad(c.p, "JSON nesting is deeper than the limit (KWB_MAX_JSON_DEPTH)");
    bool justOpened = true;
    for (;;) {
        KWB_SCAN(skipWs(c));
        char ch = *c.p;
        const bool obj = inObject();
        if (justOpened && ch == (obj ? '}' : ']')) {
            ++c.p;
            if (--depth == 0) return Scan::Ok;
        } else {
            if (obj) {
                if (ch != '"') return c.bad(c.p, "expected a member name in quotes");
                if constexpr (kStrict) {
                    KWB_SCAN(scanStringStrict(c));
                } else {
                    StrTok key;
                    KWB_SCAN(scanString(c, key));
                }
                KWB_SCAN(expect(c, ':', "expected ':' after a member name"));
                KWB_SCAN(skipWs(c));
                ch = *c.p;
            }
            if (ch == '{' || ch == '[') {
                if (!open(ch)) return c.bad(c.p, "JSON nesting is deeper than the limit (KWB_MAX_JSON_DEPTH)");
                justOpened = true;
                continue;
            }
            KWB_SCAN(skipScalarImpl<kStrict>(c));
        }
        justOpened = false;
        // After a value: a separator, or closers.
        for (;;) {
            KWB_SCAN(skipWs(c));
            const bool o = inObject();
            if (*c.p == ',') {
                ++c.p;
                break;
            }
            if (*c.p == (o ? '}' : ']')) {
                ++c.p;
                if (--depth == 0) return Scan::Ok;
                continue;
            }
            return c.bad(c.p, o ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
        }
    }
}

} // namespace

Scan skipScalar(Cursor& c)
{
    return skipScalarImpl<false>(c);
}

Scan skipValueSlow(Cursor& c, int maxDepth)
{
    return skipValueImpl<false>(c, maxDepth);
}

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

std::optional<std::int64_t> numberToInt64(std::string_view t)
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
        if (!isDigit(ch)) {
            if (ch == '.' || ch == 'e' || ch == 'E') {
                // 12.0 or 1e3: accept when the value is integral and in range.
                const std::string tmp(t);
                const double d = std::strtod(tmp.c_str(), nullptr);
                if (d >= -9.2e18 && d <= 9.2e18 && static_cast<double>(static_cast<std::int64_t>(d)) == d)
                    return static_cast<std::int64_t>(d);
            }
            return std::nullopt;
        }
        if (v > (static_cast<std::uint64_t>(INT64_MAX) - static_cast<std::uint64_t>(ch - '0')) / 10) return std::nullopt;
        v = v * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

std::optional<JsonTextError> validateJson(std::string_view text, int maxDepth)
{
    Cursor c{text.data(), text.data() + text.size(), true};
    const Scan s = skipValueImpl<true>(c, maxDepth);
    if (s == Scan::Bad) return JsonTextError{static_cast<std::size_t>(c.errorAt - text.data()), c.errorWhat};
    if (s == Scan::NeedMore) return JsonTextError{text.size(), "unexpected end of the JSON text"};
    while (c.p < c.end && isWs(*c.p)) ++c.p;
    if (c.p != c.end) return JsonTextError{static_cast<std::size_t>(c.p - text.data()), "unexpected data after the JSON value"};
    return std::nullopt;
}

std::optional<std::size_t> findTooDeep(std::string_view text, int maxDepth)
{
    int depth = 0;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        const char ch = *p;
        if (ch == '"') {
            // Skip the string; an unterminated one is the parser's to report.
            ++p;
            while (p < end && *p != '"') p += *p == '\\' ? 2 : 1;
            ++p;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (++depth > maxDepth) return static_cast<std::size_t>(p - text.data());
        } else if (ch == '}' || ch == ']') {
            --depth;
        }
        ++p;
    }
    return std::nullopt;
}

} // namespace kwb::jscan
