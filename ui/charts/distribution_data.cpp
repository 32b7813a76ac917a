#include "charts/distribution_data.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>

#include "analysis/projection_report.h"

namespace kwb::ui {

std::vector<int> DistributionData::recordsInRange(int group, double lo, double hi) const
{
    std::vector<int> out;
    if (group < 0 || static_cast<std::size_t>(group) >= groups.size()) return out;
    const auto& g = groups[static_cast<std::size_t>(group)];
    auto b = std::lower_bound(g.speedups.begin(), g.speedups.end(), lo);
    auto e = std::lower_bound(g.speedups.begin(), g.speedups.end(), hi);
    for (auto it = b; it != e; ++it) out.push_back(g.recordIndex[static_cast<std::size_t>(it - g.speedups.begin())]);
    return out;
}

std::vector<int> DistributionData::recordsFasterThan(int group, double p) const
{
    std::vector<int> out;
    if (group < 0 || static_cast<std::size_t>(group) >= groups.size()) return out;
    const auto& g = groups[static_cast<std::size_t>(group)];
    auto b = std::upper_bound(g.speedups.begin(), g.speedups.end(), p);
    for (auto it = b; it != g.speedups.end(); ++it)
        out.push_back(g.recordIndex[static_cast<std::size_t>(it - g.speedups.begin())]);
    return out;
}

DistributionData computeDistribution(const RecordSet& set, const QString& groupField, const std::vector<int>* subset,
    int maxGroups, bool countErrorFlagged)
{
    DistributionData data;
    data.groupField = groupField;
    const std::string field = groupField.toStdString();
    std::map<std::string, std::vector<int>> byGroup;
    auto add = [&](int i) {
        const EvalRecord& r = set.records[static_cast<std::size_t>(i)];
        std::string key = field.empty() ? std::string("all") : recordField(r, field).value_or("(none)");
        if (key.empty()) key = "(none)";
        byGroup[key].push_back(i);
    };
    if (subset) {
        for (int i : *subset) add(i);
    } else {
        for (std::size_t i = 0; i < set.records.size(); ++i) add(static_cast<int>(i));
    }

    std::vector<std::pair<std::string, std::vector<int>>> ordered(byGroup.begin(), byGroup.end());
    if (maxGroups > 1 && ordered.size() > static_cast<std::size_t>(maxGroups)) {
        std::vector<std::size_t> bySize(ordered.size());
        std::iota(bySize.begin(), bySize.end(), 0);
        std::stable_sort(bySize.begin(), bySize.end(),
            [&](std::size_t a, std::size_t b) { return ordered[a].second.size() > ordered[b].second.size(); });
        std::vector<bool> keep(ordered.size(), false);
        for (int i = 0; i < maxGroups - 1; ++i) keep[bySize[static_cast<std::size_t>(i)]] = true;
        std::vector<std::pair<std::string, std::vector<int>>> kept;
        std::vector<int> rest;
        for (std::size_t i = 0; i < ordered.size(); ++i) {
            if (keep[i]) kept.push_back(std::move(ordered[i]));
            else rest.insert(rest.end(), ordered[i].second.begin(), ordered[i].second.end());
        }
        const std::size_t merged = ordered.size() - kept.size();
        kept.emplace_back("other (" + std::to_string(merged) + " groups)", std::move(rest));
        ordered = std::move(kept);
    }

    bool first = true;
    for (auto& [key, indexes] : ordered) {
        DistributionGroup g;
        g.name = QString::fromStdString(key);
        std::vector<std::pair<double, int>> timed;
        std::vector<const EvalRecord*> ptrs;
        ptrs.reserve(indexes.size());
        // fast_p reads outcomes: an error-flagged "correct" record enters it as an incorrect copy.
        std::deque<EvalRecord> demoted;
        for (int i : indexes) {
            const EvalRecord& r = set.records[static_cast<std::size_t>(i)];
            if (!countErrorFlagged && r.isCorrect() && hasErrorFlag(r)) {
                demoted.push_back(r);
                demoted.back().outcome = Outcome::Incorrect;
                ptrs.push_back(&demoted.back());
                ++data.errorFlaggedLeftOut;
                continue;
            }
            ptrs.push_back(&r);
            if (!r.isCorrect()) continue;
            auto s = effectiveSpeedup(r);
            if (s && *s > 0 && std::isfinite(*s)) timed.emplace_back(*s, i);
        }
        std::sort(timed.begin(), timed.end());
        for (const auto& [s, i] : timed) {
            g.speedups.push_back(s);
            g.recordIndex.push_back(i);
        }
        g.allRecords = std::move(indexes);
        g.fastP = fastPCurve(ptrs);
        if (!g.speedups.empty()) {
            g.q1 = quantile(g.speedups, 0.25).value_or(0);
            g.median = quantile(g.speedups, 0.5).value_or(0);
            g.q3 = quantile(g.speedups, 0.75).value_or(0);
            // Whiskers at 1.5 IQR of the log speedups, since the axis is logarithmic: on raw
            // ratios every claim above about 2x fell inside the upper whisker.
            const double lq1 = std::log(g.q1);
            const double lq3 = std::log(g.q3);
            const double liqr = lq3 - lq1;
            const double lo = std::exp(lq1 - 1.5 * liqr);
            const double hi = std::exp(lq3 + 1.5 * liqr);
            g.whiskerLow = *std::lower_bound(g.speedups.begin(), g.speedups.end(), lo);
            g.whiskerHigh = *(std::upper_bound(g.speedups.begin(), g.speedups.end(), hi) - 1);
            for (double v : g.speedups)
                if (v < g.whiskerLow || v > g.whiskerHigh) g.outliers.push_back(v);
            data.timedRecords += g.speedups.size();
            if (first) {
                data.minSpeedup = g.speedups.front();
                data.maxSpeedup = g.speedups.back();
                first = false;
            } else {
                data.minSpeedup = std::min(data.minSpeedup, g.speedups.front());
                data.maxSpeedup = std::max(data.maxSpeedup, g.speedups.back());
            }
        }
        data.groups.push_back(std::move(g));
    }
    return data;
}

int LogHistogram::binOf(double x) const
{
    if (edges.size() < 2 || x < edges.front() || x > edges.back()) return -1;
    auto it = std::upper_bound(edges.begin(), edges.end(), x);
    const int bin = static_cast<int>(it - edges.begin()) - 1;
    return std::min(bin, static_cast<int>(edges.size()) - 2);
}

LogHistogram computeLogHistogram(const DistributionData& data, int bins)
{
    LogHistogram h;
    if (data.empty() || bins <= 0) return h;
    double lo = std::log10(data.minSpeedup);
    double hi = std::log10(data.maxSpeedup);
    if (hi - lo < 0.2) {
        lo -= 0.1;
        hi += 0.1;
    }
    // A little room so the extreme values sit inside the outer bins.
    const double pad = (hi - lo) * 1e-6;
    lo -= pad;
    hi += pad;
    const double width = (hi - lo) / bins;
    for (int i = 0; i <= bins; ++i) h.edges.push_back(std::pow(10.0, lo + i * width));
    h.counts.assign(data.groups.size(), std::vector<int>(static_cast<std::size_t>(bins), 0));
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        for (double s : data.groups[g].speedups) {
            const int b = h.binOf(s);
            if (b >= 0) {
                int& c = h.counts[g][static_cast<std::size_t>(b)];
                ++c;
                h.maxCount = std::max(h.maxCount, c);
            }
        }
        for (std::size_t b = 0; b < static_cast<std::size_t>(bins); ++b) h.maxShare = std::max(h.maxShare, h.share(data, g, b));
    }
    return h;
}

