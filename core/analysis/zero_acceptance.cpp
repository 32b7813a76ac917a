#include "analysis/zero_acceptance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "problems/output_metrics.h"

namespace kwb {

std::string zeroToleranceKey(double tol)
{
    // Python's repr of 1e-2 and 1e-4, the keys the tables were written with.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", tol);
    return buf;
}

ZeroAcceptanceAccumulator::ZeroAcceptanceAccumulator(std::vector<std::int64_t> shape, std::string dtype,
    std::int64_t numel)
{
    m_stats.shape = std::move(shape);
    m_stats.dtype = std::move(dtype);
    m_stats.numel = numel;
    for (std::size_t t = 0; t < kZeroToleranceCount; ++t)
        m_stats.meanPass[t] = numel == 1 ? std::nullopt : std::optional<bool>(true);
}

void ZeroAcceptanceAccumulator::addValues(std::span<const float> chunk)
{
    for (float v : chunk) {
        if (!std::isfinite(v)) {
            ++m_stats.nonfinite;
            continue;
        }
        const double d = v;
        m_stats.maxAbs = std::max(m_stats.maxAbs, std::fabs(d));
        m_sum += d;
        m_sumSq += d * d;
    }
    m_seen += static_cast<std::int64_t>(chunk.size());
    for (std::size_t t = 0; t < kZeroToleranceCount; ++t)
        if (m_stats.zerosPass[t])
            m_stats.zerosPass[t] = zerosPassAllclose(chunk, ToleranceValues{kZeroTolerances[t], kZeroTolerances[t]});
}

void ZeroAcceptanceAccumulator::finishValues()
{
    m_finished = true;
    const std::int64_t finite = m_seen - m_stats.nonfinite;
    // RMS over every element (as the script's vector_norm / sqrt(numel)); mean over the finite ones.
    m_stats.rms = m_seen > 0 ? std::sqrt(m_sumSq / static_cast<double>(m_seen)) : 0.0;
    m_stats.mean = finite > 0 ? m_sum / static_cast<double>(finite) : 0.0;
    m_meanF = static_cast<float>(m_stats.mean);
}

void ZeroAcceptanceAccumulator::addMeanPass(std::span<const float> chunk)
{
    if (!needsMeanPass()) return;
    for (std::size_t t = 0; t < kZeroToleranceCount; ++t)
        if (m_stats.meanPass[t].value_or(false))
            m_stats.meanPass[t] =
                constantPassesAllclose(chunk, m_meanF, ToleranceValues{kZeroTolerances[t], kZeroTolerances[t]});
}

ZeroOutputStats ZeroAcceptanceAccumulator::result() const
{
    return m_stats;
}

ZeroOutputStats measureZeroAcceptance(std::span<const float> values, std::vector<std::int64_t> shape,
    std::string dtype)
{
    ZeroAcceptanceAccumulator acc(std::move(shape), std::move(dtype), static_cast<std::int64_t>(values.size()));
    acc.addValues(values);
    acc.finishValues();
    acc.addMeanPass(values);
    return acc.result();
}

ZeroOutputStats combineZeroOutputs(const std::vector<ZeroOutputStats>& outputs)
{
    if (outputs.size() == 1) return outputs.front();
    ZeroOutputStats c;
    if (outputs.empty()) return c;
    c.dtype = outputs.front().dtype;
    double sq = 0.0;
    for (const auto& o : outputs) {
        c.numel += o.numel;
        c.maxAbs = std::max(c.maxAbs, o.maxAbs);
        c.nonfinite += o.nonfinite;
        sq += o.rms * o.rms * static_cast<double>(o.numel);
    }
    c.rms = std::sqrt(sq / static_cast<double>(std::max<std::int64_t>(1, c.numel)));
    for (std::size_t t = 0; t < kZeroToleranceCount; ++t) {
        c.zerosPass[t] = std::all_of(outputs.begin(), outputs.end(), [t](const auto& o) { return o.zerosPass[t]; });
        std::optional<bool> m;
        for (const auto& o : outputs)
            if (o.meanPass[t]) m = m.value_or(true) && *o.meanPass[t];
        c.meanPass[t] = m;
    }
    return c;
}

std::vector<ZeroAcceptanceGroup> summarizeZeroAcceptance(const std::vector<ZeroAcceptanceRow>& rows)
{
    std::map<std::tuple<int, std::string>, ZeroAcceptanceGroup> groups;
    for (const auto& r : rows) {
        auto& g = groups[{r.level, r.version}];
        g.version = r.version;
        g.level = r.level;
        ++g.problems;
        if (r.status != "ok") {
            ++g.skipped;
            continue;
        }
        ++g.ran;
        for (std::size_t t = 0; t < kZeroToleranceCount; ++t) {
            if (r.combined.zerosPass[t]) {
                ++g.zerosPass[t];
                g.zerosPassProblems[t].push_back(r.problem);
            }
            if (r.combined.meanPass[t].value_or(false)) ++g.meanPass[t];
        }
    }
    std::vector<ZeroAcceptanceGroup> out;
    for (auto& [key, g] : groups) out.push_back(std::move(g));
    return out;
}

std::vector<std::string> compareZeroAcceptance(const std::vector<ZeroAcceptanceRow>& a,
    const std::vector<ZeroAcceptanceRow>& b)
{
    using Key = std::tuple<std::string, int, std::string>;
    std::map<Key, const ZeroAcceptanceRow*> left;
    std::map<Key, const ZeroAcceptanceRow*> right;
    for (const auto& r : a) left[{r.version, r.level, r.problem}] = &r;
    for (const auto& r : b) right[{r.version, r.level, r.problem}] = &r;
    auto name = [](const Key& k) {
        return std::get<0>(k) + " level " + std::to_string(std::get<1>(k)) + " " + std::get<2>(k);
    };
    auto yes = [](std::optional<bool> v) { return !v ? std::string("-") : *v ? std::string("yes") : std::string("no"); };
    std::vector<std::string> out;
    for (const auto& [k, l] : left) {
        auto it = right.find(k);
        if (it == right.end()) {
            out.push_back(name(k) + ": only in the first table");
            continue;
        }
        const ZeroAcceptanceRow& r = *it->second;
        if (l->status != r.status) {
            out.push_back(name(k) + ": status " + l->status + " -> " + r.status);
            continue;
        }
        if (l->status != "ok") continue;
        for (std::size_t t = 0; t < kZeroToleranceCount; ++t) {
            const std::string tk = zeroToleranceKey(kZeroTolerances[t]);
            if (l->combined.zerosPass[t] != r.combined.zerosPass[t])
                out.push_back(name(k) + ": zeros@" + tk + " " + yes(l->combined.zerosPass[t]) + " -> " +
                              yes(r.combined.zerosPass[t]));
            if (l->combined.meanPass[t] != r.combined.meanPass[t])
                out.push_back(name(k) + ": mean@" + tk + " " + yes(l->combined.meanPass[t]) + " -> " +
                              yes(r.combined.meanPass[t]));
        }
    }
    for (const auto& [k, r] : right)
        if (!left.count(k)) out.push_back(name(k) + ": only in the second table");
    return out;
}

} // namespace kwb
