// kwb project: expected end-to-end saving of a workload from evaluation records.
#include <cstdio>

#include "analysis/projection_report.h"
#include "arg_parser.h"
#include "commands.h"
#include "records/record_loader.h"
#include "workbench/workload_analysis.h"

namespace kwb::cli {

int runProject(const Args& args)
{
    ArgParser p("project", "kwb project --trace TRACE [--trace TRACE...] --records FILE [--records FILE...]",
        "Projects what the evaluated kernels would save end to end on a real workload,\n"
        "as the paper does: f*w*(1-1/s), where f is the trace's addressable fraction of\n"
        "GPU time, w the win rate (share of correct timed samples with speedup > 1) and s\n"
        "the median speedup of the matching problems' winning samples; next to it the\n"
        "Amdahl bound 1/((1-f)+f/s). Problems match kernel families through the rule\n"
        "table's \"problem_families\"; when none match, all records are used.");
    p.repeatedOption("trace", "TRACE", "profiler trace (Kineto JSON/.gz or nsys SQLite)");
    p.repeatedOption("records", "FILE", "evaluation records (any format kwb summary reads) or folders");
    p.option("rules", "FILE", "kernel-family rule table (default: resources/kernel_families.json)");
    p.option("speedup", "wins|correct", "median speedup over the winning samples or over all correct ones", "wins");
    p.option("format", "text|json", "output format", "text");
    p.positional("FILE...", "more record files");
    if (!p.parse(args)) return finishParse(p);
    const auto traces = p.values("trace");
    auto recordFiles = p.values("records");
    for (const auto& f : p.positionals()) recordFiles.push_back(f);
    if (traces.empty() || recordFiles.empty()) {
        std::fprintf(stderr, "kwb project: needs --trace and --records\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    const std::string format = *p.value("format");
    if (format != "text" && format != "json") {
        std::fprintf(stderr, "kwb project: unknown format '%s' (text or json)\n", format.c_str());
        return kExitUsage;
    }
    const std::string basisText = *p.value("speedup");
    if (basisText != "wins" && basisText != "correct") {
        std::fprintf(stderr, "kwb project: --speedup is wins or correct, not '%s'\n", basisText.c_str());
        return kExitUsage;
    }
    const SpeedupBasis basis = basisText == "wins" ? SpeedupBasis::Wins : SpeedupBasis::AllCorrect;

    const RecordSet set = loadRecordFiles(recordFiles);
    WorkloadAnalysisRequest request;
    request.traces = traces;
    request.rulesPath = p.value("rules").value_or(std::string());
    request.records = std::span<const EvalRecord>(set.records);
    request.basis = basis;
    auto analysis = analyseWorkloads(request);
    if (!analysis.isOk()) {
        std::fprintf(stderr, "kwb: error: %s\n", analysis.status().toString().c_str());
        return kExitErrors;
    }
    for (const auto& issue : set.allIssues()) std::fprintf(stderr, "kwb: warning: %s\n", issue.toString().c_str());
    std::size_t failures = set.failedFileCount();

    std::vector<WorkloadProjection> out;
    for (const auto& w : analysis->workloads) {
        if (!w.ok()) {
            std::fprintf(stderr, "kwb: error: %s\n", w.status.toString().c_str());
            ++failures;
            continue;
        }
        out.push_back(*w.projection);
    }
    std::fputs((format == "json" ? projectionToJson(out) : projectionToText(out)).c_str(), stdout);
    return failures ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
