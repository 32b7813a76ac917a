#pragma once
// nlohmann::json parsing with errors turned into Status values that carry
// file, line, column and reason. For small files only (importers of
// KernelBench and leaderboard files); big inputs stream with simdjson.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kwb {

Result<nlohmann::json> parseJsonDom(std::string_view text, const std::string& fileName);

// Short description of a JSON value's type for messages ("a string", "an array").
std::string jsonTypeName(const nlohmann::json& j);

} // namespace kwb
