#pragma once
// Members of a JSON object that the reader does not know, kept as their raw
// JSON text so that a load followed by a save loses nothing.
#include <string>
#include <utility>
#include <vector>

namespace kwb {

struct RawField {
    std::string key;
    std::string json; // the member's value exactly as valid JSON text
    bool operator==(const RawField&) const = default;
};

using RawFields = std::vector<RawField>;

inline const RawField* findRaw(const RawFields& fields, const std::string& key)
{
    for (const auto& f : fields)
        if (f.key == key) return &f;
    return nullptr;
}

} // namespace kwb
