#include "analysis/statistics.h"

#include <cmath>
#include <map>
#include <set>

namespace kwb {

std::optional<double> median(std::vector<double> values)
{
    return quantile(std::move(values), 0.5);
}

std::optional<double> quantile(std::vector<double> values, double q)
{
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    const double frac = pos - static_cast<double>(lo);
    return values[lo] + (values[hi] - values[lo]) * frac;
}

std::optional<double> geometricMean(std::span<const double> values)
{
    if (values.empty()) return std::nullopt;
    double logSum = 0;
    for (double v : values) {
        if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
        logSum += std::log(v);
    }
    return std::exp(logSum / static_cast<double>(values.size()));
}

std::optional<double> effectiveSpeedup(const EvalRecord& r)
{
    if (r.speedup) {
        if (std::isfinite(*r.speedup) && *r.speedup > 0) return r.speedup;
        return std::nullopt;
    }
    const auto cand = r.candidate.centralMs();
    if (!cand || *cand <= 0 || r.baselines.empty()) return std::nullopt;
    const auto base = r.baselines.front().stats.centralMs();
    if (!base || *base <= 0) return std::nullopt;
    return *base / *cand;
}

double fastP(std::span<const EvalRecord* const> records, double p)
{
    if (records.empty()) return 0;
    std::size_t n = 0;
    for (const EvalRecord* r : records) {
        if (!r->isCorrect()) continue;
        const auto s = effectiveSpeedup(*r);
        if (s && *s > p) ++n;
    }
    return static_cast<double>(n) / static_cast<double>(records.size());
}

double FastPCurve::evaluate(double p) const
{
    // fast_p(p) counts speedups strictly above p: find the first breakpoint > p.
    auto it = std::upper_bound(breakpoints.begin(), breakpoints.end(), p);
    if (it == breakpoints.begin()) return atZero;
    return valueAfter[static_cast<std::size_t>(it - breakpoints.begin()) - 1];
}

FastPCurve fastPCurve(std::span<const EvalRecord* const> records)
{
    FastPCurve curve;
    curve.denominator = records.size();
    if (records.empty()) return curve;
    std::vector<double> speedups;
    for (const EvalRecord* r : records)
        if (r->isCorrect())
            if (auto s = effectiveSpeedup(*r)) speedups.push_back(*s);
    std::sort(speedups.begin(), speedups.end());
    const double n = static_cast<double>(records.size());
    curve.atZero = static_cast<double>(speedups.size()) / n;
    for (std::size_t i = 0; i < speedups.size(); ++i) {
        if (i + 1 < speedups.size() && speedups[i + 1] == speedups[i]) continue; // ties: one breakpoint
        curve.breakpoints.push_back(speedups[i]);
        curve.valueAfter.push_back(static_cast<double>(speedups.size() - i - 1) / n);
    }
    return curve;
}

double passAtK(std::int64_t n, std::int64_t c, std::int64_t k)
{
    if (n <= 0 || k <= 0 || k > n) return 0;
    if (n - c < k) return 1.0;
    // 1 - prod_{i=n-c+1}^{n} (1 - k/i), numerically stable form.
    double prod = 1.0;
    for (std::int64_t i = n - c + 1; i <= n; ++i) prod *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
    return 1.0 - prod;
}

namespace {

double medianOf(const std::vector<double>& v)
{
    return median(v).value_or(0);
}

double winShare(const std::vector<double>& v)
{
    if (v.empty()) return 0;
    std::size_t w = 0;
    for (double x : v) w += x > 1.0 ? 1 : 0;
    return static_cast<double>(w) / static_cast<double>(v.size());
}

GroupSummary summarizeGroup(std::span<const EvalRecord* const> records, const SummaryOptions& options)
{
    GroupSummary g;
    g.records = records.size();
    std::vector<double> speedups;
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> perProblem; // label -> (n, c)
    for (const EvalRecord* r : records) {
        g.compiled += r->compiled ? 1 : 0;
        g.flagged += r->verification.flags.empty() ? 0 : 1;
        auto& pc = perProblem[r->problem.suite + "|" + r->problem.label()];
        ++pc.first;
        if (!r->isCorrect()) continue;
        ++g.correct;
        ++pc.second;
        if (auto s = effectiveSpeedup(*r)) speedups.push_back(*s);
    }
    g.problems = perProblem.size();
    g.timedCorrect = speedups.size();
    g.correctnessRate = g.records ? static_cast<double>(g.correct) / static_cast<double>(g.records) : 0;
    g.medianSpeedup = median(speedups);
    g.geomeanSpeedup = geometricMean(speedups);
    if (!speedups.empty()) g.winRate = winShare(speedups);
    g.medianCi = bootstrapCi(speedups, medianOf, options.bootstrapResamples, options.seed);
    g.winRateCi = bootstrapCi(speedups, winShare, options.bootstrapResamples, options.seed + 1);
    for (double p : options.pGrid) g.fastP.emplace_back(p, fastP(records, p));
    if (options.withCurve) g.fastPCurve = fastPCurve(records);
    for (std::int64_t k : options.passK) {
        double sum = 0;
        std::size_t counted = 0;
        for (const auto& [label, nc] : perProblem) {
            if (nc.first < k) continue;
            sum += passAtK(nc.first, nc.second, k);
            ++counted;
        }
        if (counted > 0) g.passAtK.emplace_back(k, sum / static_cast<double>(counted));
    }
    return g;
}

} // namespace

std::vector<GroupSummary> summarize(std::span<const EvalRecord* const> records, const SummaryOptions& options)
{
    // Group keys keep first-seen order of values sorted lexicographically for stable output.
    std::map<std::vector<std::string>, std::vector<const EvalRecord*>> groups;
    for (const EvalRecord* r : records) {
        std::vector<std::string> key;
        key.reserve(options.groupBy.size());
        for (const auto& field : options.groupBy) key.push_back(recordField(*r, field).value_or(std::string()));
        groups[key].push_back(r);
    }
    std::vector<GroupSummary> out;
    out.reserve(groups.size());
    for (const auto& [key, members] : groups) {
        GroupSummary g = summarizeGroup(members, options);
        for (std::size_t i = 0; i < key.size(); ++i) g.key.emplace_back(options.groupBy[i], key[i]);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<GroupSummary> summarize(const std::vector<EvalRecord>& records, const SummaryOptions& options)
{
    std::vector<const EvalRecord*> ptrs;
    ptrs.reserve(records.size());
    for (const auto& r : records) ptrs.push_back(&r);
    return summarize(ptrs, options);
}

Projection project(double f, double w, double s)
{
    Projection p;
    p.addressableFraction = f;
    p.winRate = w;
    p.medianSpeedup = s;
    p.expectedSaving = s > 0 ? f * w * (1.0 - 1.0 / s) : 0;
    p.amdahlSpeedup = s > 0 ? 1.0 / ((1.0 - f) + f / s) : 1.0;
    p.amdahlSaving = 1.0 - 1.0 / p.amdahlSpeedup;
    return p;
}

} // namespace kwb
