#pragma once
// How many warm-ups and timed trials fit a per-kernel time budget. A 0.5 s
// kernel costs 55 s at 10 + 100 runs, and a batch of hundreds of samples is
// only as fast as its slowest few; with a budget the timer times one warm call
// alone and cuts both counts to fit (warm-ups to a quarter of the budget),
// never below `minTrials` trials or 2 warm-ups (nor above what was asked).
#include <cstddef>
#include <vector>

namespace kwb {

struct TrialPlan {
    int warmup = 0;
    int trials = 0;
};

// `callMs`: one synchronised call's host wall time. Without a budget
// (maxSeconds <= 0) or a usable callMs, the counts asked for.
TrialPlan planWithinBudget(int warmup, int trials, double maxSeconds, int minTrials, double callMs);

// Fresh inputs: the timed trials (0-based) whose outputs are set aside and
// checked after the loop: the last of every `every` trials and the last one,
// at most `slots` of them (evenly spread, always the last). Decided once the
// timer knows how many trials it runs (a budget may cut them), by the runner's
// timer and by a candidate host's alike.
std::vector<int> checkedTrials(int trials, int every, std::size_t slots);

} // namespace kwb
