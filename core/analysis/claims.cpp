#include "analysis/claims.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "base/json_writer.h"
#include "base/text_table.h"

namespace kwb {

std::string_view claimVerdictName(ClaimVerdict v)
{
    switch (v) {
    case ClaimVerdict::Holds: return "holds";
    case ClaimVerdict::Shrank: return "shrank";
    case ClaimVerdict::Lost: return "lost";
    case ClaimVerdict::Suspect: return "suspect";
    case ClaimVerdict::Failed: return "failed";
    case ClaimVerdict::NotReMeasured: return "not_remeasured";
    case ClaimVerdict::NotAClaim: return "not_a_claim";
    }
    return "?";
}

std::string_view claimVerdictTitle(ClaimVerdict v)
{
    switch (v) {
    case ClaimVerdict::Holds: return "Holds";
    case ClaimVerdict::Shrank: return "Smaller win";
    case ClaimVerdict::Lost: return "No longer a win";
    case ClaimVerdict::Suspect: return "Suspect";
    case ClaimVerdict::Failed: return "Failed";
    case ClaimVerdict::NotReMeasured: return "Not re-measured";
    case ClaimVerdict::NotAClaim: return "Claimed no win";
    }
    return "?";
}

std::optional<double> ClaimPoint::ratio() const
{
    if (!claimed || !reMeasured || *claimed <= 0.0) return std::nullopt;
    return *reMeasured / *claimed;
}

namespace {

bool positiveFinite(double v)
{
    return std::isfinite(v) && v > 0.0;
}

} // namespace

std::vector<ClaimPoint> analyzeClaims(const std::vector<EvalRecord>& records, const ClaimOptions& options)
{
    std::vector<ClaimPoint> points;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const EvalRecord& r = records[i];
        ClaimPoint p;
        p.record = i;
        p.id = r.id;
        p.model = r.model.empty() ? std::string("(no model)") : r.model;
        p.problem = r.problem.label();
        if (r.speedup && positiveFinite(*r.speedup)) p.claimed = r.speedup;
        p.claimedGpu = r.candidate.provenance.gpu;
        bool haveRerun = false;
        if (const RawField* f = r.verification.storedRerun()) {
            // The re-run's result as kwb verify stored it (rerunResultToJson).
            const auto j = nlohmann::json::parse(f->json, nullptr, false);
            if (j.is_object()) {
                haveRerun = true;
                if (auto s = j.find("status"); s != j.end() && s->is_string()) p.rerunStatus = s->get<std::string>();
                if (auto s = j.find("speedup"); s != j.end() && s->is_number() && positiveFinite(s->get<double>()))
                    p.reMeasured = s->get<double>();
                if (auto d = j.find("device"); d != j.end() && d->is_object() && d->contains("name") && (*d)["name"].is_string())
                    p.reMeasuredGpu = (*d)["name"].get<std::string>();
            }
        }
        if (!p.claimed && !haveRerun) continue;
        bool error = false;
        bool warning = false;
        for (const auto& fl : r.verification.flags) {
            p.flags.push_back(fl.code);
            if (fl.severity == "error") error = true;
            else if (fl.severity == "warning") warning = true;
        }
        p.isClaim = p.claimed && *p.claimed > options.minClaim;
        if (!haveRerun) p.verdict = ClaimVerdict::NotReMeasured;
        else if (p.rerunStatus != "ok" || error || !r.isCorrect() || !p.reMeasured) p.verdict = ClaimVerdict::Failed;
        else if (warning) p.verdict = ClaimVerdict::Suspect;
        else if (!p.isClaim) p.verdict = ClaimVerdict::NotAClaim;
        else if (*p.reMeasured <= options.minClaim) p.verdict = ClaimVerdict::Lost;
        else if (p.claimed && *p.reMeasured < options.holdRatio * *p.claimed) p.verdict = ClaimVerdict::Shrank;
        else p.verdict = ClaimVerdict::Holds;
        points.push_back(std::move(p));
    }
    return points;
}

