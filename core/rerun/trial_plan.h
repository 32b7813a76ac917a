#pragma once
// How many warm-ups and timed trials fit a per-kernel time budget. A 0.5 s
// kernel costs 55 s at 10 + 100 runs, and a batch of hundreds of samples is
// only as fast as its slowest few; with a budget the timer times one warm call
// alone and cuts both counts to fit (warm-ups to a quarter of the budget),
// never below `minTrials` trials or 2 warm-ups (nor above what was asked).
namespace kwb {

struct TrialPlan {
    int warmup = 0;
    int trials = 0;
};

// `callMs`: one synchronised call's host wall time. Without a budget
// (maxSeconds <= 0) or a usable callMs, the counts asked for.
TrialPlan planWithinBudget(int warmup, int trials, double maxSeconds, int minTrials, double callMs);

} // namespace kwb
