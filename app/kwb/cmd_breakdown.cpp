// kwb breakdown: where a workload's GPU time goes, by kernel family.
#include <cstdio>

#include "analysis/breakdown.h"
#include "arg_parser.h"
#include "commands.h"
#include "workbench/workload_analysis.h"

namespace kwb::cli {

int runBreakdown(const Args& args)
{
    ArgParser p("breakdown", "kwb breakdown [--rules FILE] [--format table|json|csv] TRACE...",
        "Loads profiler traces (PyTorch profiler / Kineto JSON, plain or .gz, and Nsight\n"
        "Systems SQLite exports) and splits each workload's GPU time by kernel family,\n"
        "library and category under a rule table. Prints the addressable fraction: the\n"
        "share of GPU time in kernels a generated kernel could replace (ATen, Triton),\n"
        "as opposed to vendor libraries (cuBLAS, cuDNN, CUTLASS, FlashAttention, NCCL, CUB).");
    p.positional("TRACE...", "trace files");
    p.option("rules", "FILE", "kernel-family rule table (default: resources/kernel_families.json)");
    p.option("format", "table|json|csv", "output format", "table");
    p.option("top", "N", "top kernels and operators to list", "20");
    p.flag("top-level-ops", "attribute GPU time to the outermost operator (aten::linear) instead of the launching one (aten::addmm)");
    p.epilog("Exit status is 1 when a trace or the rule table could not be read; events a\n"
             "reader had to skip are reported on stderr with file, position and reason.");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().empty()) {
        std::fprintf(stderr, "kwb breakdown: no trace files\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    const std::string format = *p.value("format");
    if (format != "table" && format != "json" && format != "csv") {
        std::fprintf(stderr, "kwb breakdown: unknown format '%s' (table, json or csv)\n", format.c_str());
        return kExitUsage;
    }
    BreakdownOptions options;
    try {
        const long n = std::stol(*p.value("top"));
        if (n < 0) throw std::invalid_argument("negative");
        options.topKernels = options.topOperators = options.topUnclassified = static_cast<std::size_t>(n);
    } catch (const std::exception&) {
        std::fprintf(stderr, "kwb breakdown: --top needs a non-negative integer\n");
        return kExitUsage;
    }
    options.topLevelOperators = p.isSet("top-level-ops");

    WorkloadAnalysisRequest request;
    request.traces = p.positionals();
    request.rulesPath = p.value("rules").value_or(std::string());
    request.breakdown = options;
    auto analysis = analyseWorkloads(request);
    if (!analysis.isOk()) {
        std::fprintf(stderr, "kwb: error: %s\n", analysis.status().toString().c_str());
        return kExitErrors;
    }
    std::vector<WorkloadBreakdown> results;
    for (const auto& w : analysis->workloads) {
        if (!w.ok()) {
            std::fprintf(stderr, "kwb: error: %s\n", w.status.toString().c_str());
            continue;
        }
        for (const auto& issue : w.issues) std::fprintf(stderr, "kwb: warning: %s\n", issue.toString().c_str());
        if (w.unlistedBadEvents)
            std::fprintf(stderr, "kwb: warning: %s: %llu more bad events not listed\n", w.path.c_str(),
                static_cast<unsigned long long>(w.unlistedBadEvents));
        results.push_back(*w.breakdown);
    }
    const auto failures = analysis->failureCount();
    if (format == "json") std::fputs(breakdownToJson(results).c_str(), stdout);
    else if (format == "csv") std::fputs(breakdownToCsv(results).c_str(), stdout);
    else std::fputs(breakdownToTable(results).c_str(), stdout);
    return failures ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
