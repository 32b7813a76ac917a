#include "problems/json_position_index.h"

#include <algorithm>

namespace kwb {

JsonPositionIndex::JsonPositionIndex(std::string_view text) : m_text(text)
{
    m_lineStarts.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') m_lineStarts.push_back(i + 1);
    scanValue("", 0);
    m_text = {};
}

void JsonPositionIndex::skipSpace()
{
    while (m_pos < m_text.size()
        && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
        ++m_pos;
}

bool JsonPositionIndex::scanString(std::string* decoded)
{
    if (m_pos >= m_text.size() || m_text[m_pos] != '"') return false;
    ++m_pos;
    while (m_pos < m_text.size()) {
        const char c = m_text[m_pos++];
        if (c == '"') return true;
        if (c == '\\' && m_pos < m_text.size()) {
            const char e = m_text[m_pos++];
            // Keys with \u escapes keep their raw form: paths are for messages only.
            if (decoded) {
                if (e == 'u') decoded->append("\\u");
                else decoded->push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
            }
            continue;
        }
        if (decoded) decoded->push_back(c);
    }
    return false;
}

void JsonPositionIndex::scanValue(const std::string& path, int depth)
{
    skipSpace();
    if (m_broken || m_pos >= m_text.size()) {
        m_broken = true;
        return;
    }
    m_offsets.emplace(path, m_pos);
    const char c = m_text[m_pos];
    if (c == '{' || c == '[') {
        if (depth >= kMaxDepth) {
            m_broken = true;
            return;
        }
        const bool object = c == '{';
        const char close = object ? '}' : ']';
        ++m_pos;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == close) {
            ++m_pos;
            return;
        }
        for (std::size_t index = 0; !m_broken; ++index) {
            std::string child;
            if (object) {
                skipSpace();
                std::string key;
                if (!scanString(&key)) {
                    m_broken = true;
                    return;
                }
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != ':') {
                    m_broken = true;
                    return;
                }
                ++m_pos;
                child = path.empty() ? key : path + "." + key;
            } else {
                child = path + "[" + std::to_string(index) + "]";
            }
            scanValue(child, depth + 1);
            skipSpace();
            if (m_pos >= m_text.size()) {
                m_broken = true;
                return;
            }
            if (m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_text[m_pos] == close) {
                ++m_pos;
                return;
            }
            m_broken = true;
        }
        return;
    }
    if (c == '"') {
        if (!scanString(nullptr)) m_broken = true;
        return;
    }
    while (m_pos < m_text.size() && m_text[m_pos] != ',' && m_text[m_pos] != '}' && m_text[m_pos] != ']'
        && m_text[m_pos] != ' ' && m_text[m_pos] != '\n' && m_text[m_pos] != '\r' && m_text[m_pos] != '\t')
        ++m_pos;
}

SourcePosition JsonPositionIndex::positionOf(const std::string& path, const std::string& fileName) const
{
    SourcePosition where;
    where.file = fileName;
    where.path = path;
    std::string probe = path;
    while (true) {
        if (auto it = m_offsets.find(probe); it != m_offsets.end()) {
            where.offset = static_cast<std::int64_t>(it->second);
            const auto line = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), it->second);
            where.line = line - m_lineStarts.begin();
            where.column = static_cast<std::int64_t>(it->second - *(line - 1)) + 1;
            break;
        }
        if (probe.empty()) return where;
        const std::size_t cut = probe.find_last_of(".[");
        probe = cut == std::string::npos ? std::string() : probe.substr(0, cut);
    }
    return where;
}

} // namespace kwb
