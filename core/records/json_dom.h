#pragma once
// nlohmann::json parsing with errors turned into Status values that carry
// file, line, column and reason. For small files only (importers of
// KernelBench and leaderboard files); big inputs stream with simdjson.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kwb {

Result<nlohmann::json> parseJsonDom(std::string_view text, const std::string& fileName);

// Byte offsets of the root's members (by key, in file order, duplicates
// included) or elements ("[i]"), for messages about one record of a file that
// already parsed. Empty when the root is neither an object nor an array.
struct JsonMemberOffset {
    std::string key;
    std::size_t offset = 0;
};
std::vector<JsonMemberOffset> topLevelOffsets(std::string_view text);

// Position (file, line, column, offset, path) of a byte offset in text.
SourcePosition jsonPosition(std::string_view text, std::size_t offset, const std::string& fileName, std::string path = {});

// Short description of a JSON value's type for messages ("a string", "an array").
std::string jsonTypeName(const nlohmann::json& j);

} // namespace kwb
