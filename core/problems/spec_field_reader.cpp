#include "problems/spec_field_reader.h"

#include <cmath>

#include "problems/size_expression.h"
#include "records/json_dom.h"

namespace kwb {

Status SpecFieldReader::error(const std::string& path, const std::string& reason) const
{
    SourcePosition where = m_index ? m_index->positionOf(path, m_fileName) : SourcePosition{m_fileName};
    where.path = path;
    return Status(ErrorCode::SchemaError, reason, where);
}

Status SpecFieldReader::requireObject(const nlohmann::json& j, const std::string& path) const
{
    if (!j.is_object()) return error(path, "expected an object, found " + jsonTypeName(j));
    return Status::ok();
}

Status SpecFieldReader::requireArray(const nlohmann::json& j, const std::string& path) const
{
    if (!j.is_array()) return error(path, "expected an array, found " + jsonTypeName(j));
    return Status::ok();
}

Status SpecFieldReader::checkKeys(const nlohmann::json& obj, const std::string& path,
    std::initializer_list<std::string_view> allowed) const
{
    for (const auto& [key, value] : obj.items()) {
        bool known = key == "comment";
        for (auto a : allowed) known = known || key == a;
        if (!known) {
            std::string list;
            for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            return error(member(path, key), "unknown member '" + key + "' (expected one of: " + list + ")");
        }
    }
    return Status::ok();
}

namespace {
const nlohmann::json* lookup(const nlohmann::json& obj, std::string_view key)
{
    auto it = obj.find(std::string(key));
    return it == obj.end() ? nullptr : &*it;
}
} // namespace

Status SpecFieldReader::getString(const nlohmann::json& obj, const std::string& path, std::string_view key,
    std::string& out, bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    if (!v->is_string()) return error(member(path, key), "expected a string, found " + jsonTypeName(*v));
    out = v->get<std::string>();
    return Status::ok();
}

Status SpecFieldReader::getInt(const nlohmann::json& obj, const std::string& path, std::string_view key,
    std::int64_t& out, bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    if (v->is_number_integer() && !(v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(INT64_MAX))) {
        out = v->get<std::int64_t>();
        return Status::ok();
    }
    return error(member(path, key), "expected a 64-bit integer, found " + (v->is_number() ? std::string("a non-integer number") : jsonTypeName(*v)));
}

Status SpecFieldReader::getUnsigned(const nlohmann::json& obj, const std::string& path, std::string_view key,
    std::uint64_t& out, bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    if (v->is_number_unsigned()) {
        out = v->get<std::uint64_t>();
        return Status::ok();
    }
    return error(member(path, key), "expected a non-negative integer, found " + jsonTypeName(*v));
}

Status SpecFieldReader::getNumber(const nlohmann::json& obj, const std::string& path, std::string_view key,
    double& out, bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    if (!v->is_number()) return error(member(path, key), "expected a number, found " + jsonTypeName(*v));
    out = v->get<double>();
    if (!std::isfinite(out)) return error(member(path, key), "expected a finite number");
    return Status::ok();
}

Status SpecFieldReader::getBool(const nlohmann::json& obj, const std::string& path, std::string_view key, bool& out,
    bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    if (!v->is_boolean()) return error(member(path, key), "expected true or false, found " + jsonTypeName(*v));
    out = v->get<bool>();
    return Status::ok();
}

Status SpecFieldReader::getStringList(const nlohmann::json& obj, const std::string& path, std::string_view key,
    std::vector<std::string>& out, bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    const std::string p = member(path, key);
    KWB_RETURN_IF_ERROR(requireArray(*v, p));
    out.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
        const auto& e = (*v)[i];
        if (!e.is_string()) return error(element(p, i), "expected a string, found " + jsonTypeName(e));
        out.push_back(e.get<std::string>());
    }
    return Status::ok();
}

Status SpecFieldReader::expressionFrom(const nlohmann::json& value, const std::string& path, std::string& out) const
{
    if (value.is_number_integer()) {
        out = value.dump();
        if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
            return error(path, "integer does not fit in 64 bits");
        return Status::ok();
    }
    if (!value.is_string()) return error(path, "expected an integer or a size expression string, found " + jsonTypeName(value));
    out = value.get<std::string>();
    auto names = sizeExpressionNames(out);
    if (!names) return error(path, names.status().message());
    return Status::ok();
}

Status SpecFieldReader::getExpression(const nlohmann::json& obj, const std::string& path, std::string_view key,
    std::string& out, bool required) const
{
    const auto* v = lookup(obj, key);
    if (!v) return required ? error(path, "missing member '" + std::string(key) + "'") : Status::ok();
    return expressionFrom(*v, member(path, key), out);
}

bool isIdentifier(std::string_view s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

bool isSpecId(std::string_view s)
{
    if (s.empty() || s.size() > 200) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                || c == '.'))
            return false;
    return true;
}

} // namespace kwb
