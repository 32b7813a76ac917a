#pragma once
// Renders summaries for `kwb summary`. The JSON form is a stable contract,
// documented in docs/formats.md ("Summary JSON").
#include <string>
#include <string_view>
#include <vector>

#include "analysis/statistics.h"
#include "base/status.h"

namespace kwb {

// `claimsJson` (optional): already-valid JSON (claimsToJson, analysis/claims.h) kept as member "claims".
std::string summaryToJson(const std::vector<GroupSummary>& groups, const std::vector<Status>& errors,
    std::string_view claimsJson = {});
std::string summaryToCsv(const std::vector<GroupSummary>& groups);
std::string summaryToTable(const std::vector<GroupSummary>& groups);

// The key used in the fast_p object: "0", "0.5", "1", "1.5" (shortest form).
std::string pKey(double p);

} // namespace kwb
