#pragma once
// What `kwb rerun`, `kwb verify` and the GUI share around an Executor: build
// a request from specs, run it, derive the flags, check a fixture's
// expectations, and print or serialise the outcomes.
// Pure functions except runRerun (which calls the executor).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/progress.h"
#include "base/status.h"
#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "records/eval_record.h"
#include "rerun/executor.h"
#include "rerun/flags.h"
#include "rerun/protocol.h"

namespace kwb {

// Validates the candidate against the problem and the sizes, then packs both
// specs (source inline) and the options into a request.
Result<RerunRequest> makeRerunRequest(const ProblemSpec& problem, const CandidateSpec& candidate,
    const RerunOptions& options, std::string id);

// A fixture's verdict: exploit candidates must raise every flag they expect;
// honest ones must run and raise none, zero_acceptance aside (that one is a
// property of the problem, not of the candidate).
struct ExpectationCheck {
    bool checked = false; // the candidate declares expectations (honest or expect_flags)
    bool met = false;
    std::string detail;   // what was missing or unexpected
    bool honest = false;  // the candidate is declared honest (no exploit flag allowed)
    std::vector<std::string> expectedFlags; // the candidate's expect_flags
};
ExpectationCheck checkExpectations(const CandidateSpec& candidate, const RerunResult& result);

struct RerunOutcome {
    std::string problemId;
    std::string candidateId;
    std::optional<RerunResult> result; // with flags derived
    Status error;                      // the executor could not serve the request
    ExpectationCheck expectation;
};

// Runs one request and derives flags. Never throws; executor errors land in
// RerunOutcome::error.
RerunOutcome runRerun(Executor& executor, const RerunRequest& request, const CandidateSpec& candidate,
    const FlagThresholds& thresholds, const TaskContext& ctx);

// Fills a record's verification from a re-run: coverage of the least-covered
// output (grid included), the derived flags (replacing earlier re-run flags),
// and the whole result under verification.extra["rerun"].
void applyRerunToRecord(EvalRecord& record, const RerunResult& result);

// Fills what a record lacks from a re-run, leaving what it has: the outcome
// (when unknown or not run), the candidate's timing with its provenance, a
// "reference" baseline, and the speedup over it. For records seeded from
// specs alone, so that summaries can use the re-run's figures.
void completeRecordFromRerun(EvalRecord& record, const RerunResult& result, const RerunOptions& options);

} // namespace kwb
