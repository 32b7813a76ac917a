#pragma once
// Byte offsets of the values in a JSON text by path ("inputs[1].shape[0]"),
// so that schema errors found on a parsed DOM can name line and column too.
// Built by a small scanner over text that already parsed; nesting deeper than
// kMaxDepth is left unindexed (positions unknown), never a crash.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace kwb {

class JsonPositionIndex {
public:
    static constexpr int kMaxDepth = 256;

    JsonPositionIndex() = default;
    explicit JsonPositionIndex(std::string_view text);

    // Position of the value at `path` (or of the nearest indexed parent), with
    // the file name filled in; line/column 0 when unknown.
    SourcePosition positionOf(const std::string& path, const std::string& fileName) const;

private:
    void scanValue(const std::string& path, int depth);
    void skipSpace();
    bool scanString(std::string* decoded);

    std::string_view m_text;
    std::size_t m_pos = 0;
    bool m_broken = false;
    std::unordered_map<std::string, std::size_t> m_offsets;
    std::vector<std::size_t> m_lineStarts; // byte offset of each line's first byte
};

} // namespace kwb
