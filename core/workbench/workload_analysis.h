#pragma once
// The workload use case that `kwb breakdown`, `kwb project` and the window's
// project loader share: rule table -> traces -> breakdown -> projection.
//
// Thread: any; no shared state. Errors: an unreadable rule table fails the
// whole call (nothing can be classified without it); a trace that cannot be
// read fails only its own entry (AnalysedWorkload::status) and the others
// still load. Bad events a reader skipped are listed per trace.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/breakdown.h"
#include "analysis/projection_report.h"
#include "base/progress.h"
#include "base/status.h"
#include "records/eval_record.h"

namespace kwb {

struct WorkloadAnalysisRequest {
    std::vector<std::string> traces; // trace files, analysed in this order
    std::string rulesPath;           // empty: resources/kernel_families.json
    BreakdownOptions breakdown;
    // Projection against these records; without them there is no projection.
    std::optional<std::span<const EvalRecord>> records;
    SpeedupBasis basis = SpeedupBasis::Wins;
    // A breakdown already computed for this trace under the same rules (the
    // window adding one input): used instead of reading the trace again.
    std::function<std::shared_ptr<const WorkloadBreakdown>(const std::string& path)> known;
};

struct AnalysedWorkload {
    std::string path;
    Status status;                  // why the trace could not be read; ok otherwise
    std::vector<Status> issues;     // events the reader skipped (listed ones)
    std::uint64_t unlistedBadEvents = 0; // skipped events beyond the listed ones
    std::shared_ptr<const WorkloadBreakdown> breakdown; // null when the trace failed
    std::optional<WorkloadProjection> projection;
    bool reused = false; // from WorkloadAnalysisRequest::known, not read again

    bool ok() const { return status.isOk(); }
};

struct WorkloadAnalysis {
    std::vector<AnalysedWorkload> workloads; // one per requested trace, failed ones included
    bool cancelled = false;                  // ctx.cancel was raised; the list is incomplete

    std::size_t failureCount() const;
};

// Progress: stage "Reading traces", done/total in traces; honours ctx.cancel
// between traces and inside each reader.
Result<WorkloadAnalysis> analyseWorkloads(const WorkloadAnalysisRequest& request, const TaskContext& ctx = {});

} // namespace kwb
