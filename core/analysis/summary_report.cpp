#include "analysis/summary_report.h"

#include <charconv>

#include "base/json_writer.h"
#include "base/text_table.h"

namespace kwb {

std::string pKey(double p)
{
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, p);
    return std::string(buf, res.ptr);
}

namespace {

void optionalNumber(JsonWriter& w, const char* key, const std::optional<double>& v)
{
    w.key(key);
    if (v) w.value(*v);
    else w.null();
}

void interval(JsonWriter& w, const char* key, const std::optional<ConfidenceInterval>& ci)
{
    w.key(key);
    if (!ci) {
        w.null();
        return;
    }
    w.beginArray().value(ci->low).value(ci->high).endArray();
}

std::string keyLabel(const GroupSummary& g)
{
    if (g.key.empty()) return "all";
    std::string out;
    for (const auto& [field, value] : g.key) out += (out.empty() ? "" : " | ") + (value.empty() ? "(none)" : value);
    return out;
}

std::string opt(const std::optional<double>& v, int digits)
{
    return v ? fixed(*v, digits) : "-";
}

} // namespace

std::string summaryToJson(const std::vector<GroupSummary>& groups, const std::vector<Status>& errors,
    std::string_view claimsJson)
{
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.key("groups").beginArray();
    for (const auto& g : groups) {
        w.beginObject();
        w.key("key").beginObject();
        for (const auto& [field, value] : g.key) w.field(field, value);
        w.endObject();
        w.field("records", g.records);
        w.field("compiled", g.compiled);
        w.field("correct", g.correct);
        w.field("timed_correct", g.timedCorrect);
        w.field("problems", g.problems);
        w.field("flagged", g.flagged);
        w.field("correctness_rate", g.correctnessRate);
        optionalNumber(w, "median_speedup", g.medianSpeedup);
        optionalNumber(w, "geomean_speedup", g.geomeanSpeedup);
        optionalNumber(w, "win_rate", g.winRate);
        interval(w, "median_speedup_ci95", g.medianCi);
        interval(w, "win_rate_ci95", g.winRateCi);
        w.key("fast_p").beginObject();
        for (const auto& [p, v] : g.fastP) w.field(pKey(p), v);
        w.endObject();
        w.key("pass_at_k").beginObject();
        for (const auto& [k, v] : g.passAtK) w.field(std::to_string(k), v);
        w.endObject();
        if (g.fastPCurve.denominator > 0) {
            // Step function: fast_p(p) = value of the last breakpoint <= p, or at_zero below the first.
            w.key("fast_p_curve").beginObject();
            w.field("at_zero", g.fastPCurve.atZero);
            w.key("breakpoints").beginArray();
            for (std::size_t i = 0; i < g.fastPCurve.breakpoints.size(); ++i)
                w.beginArray().value(g.fastPCurve.breakpoints[i]).value(g.fastPCurve.valueAfter[i]).endArray();
            w.endArray();
            w.endObject();
        }
        w.endObject();
    }
    w.endArray();
    w.key("errors").beginArray();
    for (const auto& e : errors) {
        w.beginObject();
        w.field("file", e.where().file);
        if (e.where().line > 0) w.field("line", e.where().line);
        if (e.where().column > 0) w.field("column", e.where().column);
        if (e.where().offset >= 0) w.field("offset", e.where().offset);
        w.nonEmptyField("path", e.where().path);
        w.field("code", errorCodeName(e.code()));
        w.field("reason", e.message());
        w.field("message", e.toString());
        w.endObject();
    }
    w.endArray();
    if (!claimsJson.empty()) w.key("claims").raw(claimsJson);
    w.endObject();
    out += "\n";
    return out;
}

namespace {
TextTable buildTable(const std::vector<GroupSummary>& groups, bool forCsv)
{
    std::vector<std::string> header{"group", "records", "correct", "correct_rate", "median_speedup", "median_ci95",
        "geomean_speedup", "win_rate"};
    std::vector<TextTable::Align> align{TextTable::Align::Left};
    align.resize(header.size(), TextTable::Align::Right);
    if (!groups.empty())
        for (const auto& [p, v] : groups.front().fastP) {
            header.push_back("fast_" + pKey(p));
            align.push_back(TextTable::Align::Right);
        }
    TextTable t(header, align);
    for (const auto& g : groups) {
        std::vector<std::string> row{keyLabel(g), std::to_string(g.records), std::to_string(g.correct),
            fixed(g.correctnessRate, 3), opt(g.medianSpeedup, 3),
            g.medianCi ? fixed(g.medianCi->low, 3) + (forCsv ? ";" : "-") + fixed(g.medianCi->high, 3) : "-",
            opt(g.geomeanSpeedup, 3), opt(g.winRate, 3)};
        for (const auto& [p, v] : g.fastP) row.push_back(fixed(v, 3));
        t.addRow(std::move(row));
    }
    return t;
}
} // namespace

std::string summaryToCsv(const std::vector<GroupSummary>& groups)
{
    return buildTable(groups, true).toCsv();
}

std::string summaryToTable(const std::vector<GroupSummary>& groups)
{
    return buildTable(groups, false).toText();
}

} // namespace kwb
