#include "workbench/workload_analysis.h"

#include "traces/rule_table.h"
#include "traces/trace_loader.h"

namespace kwb {

std::size_t WorkloadAnalysis::failureCount() const
{
    std::size_t n = 0;
    for (const auto& w : workloads) n += w.ok() ? 0 : 1;
    return n;
}

Result<WorkloadAnalysis> analyseWorkloads(const WorkloadAnalysisRequest& request, const TaskContext& ctx)
{
    auto rules = request.rulesPath.empty() ? RuleTable::loadDefault() : RuleTable::load(request.rulesPath);
    if (!rules) return rules.status();

    WorkloadAnalysis out;
    out.workloads.reserve(request.traces.size());
    const auto total = static_cast<std::int64_t>(request.traces.size());
    for (std::size_t i = 0; i < request.traces.size(); ++i) {
        if (ctx.cancelled()) {
            out.cancelled = true;
            break;
        }
        ctx.report("Reading traces", static_cast<std::int64_t>(i), total);
        AnalysedWorkload w;
        w.path = request.traces[i];
        if (request.known) w.breakdown = request.known(w.path);
        if (w.breakdown) {
            w.reused = true;
            if (request.records) w.projection = projectWorkload(*w.breakdown, *request.records, *rules, request.basis);
            out.workloads.push_back(std::move(w));
            continue;
        }
        // The readers' own byte progress would fight the per-trace count above.
        auto trace = loadTrace(w.path, TaskContext{nullptr, ctx.cancel});
        if (!trace) {
            w.status = trace.status();
            out.workloads.push_back(std::move(w));
            continue;
        }
        const auto& report = (*trace)->report();
        w.issues = report.issues;
        if (report.badEvents > report.issues.size()) w.unlistedBadEvents = report.badEvents - report.issues.size();
        w.breakdown = std::make_shared<const WorkloadBreakdown>(breakdown(**trace, *rules, request.breakdown));
        if (request.records) w.projection = projectWorkload(*w.breakdown, *request.records, *rules, request.basis);
        out.workloads.push_back(std::move(w));
    }
    if (ctx.cancelled()) out.cancelled = true;
    return out;
}

} // namespace kwb
