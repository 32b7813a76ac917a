#pragma once
// What the shared-object path measured about its own separation, in the
// contract's wire shape (issue 12): "isolation" {reference_process, sandbox,
// why_not, violations}, "host_timing" {candidate_ms, reference_ms, trials,
// measured_by "judge"} and "isolation" added to "checks_run". The runner is
// the judge here: the candidate runs in the child, the wall clock is the
// runner's.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "rerun/protocol.h"

namespace kwb::gpu {

struct IsolationReport {
    bool separate = false;        // the candidate ran in the candidate host
    std::string sandbox = "none"; // as core/sandbox SandboxReport::applied()
    std::string whyNot;
    std::vector<std::string> violations; // protocol breaches and lies the runner caught
    int restarts = 0;                    // candidate hosts started again during the run
    // The runner's wall clock per call around the child's timed batch (flushes taken out).
    std::optional<double> hostCandidateMs;
    std::optional<double> hostReferenceMs;
    int hostTrials = 0;

    nlohmann::json isolationJson() const;
    nlohmann::json hostTimingJson() const; // null when the candidate was not timed
};

// The members, keyed by their wire names ("isolation", "host_timing", "checks_run").
nlohmann::json isolationMembers(const IsolationReport& report);

// Puts the members into `result` (RerunResult::isolation, ::hostTiming with
// measured_by "judge", checks_run += "isolation", "host_timer") where the
// result has them, and logs them to stderr as one line
// "kwb-runner: isolation: ID {...}" (the runner's log, for the validation run).
void applyIsolationMembers(RerunResult& result, const IsolationReport& report);

} // namespace kwb::gpu
