#include "records/substitution_result.h"

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "records/json_dom.h"

namespace kwb {

namespace {

using json = nlohmann::json;

Status schema(const std::string& file, const std::string& path, const std::string& why)
{
    SourcePosition where;
    where.file = file;
    where.path = path;
    return Status(ErrorCode::SchemaError, why, where);
}

std::optional<double> number(const json& o, const char* key)
{
    auto it = o.find(key);
    return it != o.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

} // namespace

Result<SubstitutionResult> readSubstitutionResult(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    KWB_ASSIGN_OR_RETURN(json root, parseJsonDom(text, path));
    if (!root.is_object()) return schema(path, "", "expected a JSON object, got " + jsonTypeName(root));
    SubstitutionResult r;
    if (auto w = root.find("workload"); w != root.end() && w->is_object()) {
        if (w->contains("model") && (*w)["model"].is_string()) r.model = (*w)["model"].get<std::string>();
        else if (w->contains("tables")) r.model = "DLRM (" + std::to_string((*w).value("tables", 0)) + " tables, batch " +
                                                  std::to_string((*w).value("batch", 0)) + ")";
        if (w->contains("trace") && (*w)["trace"].is_string()) r.trace = (*w)["trace"].get<std::string>();
    }
    if (root.contains("device") && root["device"].is_string()) r.device = root["device"].get<std::string>();
    if (auto s = root.find("swapped"); s != root.end() && s->is_array())
        for (const auto& v : *s)
            if (v.is_string()) r.swapped.push_back(v.get<std::string>());
    if (r.swapped.empty())
        if (auto ops = root.find("ops"); ops != root.end() && ops->is_object())
            for (const auto& [k, v] : ops->items()) r.swapped.push_back(k);
    auto results = root.find("results");
    if (results == root.end() || !results->is_array()) return schema(path, "results", "expected an array");
    for (std::size_t i = 0; i < results->size(); ++i) {
        const json& p = (*results)[i];
        const std::string at = "results[" + std::to_string(i) + "].";
        if (!p.is_object()) return schema(path, at, "expected an object");
        SubstitutionPhase ph;
        ph.phase = p.value("phase", std::string());
        auto o = number(p, "original_ms");
        auto s = number(p, "substituted_ms");
        if (!o || !s || *o <= 0) return schema(path, at + "original_ms", "expected positive original_ms and substituted_ms");
        ph.originalMs = *o;
        ph.substitutedMs = *s;
        ph.measuredSaving = number(p, "measured_saving").value_or(1.0 - *s / *o);
        ph.originalIqrMs = number(p, "original_iqr_ms");
        ph.substitutedIqrMs = number(p, "substituted_iqr_ms");
        ph.steps = static_cast<int>(number(p, "steps").value_or(0));
        r.phases.push_back(ph);
    }
    if (auto proj = root.find("projection"); proj != root.end() && proj->is_object()) {
        auto add = [&](const std::string& basis, const json& p) {
            if (!p.is_object() || !number(p, "expected_saving")) return;
            SubstitutionProjection sp;
            sp.basis = basis;
            sp.expectedSaving = *number(p, "expected_saving");
            sp.amdahlSaving = number(p, "amdahl_saving");
            sp.f = number(p, "f").value_or(0.0);
            if (auto per = p.find("per_op"); per != p.end() && per->is_object())
                for (const auto& [k, v] : per->items()) sp.f += v.value("f", 0.0);
            r.projections.push_back(sp);
        };
        if (proj->contains("expected_saving")) add("kwb project", *proj);
        for (const auto& [k, v] : proj->items())
            if (v.is_object()) add(k, v);
    }
    if (auto c = root.find("check"); c != root.end() && c->is_object()) {
        if (c->contains("ok") && (*c)["ok"].is_boolean()) r.checkOk = (*c)["ok"].get<bool>();
        if (c->contains("forward_allclose_1e-4") && (*c)["forward_allclose_1e-4"].is_boolean())
            r.checkOk = r.checkOk && (*c)["forward_allclose_1e-4"].get<bool>();
    }
    return r;
}

} // namespace kwb
