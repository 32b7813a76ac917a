#pragma once
// Renders summaries for `kwb summary`. The JSON form is a stable contract,
// documented in docs/formats.md ("Summary JSON").
#include <string>
#include <vector>

#include "analysis/statistics.h"
#include "base/status.h"

namespace kwb {

std::string summaryToJson(const std::vector<GroupSummary>& groups, const std::vector<Status>& errors);
std::string summaryToCsv(const std::vector<GroupSummary>& groups);
std::string summaryToTable(const std::vector<GroupSummary>& groups);

// The key used in the fast_p object: "0", "0.5", "1", "1.5" (shortest form).
std::string pKey(double p);

} // namespace kwb
