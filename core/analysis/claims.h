#pragma once
// Claimed against verified: for each record that `kwb verify` re-ran, the
// speedup the record claimed (its own `speedup`, timed on its own hardware,
// kept as provenance) beside the one the re-run measured (verification.rerun),
// and a verdict on the claim. The window's claims view, `kwb summary`'s claims
// tables and `kwb figures` all read this one analysis.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/eval_record.h"

namespace kwb {

enum class ClaimVerdict {
    Holds,         // correct, no flag, re-measured speedup at least holdRatio of the claim
    Shrank,        // correct, no flag, still faster than the baseline but below holdRatio of the claim
    Lost,          // correct, no flag, no longer faster than the baseline
    Suspect,       // correct but flagged with a warning (excessive speedup, faster than roofline, ...)
    Failed,        // the re-run failed the record: incorrect, an error-severity flag, or no result
    NotReMeasured, // no re-run result in the record (never verified)
    NotAClaim,     // correct and unflagged, but the record claimed no win (claimed speedup <= minClaim)
};
inline constexpr int kClaimVerdictCount = 7;

std::string_view claimVerdictName(ClaimVerdict v); // "holds", "shrank", ...
std::string_view claimVerdictTitle(ClaimVerdict v); // "Holds", "Smaller", ...

struct ClaimOptions {
    double holdRatio = 0.8; // re-measured / claimed at or above this: the claim holds
    double minClaim = 1.0;  // a claim is a claimed speedup above this (a claimed win)
};

struct ClaimPoint {
    std::size_t record = 0;                // index into the record set
    std::string id;
    std::string model;
    std::string problem;                   // ProblemRef::label()
    std::optional<double> claimed;         // the record's own speedup
    std::string claimedGpu;                // the hardware the claim was timed on
    std::optional<double> reMeasured;      // the re-run's speedup
    std::string reMeasuredGpu;
    std::string rerunStatus;               // the re-run's status ("ok", "compile_error", ...), empty when none
    std::vector<std::string> flags;        // codes of the record's flags after the re-run
    ClaimVerdict verdict = ClaimVerdict::NotReMeasured;
    bool isClaim = false;                  // claimed > minClaim
    std::optional<double> ratio() const;   // reMeasured / claimed
};

// One point per record with a claimed speedup or a re-run (others are skipped).
std::vector<ClaimPoint> analyzeClaims(const std::vector<EvalRecord>& records, const ClaimOptions& options = {});

// How many claims survive, per model (and "all" last).
struct ClaimTally {
    std::string model;
    int records = 0;                       // points of this model
    int claims = 0;                        // claimed > minClaim
    int reMeasured = 0;                    // claims with a re-run
    int byVerdict[kClaimVerdictCount] = {};// claims only (so NotAClaim stays 0)
    int survived() const { return byVerdict[0] + byVerdict[1]; } // holds + shrank
    std::optional<double> medianRatio;     // of re-measured claims
};
std::vector<ClaimTally> tallyClaims(const std::vector<ClaimPoint>& points);

// The per-model table as text (kwb summary) and as Markdown.
std::string claimTallyText(const std::vector<ClaimTally>& tallies, const ClaimOptions& options);
// The options, the per-model tallies and every point with its verdict, as JSON (`kwb summary
// --format json`'s "claims" member): scripts read the verdicts instead of deriving their own.
std::string claimsToJson(const std::vector<ClaimPoint>& points, const std::vector<ClaimTally>& tallies,
    const ClaimOptions& options);

} // namespace kwb
