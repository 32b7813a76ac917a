#pragma once
// End-to-end projection for one workload: what the evaluated kernels would
// save if deployed, as the paper computes it, with every input shown.
//
//   expected saving = f * w * (1 - 1/s),  Amdahl bound = 1 / ((1 - f) + f / s)
//
// f: the workload's addressable fraction (WorkloadBreakdown::addressableFraction).
// w: win rate: share of the correct, timed samples of the matching problems
//    whose speedup is > 1. Samples with an error-severity flag (the kernel cannot
//    have done the problem's work: partial writes, side streams, ...) are left
//    out of w and s and counted in SampleStats::errorFlagged.
// s: median speedup of the matching problems' winning samples (default: the
//    speedup a deployed kernel has), or of all correct timed samples
//    (SpeedupBasis::AllCorrect, the literal "median of correct samples").
//
// Matching: each record's problem name is tested against the rule table's
// "problem_families" patterns (first match wins). Records whose family is
// addressable and has time in the workload match; the projection then also
// lists, per such family, f_i * w_i * (1 - 1/s_i) with f_i the family's share.
// When no record maps to a family of the workload (or the table has no
// mappings), all records are used against the whole addressable fraction.
// Pure functions; safe from any thread.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/breakdown.h"
#include "analysis/statistics.h"
#include "records/eval_record.h"
#include "traces/rule_table.h"

namespace kwb {

enum class SpeedupBasis { Wins, AllCorrect };

struct SampleStats {
    std::size_t records = 0;      // matched records
    std::size_t correctTimed = 0; // correct and with a speedup, no error flag
    std::size_t errorFlagged = 0; // correct and timed, but flagged with an error: left out
    std::size_t wins = 0;         // correct, timed, speedup > 1
    std::size_t problems = 0;     // distinct problems among the matched records
    std::optional<double> winRate;
    std::optional<double> medianSpeedupWins;
    std::optional<double> medianSpeedupCorrect;
};

struct FamilyProjection {
    std::string family;
    double fraction = 0; // the family's share of GPU time
    SampleStats samples;
    double expectedSaving = 0;
};

struct WorkloadProjection {
    std::string workload;
    std::string matching; // "problem_families" or "all records"
    SpeedupBasis basis = SpeedupBasis::Wins;
    SampleStats samples;
    Projection projection; // from kwb::project(f, w, s); w = 0 and s = 1 when there are no samples
    std::vector<FamilyProjection> families; // only when matching == "problem_families"
    double familySavingSum = 0;             // sum over families
};

// Whether a verification flag of the record has severity "error".
bool hasErrorFlag(const EvalRecord& record);

// The family a problem name maps to, or "" when no mapping matches.
std::string familyOfProblem(const RuleTable& rules, const std::string& problemName);

WorkloadProjection projectWorkload(const WorkloadBreakdown& workload, std::span<const EvalRecord> records,
    const RuleTable& rules, SpeedupBasis basis = SpeedupBasis::Wins);

std::string projectionToText(const std::vector<WorkloadProjection>& projections);
std::string projectionToJson(const std::vector<WorkloadProjection>& projections);

} // namespace kwb
