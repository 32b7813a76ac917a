#include "base/json_writer.h"

#include <charconv>
#include <cmath>

namespace kwb {

void JsonWriter::separator()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_first.empty()) {
        if (!m_first.back()) m_out.push_back(',');
        m_first.back() = false;
    }
}

JsonWriter& JsonWriter::beginObject()
{
    separator();
    m_out.push_back('{');
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endObject()
{
    m_out.push_back('}');
    m_first.pop_back();
    return *this;
}

JsonWriter& JsonWriter::beginArray()
{
    separator();
    m_out.push_back('[');
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endArray()
{
    m_out.push_back(']');
    m_first.pop_back();
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view k)
{
    separator();
    appendEscaped(m_out, k);
    m_out.push_back(':');
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s)
{
    separator();
    appendEscaped(m_out, s);
    return *this;
}

JsonWriter& JsonWriter::value(double d)
{
    separator();
    m_out += formatDouble(d);
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t i)
{
    separator();
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, i);
    m_out.append(buf, res.ptr);
    return *this;
}

JsonWriter& JsonWriter::value(bool b)
{
    separator();
    m_out += b ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null()
{
    separator();
    m_out += "null";
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json)
{
    separator();
    m_out.append(json);
    return *this;
}

std::string formatDouble(double d)
{
    if (!std::isfinite(d)) return "null";
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, d);
    std::string s(buf, res.ptr);
    // Keep a double recognisable as one when it happens to be integral.
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
}

namespace {
// Length of a valid UTF-8 sequence starting at p, or 0 when invalid.
std::size_t utf8SequenceLength(const unsigned char* p, std::size_t avail)
{
    const unsigned char c = p[0];
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return 0;
    if (avail < len) return 0;
    for (std::size_t i = 1; i < len; ++i) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return 0;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}
} // namespace

void JsonWriter::appendEscaped(std::string& out, std::string_view s)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = p[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        switch (c) {
        case '"': out += "\\\""; ++i; continue;
        case '\\': out += "\\\\"; ++i; continue;
        case '\n': out += "\\n"; ++i; continue;
        case '\r': out += "\\r"; ++i; continue;
        case '\t': out += "\\t"; ++i; continue;
        default: break;
        }
        if (c < 0x20) {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
            ++i;
            continue;
        }
        const std::size_t len = utf8SequenceLength(p + i, n - i);
        if (len == 0) {
            out += "\\ufffd"; // invalid byte: replacement character
            ++i;
        } else {
            out.append(reinterpret_cast<const char*>(p + i), len);
            i += len;
        }
    }
    out.push_back('"');
}

} // namespace kwb
