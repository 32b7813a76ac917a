#include "rerun/trial_plan.h"

#include <algorithm>
#include <cmath>

namespace kwb {

TrialPlan planWithinBudget(int warmup, int trials, double maxSeconds, int minTrials, double callMs)
{
    TrialPlan p{std::max(0, warmup), std::max(1, trials)};
    if (!(maxSeconds > 0.0) || !(callMs > 0.0) || !std::isfinite(callMs)) return p;
    const double budgetMs = maxSeconds * 1e3;
    const auto fit = [&](double ms) { return static_cast<int>(std::min(1e9, std::floor(ms / callMs))); };
    p.trials = std::clamp(fit(budgetMs), std::min(std::max(1, minTrials), p.trials), p.trials);
    p.warmup = std::clamp(fit(0.25 * budgetMs), std::min(2, p.warmup), p.warmup);
    return p;
}

std::vector<int> checkedTrials(int trials, int every, std::size_t slots)
{
    std::vector<int> all;
    every = std::max(1, every);
    for (int i = 0; i < trials; ++i)
        if ((i + 1) % every == 0 || i + 1 == trials) all.push_back(i);
    if (all.size() <= slots) return all;
    std::vector<int> kept;
    const std::size_t n = all.size();
    for (std::size_t j = 0; j < slots; ++j) kept.push_back(all[n - 1 - (j * n) / slots]);
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    return kept;
}

} // namespace kwb
