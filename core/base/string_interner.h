#pragma once
// Interns strings once at ingest; tables refer to them by 32-bit id.
// Not thread-safe: one interner belongs to one loader or one finished table.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kwb {

using StringId = std::uint32_t;

class StringInterner {
public:
    StringInterner();

    StringId intern(std::string_view text);
    std::string_view view(StringId id) const { return m_strings[id]; }
    std::size_t size() const { return m_strings.size(); }
    static constexpr StringId kEmpty = 0;

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::deque<std::string> m_strings; // deque: views stay valid as it grows
    std::unordered_map<std::string_view, StringId, Hash, std::equal_to<>> m_index;
};

} // namespace kwb
