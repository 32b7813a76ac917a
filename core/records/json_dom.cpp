#include "records/json_dom.h"

#include "base/mapped_file.h"

namespace kwb {

Result<nlohmann::json> parseJsonDom(std::string_view text, const std::string& fileName)
{
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        SourcePosition where{fileName};
        // nlohmann counts bytes from 1 and points just past the offending byte.
        const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
        where.offset = static_cast<std::int64_t>(offset);
        lineColumnOf(text, offset, where.line, where.column);
        std::string reason = e.what();
        // Strip the library's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
        if (auto p = reason.find(": "); p != std::string::npos && reason.rfind("[json.exception", 0) == 0)
            reason = reason.substr(p + 2);
        if (offset >= text.size()) reason = "file ends early (truncated?): " + reason;
        return Status(ErrorCode::ParseError, reason, where);
    } catch (const std::exception& e) {
        return Status(ErrorCode::ParseError, e.what(), SourcePosition{fileName});
    }
}

std::string jsonTypeName(const nlohmann::json& j)
{
    switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "an unexpected value";
    }
}

} // namespace kwb
