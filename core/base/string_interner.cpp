#include "base/string_interner.h"

namespace kwb {

StringInterner::StringInterner()
{
    intern(std::string_view());
}

StringId StringInterner::intern(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end()) return it->second;
    const auto id = static_cast<StringId>(m_strings.size());
    m_strings.emplace_back(text);
    m_index.emplace(std::string_view(m_strings.back()), id);
    return id;
}

} // namespace kwb