double LogHistogram::share(const DistributionData& data, std::size_t g, std::size_t b) const
{
    const std::size_t n = data.groups[g].speedups.size();
    return n == 0 ? 0.0 : static_cast<double>(counts[g][b]) / static_cast<double>(n);
}

std::vector<GroupSummary> computeGroupStats(const RecordSet& set, const DistributionData& data, bool countErrorFlagged,
    const kwb::TaskContext& ctx)
{
    std::vector<GroupSummary> out;
    out.reserve(data.groups.size());
    for (const auto& g : data.groups) {
        if (ctx.cancelled()) return {};
        // As computeDistribution counts them: an error-flagged "correct" record enters as an incorrect copy.
        std::vector<const EvalRecord*> ptrs;
        ptrs.reserve(g.allRecords.size());
        std::deque<EvalRecord> demoted;
        for (int i : g.allRecords) {
            const EvalRecord& r = set.records[static_cast<std::size_t>(i)];
            if (!countErrorFlagged && r.isCorrect() && hasErrorFlag(r)) {
                demoted.push_back(r);
                demoted.back().outcome = Outcome::Incorrect;
                ptrs.push_back(&demoted.back());
            } else {
                ptrs.push_back(&r);
            }
        }
        // The same call as `kwb summary` (one group, default options: same bootstrap seed and k).
        auto summary = summarize(std::span<const EvalRecord* const>(ptrs), SummaryOptions{});
        out.push_back(summary.empty() ? GroupSummary{} : std::move(summary.front()));
    }
    return out;
}

} // namespace kwb::ui
