#pragma once
// Typed access to the members of a spec's JSON DOM, with errors that name the
// file, the position (from a JsonPositionIndex when the text is at hand) and
// the JSON path. Unknown members are errors: a typo in a spec must not pass
// silently. Internal to core/problems.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "problems/json_position_index.h"

namespace kwb {

// A C identifier: tensor, size and entry-point names.
bool isIdentifier(std::string_view s);
// A spec id: letters, digits, '_', '-', '.', at most 200 characters.
bool isSpecId(std::string_view s);

class SpecFieldReader {
public:
    SpecFieldReader(std::string fileName, const JsonPositionIndex* index)
        : m_fileName(std::move(fileName)), m_index(index) {}

    Status error(const std::string& path, const std::string& reason) const;

    static std::string member(const std::string& path, std::string_view key)
    {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }
    static std::string element(const std::string& path, std::size_t i)
    {
        return path + "[" + std::to_string(i) + "]";
    }

    Status requireObject(const nlohmann::json& j, const std::string& path) const;
    Status requireArray(const nlohmann::json& j, const std::string& path) const;
    Status checkKeys(const nlohmann::json& obj, const std::string& path, std::initializer_list<std::string_view> allowed) const;

    // Optional members keep `out` when absent; required ones fail.
    Status getString(const nlohmann::json& obj, const std::string& path, std::string_view key, std::string& out,
        bool required = false) const;
    Status getInt(const nlohmann::json& obj, const std::string& path, std::string_view key, std::int64_t& out,
        bool required = false) const;
    Status getUnsigned(const nlohmann::json& obj, const std::string& path, std::string_view key, std::uint64_t& out,
        bool required = false) const;
    Status getNumber(const nlohmann::json& obj, const std::string& path, std::string_view key, double& out,
        bool required = false) const;
    Status getBool(const nlohmann::json& obj, const std::string& path, std::string_view key, bool& out,
        bool required = false) const;
    Status getStringList(const nlohmann::json& obj, const std::string& path, std::string_view key,
        std::vector<std::string>& out, bool required = false) const;
    // A size expression: a JSON integer or a string, checked for syntax.
    Status expressionFrom(const nlohmann::json& value, const std::string& path, std::string& out) const;
    Status getExpression(const nlohmann::json& obj, const std::string& path, std::string_view key, std::string& out,
        bool required = false) const;

    const std::string& fileName() const { return m_fileName; }

private:
    std::string m_fileName;
    const JsonPositionIndex* m_index;
};

} // namespace kwb
