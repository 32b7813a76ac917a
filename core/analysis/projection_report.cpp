#include "analysis/projection_report.h"

#include <cmath>
#include <map>
#include <set>

#include "base/json_writer.h"
#include "base/text_table.h"

namespace kwb {

std::string familyOfProblem(const RuleTable& rules, const std::string& problemName)
{
    for (const ProblemMapping& m : rules.problemMappings())
        if (m.matches(problemName)) return m.family;
    return {};
}

bool hasErrorFlag(const EvalRecord& r)
{
    for (const Flag& f : r.verification.flags)
        if (f.severity == "error") return true;
    return false;
}

namespace {

SampleStats statsOf(const std::vector<const EvalRecord*>& records)
{
    SampleStats s;
    s.records = records.size();
    std::set<std::string> problems;
    std::vector<double> correct;
    std::vector<double> wins;
    for (const EvalRecord* r : records) {
        problems.insert(r->problem.label());
        if (!r->isCorrect()) continue;
        const auto sp = effectiveSpeedup(*r);
        if (!sp || !(*sp > 0) || !std::isfinite(*sp)) continue;
        // An error flag says the kernel cannot have done the problem's work: not a win to deploy.
        if (hasErrorFlag(*r)) {
            ++s.errorFlagged;
            continue;
        }
        correct.push_back(*sp);
        if (*sp > 1.0) wins.push_back(*sp);
    }
    s.problems = problems.size();
    s.correctTimed = correct.size();
    s.wins = wins.size();
    if (!correct.empty()) s.winRate = static_cast<double>(wins.size()) / static_cast<double>(correct.size());
    s.medianSpeedupWins = median(wins);
    s.medianSpeedupCorrect = median(correct);
    return s;
}

double speedupFor(const SampleStats& s, SpeedupBasis basis)
{
    const auto v = basis == SpeedupBasis::Wins ? s.medianSpeedupWins : s.medianSpeedupCorrect;
    return v.value_or(1.0);
}

} // namespace

WorkloadProjection projectWorkload(const WorkloadBreakdown& workload, std::span<const EvalRecord> records,
    const RuleTable& rules, SpeedupBasis basis)
{
    WorkloadProjection out;
    out.workload = workload.name;
    out.basis = basis;
    std::map<std::string, double> addressableShare;
    for (const FamilyTime& f : workload.families)
        if (f.addressable && f.us > 0) addressableShare[f.family] = f.share;

    std::map<std::string, std::vector<const EvalRecord*>> byFamily;
    std::vector<const EvalRecord*> matched;
    for (const EvalRecord& r : records) {
        const std::string fam = familyOfProblem(rules, r.problem.name);
        if (fam.empty() || !addressableShare.count(fam)) continue;
        byFamily[fam].push_back(&r);
        matched.push_back(&r);
    }
    if (matched.empty()) {
        out.matching = "all records";
        for (const EvalRecord& r : records) matched.push_back(&r);
    } else {
        out.matching = "problem_families";
        for (const auto& [fam, recs] : byFamily) {
            FamilyProjection fp;
            fp.family = fam;
            fp.fraction = addressableShare[fam];
            fp.samples = statsOf(recs);
            const double w = fp.samples.winRate.value_or(0.0);
            fp.expectedSaving = project(fp.fraction, w, speedupFor(fp.samples, basis)).expectedSaving;
            out.familySavingSum += fp.expectedSaving;
            out.families.push_back(std::move(fp));
        }
    }
    out.samples = statsOf(matched);
    out.projection = project(workload.addressableFraction, out.samples.winRate.value_or(0.0), speedupFor(out.samples, basis));
    return out;
}

namespace {

std::string opt(const std::optional<double>& v, int digits) { return v ? fixed(*v, digits) : std::string("-"); }

const char* basisName(SpeedupBasis b) { return b == SpeedupBasis::Wins ? "wins" : "correct"; }

} // namespace

std::string projectionToText(const std::vector<WorkloadProjection>& projections)
{
    std::string out;
    for (const auto& p : projections) {
        if (!out.empty()) out += "\n";
        const Projection& pr = p.projection;
        out += p.workload + "\n";
        out += "  records matched (" + p.matching + "): " + std::to_string(p.samples.records) + " samples of "
            + std::to_string(p.samples.problems) + " problems; " + std::to_string(p.samples.correctTimed)
            + " correct and timed; " + std::to_string(p.samples.wins) + " faster than the baseline\n";
        if (p.samples.errorFlagged)
            out += "  left out: " + std::to_string(p.samples.errorFlagged)
                + " correct, timed samples with an error flag (their kernels cannot have done the work)\n";
        out += "  f  addressable fraction of GPU time        " + fixed(pr.addressableFraction, 4) + "\n";
        out += "  w  win rate (correct samples, speedup > 1) " + fixed(pr.winRate, 4) + "\n";
        out += "  s  median speedup (" + std::string(basisName(p.basis)) + ")" + std::string(p.basis == SpeedupBasis::Wins ? "   " : "") +
            "                 " + fixed(pr.medianSpeedup, 4) + "   (median of all correct: " + opt(p.samples.medianSpeedupCorrect, 4)
            + ", of wins: " + opt(p.samples.medianSpeedupWins, 4) + ")\n";
        out += "  expected end-to-end saving f*w*(1-1/s)     " + fixed(pr.expectedSaving * 100.0, 2) + "% of GPU time\n";
        out += "  Amdahl bound, every addressable kernel at s: speedup " + fixed(pr.amdahlSpeedup, 4) + "x, saving "
            + fixed(pr.amdahlSaving * 100.0, 2) + "%\n";
        if (!p.families.empty()) {
            out += "\n";
            TextTable t({"family", "f_i", "samples", "correct", "w_i", "s_i", "f_i*w_i*(1-1/s_i)"},
                {TextTable::Align::Left, TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Right,
                    TextTable::Align::Right, TextTable::Align::Right, TextTable::Align::Right});
            for (const auto& f : p.families) {
                const auto s = p.basis == SpeedupBasis::Wins ? f.samples.medianSpeedupWins : f.samples.medianSpeedupCorrect;
                t.addRow({f.family, fixed(f.fraction, 4), std::to_string(f.samples.records), std::to_string(f.samples.correctTimed),
                    opt(f.samples.winRate, 4), opt(s, 4), fixed(f.expectedSaving * 100.0, 3) + "%"});
            }
            out += t.toText();
            out += "  sum over matched families: " + fixed(p.familySavingSum * 100.0, 3) + "% of GPU time\n";
        }
    }
    return out;
}

std::string projectionToJson(const std::vector<WorkloadProjection>& projections)
{
    std::string out;
    JsonWriter w(out);
    auto stats = [&](const SampleStats& s) {
        w.beginObject();
        w.field("records", s.records);
        w.field("problems", s.problems);
        w.field("correct_timed", s.correctTimed);
        w.field("error_flagged_excluded", s.errorFlagged);
        w.field("wins", s.wins);
        w.optionalField("win_rate", s.winRate);
        w.optionalField("median_speedup_wins", s.medianSpeedupWins);
        w.optionalField("median_speedup_correct", s.medianSpeedupCorrect);
        w.endObject();
    };
    w.beginObject();
    w.field("schema", "kwb.projection/1");
    w.key("workloads").beginArray();
    for (const auto& p : projections) {
        w.beginObject();
        w.field("name", p.workload);
        w.field("matching", p.matching);
        w.field("speedup_basis", basisName(p.basis));
        w.key("samples");
        stats(p.samples);
        w.field("f", p.projection.addressableFraction);
        w.field("w", p.projection.winRate);
        w.field("s", p.projection.medianSpeedup);
        w.field("expected_saving", p.projection.expectedSaving);
        w.field("amdahl_speedup", p.projection.amdahlSpeedup);
        w.field("amdahl_saving", p.projection.amdahlSaving);
        w.key("families").beginArray();
        for (const auto& f : p.families) {
            w.beginObject();
            w.field("family", f.family);
            w.field("f", f.fraction);
            w.key("samples");
            stats(f.samples);
            w.field("expected_saving", f.expectedSaving);
            w.endObject();
        }
        w.endArray();
        if (!p.families.empty()) w.field("family_saving_sum", p.familySavingSum);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    out += '\n';
    return out;
}

} // namespace kwb
