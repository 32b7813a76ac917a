#include "base/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kwb {

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : m_header(std::move(header)), m_align(std::move(align))
{
    m_align.resize(m_header.size(), Align::Left);
}

void TextTable::addRow(std::vector<std::string> cells)
{
    cells.resize(m_header.size());
    m_rows.push_back(std::move(cells));
}

namespace {
// Display width: count UTF-8 lead bytes only, so names with accents line up.
std::size_t displayWidth(const std::string& s)
{
    std::size_t w = 0;
    for (unsigned char c : s) w += (c & 0xC0) != 0x80 ? 1 : 0;
    return w;
}
} // namespace

std::string TextTable::toText() const
{
    std::vector<std::size_t> width(m_header.size());
    for (std::size_t c = 0; c < m_header.size(); ++c) width[c] = displayWidth(m_header[c]);
    for (const auto& row : m_rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], displayWidth(row[c]));
    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::size_t pad = width[c] - displayWidth(cells[c]);
            if (c) out += "  ";
            if (m_align[c] == Align::Right) out += std::string(pad, ' ') + cells[c];
            else out += cells[c] + (c + 1 < cells.size() ? std::string(pad, ' ') : std::string());
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "\n";
    };
    std::string out = line(m_header);
    std::vector<std::string> rule;
    for (auto w : width) rule.emplace_back(w, '-');
    out += line(rule);
    for (const auto& row : m_rows) out += line(row);
    return out;
}

std::string TextTable::toCsv() const
{
    auto cell = [](const std::string& s) {
        if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
        std::string q = "\"";
        for (char ch : s) {
            if (ch == '"') q += '"';
            q += ch;
        }
        return q + "\"";
    };
    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (std::size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + cell(cells[c]);
        return out + "\n";
    };
    std::string out = line(m_header);
    for (const auto& row : m_rows) out += line(row);
    return out;
}

std::string fixed(double v, int digits)
{
    if (!std::isfinite(v)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace kwb
