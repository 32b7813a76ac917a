#include "traces/rule_table.h"

#include <algorithm>
#include <cstdlib>

#include <re2/re2.h>

#include "base/mapped_file.h"
#include "records/json_dom.h"

namespace kwb {

bool patternFinds(const re2::RE2& pattern, std::string_view text)
{
    return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

namespace {

Status schemaError(const std::string& source, const std::string& path, const std::string& what)
{
    SourcePosition where{source};
    where.path = path;
    return Status(ErrorCode::SchemaError, what, where);
}

Result<RulePattern> compile(const std::string& pattern, bool icase, const std::string& source, const std::string& path)
{
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingLatin1);
    options.set_case_sensitive(!icase);
    options.set_log_errors(false);
    auto re = std::make_shared<const RE2>(pattern, options);
    if (!re->ok()) return schemaError(source, path, "invalid regex '" + pattern + "': " + re->error());
    return RulePattern(std::move(re));
}

Result<std::string> stringMember(const nlohmann::json& obj, const char* key, const std::string& source, const std::string& path,
    bool required = true)
{
    auto it = obj.find(key);
    if (it == obj.end()) {
        if (!required) return std::string();
        return schemaError(source, path, std::string("missing \"") + key + "\"");
    }
    if (!it->is_string()) return schemaError(source, path + "." + key, "must be a string, not " + jsonTypeName(*it));
    return it->get<std::string>();
}

} // namespace

Result<RuleTable> RuleTable::parse(std::string_view json, const std::string& source)
{
    KWB_ASSIGN_OR_RETURN(nlohmann::json doc, parseJsonDom(json, source));
    if (!doc.is_object()) return schemaError(source, "", "a rule table is a JSON object, not " + jsonTypeName(doc));
    RuleTable table;
    table.m_source = source;
    if (auto s = doc.find("schema"); s != doc.end()) {
        if (!s->is_string() || s->get<std::string>() != kSchema)
            return schemaError(source, "schema", "unsupported rule table schema (expected \"" + std::string(kSchema) + "\")");
    }
    if (auto v = doc.find("version"); v != doc.end() && v->is_string()) table.m_version = v->get<std::string>();
    auto rules = doc.find("rules");
    if (rules == doc.end() || !rules->is_array()) return schemaError(source, "rules", "missing \"rules\" array");
    for (std::size_t i = 0; i < rules->size(); ++i) {
        const auto& r = (*rules)[i];
        const std::string path = "rules[" + std::to_string(i) + "]";
        if (!r.is_object()) return schemaError(source, path, "a rule is an object, not " + jsonTypeName(r));
        KernelRule rule;
        KWB_ASSIGN_OR_RETURN(rule.pattern, stringMember(r, "pattern", source, path));
        KWB_ASSIGN_OR_RETURN(rule.family, stringMember(r, "family", source, path));
        KWB_ASSIGN_OR_RETURN(rule.library, stringMember(r, "library", source, path));
        KWB_ASSIGN_OR_RETURN(rule.category, stringMember(r, "category", source, path));
        auto a = r.find("addressable");
        if (a == r.end() || !a->is_boolean()) return schemaError(source, path + ".addressable", "\"addressable\" must be true or false");
        rule.addressable = a->get<bool>();
        if (auto p = r.find("priority"); p != r.end()) {
            if (!p->is_number_integer()) return schemaError(source, path + ".priority", "\"priority\" must be an integer");
            rule.priority = p->get<std::int32_t>();
        }
        if (auto ic = r.find("ignore_case"); ic != r.end() && ic->is_boolean()) rule.ignoreCase = ic->get<bool>();
        KWB_ASSIGN_OR_RETURN(std::string kind, stringMember(r, "kind", source, path, false));
        if (kind == "kernel") rule.kind = ActivityKind::Kernel;
        else if (kind == "memcpy") rule.kind = ActivityKind::Memcpy;
        else if (kind == "memset") rule.kind = ActivityKind::Memset;
        else if (!kind.empty() && kind != "any")
            return schemaError(source, path + ".kind", "\"kind\" is kernel, memcpy, memset or any, not '" + kind + "'");
        if (rule.family == kUnclassifiedFamily)
            return schemaError(source, path + ".family", "\"unclassified\" is reserved for names no rule matches");
        KWB_ASSIGN_OR_RETURN(rule.regex, compile(rule.pattern, rule.ignoreCase, source, path + ".pattern"));
        table.m_rules.push_back(std::move(rule));
    }
    if (auto probs = doc.find("problem_families"); probs != doc.end()) {
        if (!probs->is_array()) return schemaError(source, "problem_families", "must be an array");
        for (std::size_t i = 0; i < probs->size(); ++i) {
            const auto& m = (*probs)[i];
            const std::string path = "problem_families[" + std::to_string(i) + "]";
            if (!m.is_object()) return schemaError(source, path, "must be an object");
            ProblemMapping pm;
            KWB_ASSIGN_OR_RETURN(pm.pattern, stringMember(m, "pattern", source, path));
            KWB_ASSIGN_OR_RETURN(pm.family, stringMember(m, "family", source, path));
            KWB_ASSIGN_OR_RETURN(pm.regex, compile(pm.pattern, true, source, path + ".pattern"));
            table.m_problems.push_back(std::move(pm));
        }
    }
    std::stable_sort(table.m_rules.begin(), table.m_rules.end(),
        [](const KernelRule& a, const KernelRule& b) { return a.priority > b.priority; });
    return table;
}

Result<RuleTable> RuleTable::load(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    return parse(text, path);
}

std::string RuleTable::defaultPath()
{
    if (const char* env = std::getenv("KWB_KERNEL_FAMILIES"); env && *env) return env;
    return std::string(KWB_RESOURCE_DIR) + "/kernel_families.json";
}

Result<RuleTable> RuleTable::loadDefault()
{
    return load(defaultPath());
}

const KernelRule* RuleTable::match(std::string_view name, ActivityKind kind) const
{
    for (const KernelRule& r : m_rules) {
        if (r.kind && *r.kind != kind) continue;
        if (patternFinds(*r.regex, name)) return &r;
    }
    return nullptr;
}

const KernelRule* RuleTable::familyInfo(std::string_view family) const
{
    for (const KernelRule& r : m_rules)
        if (r.family == family) return &r;
    return nullptr;
}

} // namespace kwb
