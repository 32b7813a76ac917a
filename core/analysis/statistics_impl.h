#pragma once
// Template definitions for statistics.h.
#include <algorithm>
#include <random>

namespace kwb {

template <typename Stat>
std::optional<ConfidenceInterval> bootstrapCi(std::span<const double> values, Stat stat, int resamples,
    std::uint64_t seed, double level)
{
    if (values.size() < 2 || resamples < 10) return std::nullopt;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
    std::vector<double> sample(values.size());
    std::vector<double> stats;
    stats.reserve(static_cast<std::size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        for (auto& v : sample) v = values[pick(rng)];
        stats.push_back(stat(sample));
    }
    const double alpha = (1.0 - level) / 2.0;
    auto lo = quantile(stats, alpha);
    auto hi = quantile(stats, 1.0 - alpha);
    if (!lo || !hi) return std::nullopt;
    return ConfidenceInterval{*lo, *hi};
}

} // namespace kwb
