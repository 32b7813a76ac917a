#pragma once
// The statistics kernel-generation papers report, as pure functions.
// Definitions follow KernelBench (src/score.py) where it defines them.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "records/eval_record.h"

namespace kwb {

// Median of the values (mean of the two middle ones for even counts); nullopt when empty.
std::optional<double> median(std::vector<double> values);
// Quantile with linear interpolation between order statistics (numpy's default).
std::optional<double> quantile(std::vector<double> values, double q);
// Geometric mean of positive values; nullopt when empty or any value <= 0.
std::optional<double> geometricMean(std::span<const double> values);

// The speedup a record counts with: its stored speedup, else the first
// baseline's central time over the candidate's. nullopt when not timed.
std::optional<double> effectiveSpeedup(const EvalRecord& r);

// fast_p: share of ALL records that are correct and have speedup strictly
// greater than p (incorrect and untimed records count in the denominator).
double fastP(std::span<const EvalRecord* const> records, double p);

// fast_p as a step function of p: the breakpoints (speedups of correct
// records, ascending) with the value just right of each. fast_p(p) is the
// value of the last breakpoint <= p, or `atZero` left of the first one.
struct FastPCurve {
    std::vector<double> breakpoints;
    std::vector<double> valueAfter; // fast_p on [breakpoints[i], breakpoints[i+1])
    double atZero = 0;              // fast_p for p below every breakpoint
    std::size_t denominator = 0;
    double evaluate(double p) const;
};
FastPCurve fastPCurve(std::span<const EvalRecord* const> records);

// Unbiased pass@k estimator (Chen et al. 2021): 1 - C(n-c, k) / C(n, k).
double passAtK(std::int64_t n, std::int64_t c, std::int64_t k);

struct ConfidenceInterval {
    double low = 0;
    double high = 0;
};

// Percentile bootstrap of a statistic over `values`, deterministic for a seed.
template <typename Stat>
std::optional<ConfidenceInterval> bootstrapCi(std::span<const double> values, Stat stat, int resamples,
    std::uint64_t seed, double level = 0.95);

struct SummaryOptions {
    std::vector<std::string> groupBy;                            // record fields; empty = one group
    std::vector<double> pGrid{0.0, 0.5, 0.8, 1.0, 1.5, 2.0};
    std::vector<std::int64_t> passK{1, 5, 10};
    int bootstrapResamples = 2000;
    std::uint64_t seed = 0x6b7762u; // fixed: the same input gives the same intervals
    bool withCurve = false;         // also compute the continuous fast_p curve per group
};

struct GroupSummary {
    std::vector<std::pair<std::string, std::string>> key; // field -> value
    std::size_t records = 0;
    std::size_t compiled = 0;
    std::size_t correct = 0;
    std::size_t timedCorrect = 0; // correct and with a speedup
    std::size_t problems = 0;     // distinct problems
    std::size_t flagged = 0;
    double correctnessRate = 0;
    std::optional<double> medianSpeedup;
    std::optional<double> geomeanSpeedup;
    std::optional<double> winRate; // share of correct, timed records with speedup > 1
    std::optional<ConfidenceInterval> medianCi;
    std::optional<ConfidenceInterval> winRateCi;
    std::vector<std::pair<double, double>> fastP;         // (p, fast_p)
    std::vector<std::pair<std::int64_t, double>> passAtK;  // (k, mean over problems with n >= k)
    FastPCurve fastPCurve; // the continuous curve; filled when SummaryOptions::withCurve
};

std::vector<GroupSummary> summarize(std::span<const EvalRecord* const> records, const SummaryOptions& options);
std::vector<GroupSummary> summarize(const std::vector<EvalRecord>& records, const SummaryOptions& options);

// The paper's end-to-end projection: with addressable fraction f, win rate w
// and median speedup s, expected time saving f*w*(1-1/s); next to it the
// Amdahl bound if every addressable kernel got speedup s.
struct Projection {
    double addressableFraction = 0; // f
    double winRate = 0;             // w
    double medianSpeedup = 1;       // s
    double expectedSaving = 0;      // f*w*(1-1/s)
    double amdahlSpeedup = 1;       // 1/((1-f)+f/s)
    double amdahlSaving = 0;        // 1 - 1/amdahlSpeedup = f*(1-1/s)
};
Projection project(double f, double w, double s);

} // namespace kwb

#include "analysis/statistics_impl.h"
