#include "records/json_dom.h"

#include "base/input_limits.h"
#include "base/json_scanner.h"
#include "base/mapped_file.h"

namespace kwb {

namespace {

SourcePosition positionAt(std::string_view text, std::size_t offset, const std::string& fileName)
{
    SourcePosition where{fileName};
    where.offset = static_cast<std::int64_t>(offset);
    lineColumnOf(text, offset, where.line, where.column);
    return where;
}

} // namespace

Result<nlohmann::json> parseJsonDom(std::string_view text, const std::string& fileName)
{
    // nlohmann parses deep nesting fine but copies and destroys it recursively:
    // bound the depth before a DOM exists.
    const int maxDepth = inputLimits().maxJsonDepth;
    if (auto at = jscan::findTooDeep(text, maxDepth))
        return Status(ErrorCode::ParseError,
            "JSON nesting is deeper than " + std::to_string(maxDepth) + " levels (the limit is KWB_MAX_JSON_DEPTH)",
            positionAt(text, *at, fileName));
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann counts bytes from 1 and points just past the offending byte.
        const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
        std::string reason = e.what();
        // Strip the library's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
        if (auto p = reason.find(": "); p != std::string::npos && reason.rfind("[json.exception", 0) == 0)
            reason = reason.substr(p + 2);
        if (offset >= text.size()) reason = "file ends early (truncated?): " + reason;
        return Status(ErrorCode::ParseError, reason, positionAt(text, offset, fileName));
    } catch (const nlohmann::json::out_of_range& e) {
        // 406 "number overflow parsing '1e400'" carries no position: find the token.
        std::string reason = e.what();
        if (auto p = reason.find("] "); p != std::string::npos && reason.rfind("[json.exception", 0) == 0)
            reason = reason.substr(p + 2);
        SourcePosition where{fileName};
        const auto q1 = reason.find('\'');
        const auto q2 = q1 == std::string::npos ? std::string::npos : reason.find('\'', q1 + 1);
        if (q2 != std::string::npos) {
            const std::string token = reason.substr(q1 + 1, q2 - q1 - 1);
            if (auto at = text.find(token); !token.empty() && at != std::string_view::npos) where = positionAt(text, at, fileName);
            reason = "number out of range: " + token;
        }
        return Status(ErrorCode::ParseError, reason, where);
    } catch (const std::exception& e) {
        return Status(ErrorCode::ParseError, e.what(), SourcePosition{fileName});
    }
}

std::vector<JsonMemberOffset> topLevelOffsets(std::string_view text)
{
    using namespace jscan;
    std::vector<JsonMemberOffset> out;
    Cursor c{text.data(), text.data() + text.size(), true};
    if (skipWs(c) != Scan::Ok) return out;
    if (*c.p == '{') {
        std::string scratch;
        ++c.p;
        for (;;) {
            if (skipWs(c) != Scan::Ok || *c.p != '"') break;
            const char* at = c.p;
            StrTok key;
            if (scanString(c, key) != Scan::Ok) break;
            out.push_back({std::string(decode(key, scratch)), static_cast<std::size_t>(at - text.data())});
            if (expect(c, ':', "") != Scan::Ok || skipValue(c) != Scan::Ok || skipWs(c) != Scan::Ok || *c.p != ',') break;
            ++c.p;
        }
    } else if (*c.p == '[') {
        ++c.p;
        for (std::size_t i = 0;; ++i) {
            if (skipWs(c) != Scan::Ok || *c.p == ']') break;
            out.push_back({"[" + std::to_string(i) + "]", static_cast<std::size_t>(c.p - text.data())});
            if (skipValue(c) != Scan::Ok || skipWs(c) != Scan::Ok || *c.p != ',') break;
            ++c.p;
        }
    }
    return out;
}

SourcePosition jsonPosition(std::string_view text, std::size_t offset, const std::string& fileName, std::string path)
{
    SourcePosition where = positionAt(text, offset, fileName);
    where.path = std::move(path);
    return where;
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
