#pragma once
// Plain-text and CSV tables for command-line output.
#include <string>
#include <vector>

namespace kwb {

class TextTable {
public:
    enum class Align { Left, Right };
    explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
    void addRow(std::vector<std::string> cells);
    std::string toText() const; // aligned columns, header underlined
    std::string toCsv() const;  // RFC 4180 quoting

private:
    std::vector<std::string> m_header;
    std::vector<Align> m_align;
    std::vector<std::vector<std::string>> m_rows;
};

// Fixed-point number with `digits` decimals, or "-" for nullopt-like NaN.
std::string fixed(double v, int digits);

} // namespace kwb