std::vector<ClaimTally> tallyClaims(const std::vector<ClaimPoint>& points)
{
    std::map<std::string, ClaimTally> byModel;
    std::map<std::string, std::vector<double>> ratios;
    ClaimTally all;
    all.model = "all";
    std::vector<double> allRatios;
    for (const auto& p : points) {
        for (ClaimTally* t : {&byModel[p.model], &all}) {
            if (t != &all) t->model = p.model;
            ++t->records;
            if (!p.isClaim) continue;
            ++t->claims;
            ++t->byVerdict[static_cast<int>(p.verdict)];
            if (p.verdict != ClaimVerdict::NotReMeasured) ++t->reMeasured;
        }
        if (p.isClaim && p.ratio() && p.verdict != ClaimVerdict::NotReMeasured) {
            ratios[p.model].push_back(*p.ratio());
            allRatios.push_back(*p.ratio());
        }
    }
    auto median = [](std::vector<double> v) -> std::optional<double> {
        if (v.empty()) return std::nullopt;
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    };
    std::vector<ClaimTally> out;
    for (auto& [model, t] : byModel) {
        t.medianRatio = median(ratios[model]);
        out.push_back(t);
    }
    all.medianRatio = median(allRatios);
    out.push_back(all);
    return out;
}

std::string claimTallyText(const std::vector<ClaimTally>& tallies, const ClaimOptions& options)
{
    using A = TextTable::Align;
    TextTable t({"model", "claims", "re-measured", "survive", "holds", "smaller", "lost", "suspect", "failed",
                    "not re-measured", "median ratio"},
        {A::Left, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right});
    for (const auto& c : tallies) {
        char surv[48];
        if (c.reMeasured > 0) std::snprintf(surv, sizeof surv, "%d (%.0f%%)", c.survived(), 100.0 * c.survived() / c.reMeasured);
        else std::snprintf(surv, sizeof surv, "-");
        t.addRow({c.model, std::to_string(c.claims), std::to_string(c.reMeasured), surv,
            std::to_string(c.byVerdict[0]), std::to_string(c.byVerdict[1]), std::to_string(c.byVerdict[2]),
            std::to_string(c.byVerdict[3]), std::to_string(c.byVerdict[4]), std::to_string(c.byVerdict[5]),
            c.medianRatio ? fixed(*c.medianRatio, 2) : std::string("-")});
    }
    char legend[320];
    std::snprintf(legend, sizeof legend,
        "A claim is a record's own speedup above %.3g; it survives its re-run when the record is correct, unflagged\n"
        "and still faster than the baseline (holds: at least %.0f%% of the claim). Ratio = re-measured / claimed.\n",
        options.minClaim, 100.0 * options.holdRatio);
    return t.toText() + legend;
}

std::string claimsToJson(const std::vector<ClaimPoint>& points, const std::vector<ClaimTally>& tallies,
    const ClaimOptions& options)
{
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.field("hold_ratio", options.holdRatio);
    w.field("min_claim", options.minClaim);
    w.key("tallies").beginArray();
    for (const auto& t : tallies) {
        w.beginObject();
        w.field("model", t.model);
        w.field("records", t.records);
        w.field("claims", t.claims);
        w.field("re_measured", t.reMeasured);
        w.field("survived", t.survived());
        for (int v = 0; v < kClaimVerdictCount; ++v)
            if (static_cast<ClaimVerdict>(v) != ClaimVerdict::NotAClaim)
                w.field(claimVerdictName(static_cast<ClaimVerdict>(v)), t.byVerdict[v]);
        w.optionalField("median_ratio", t.medianRatio);
        w.endObject();
    }
    w.endArray();
    w.key("points").beginArray();
    for (const auto& p : points) {
        w.beginObject();
        w.field("id", p.id);
        w.field("model", p.model);
        w.field("problem", p.problem);
        w.optionalField("claimed", p.claimed);
        w.optionalField("re_measured", p.reMeasured);
        w.nonEmptyField("rerun_status", p.rerunStatus);
        w.field("is_claim", p.isClaim);
        w.field("verdict", claimVerdictName(p.verdict));
        w.key("flags").beginArray();
        for (const auto& f : p.flags) w.value(f);
        w.endArray();
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return out;
}

} // namespace kwb
