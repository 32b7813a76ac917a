// kwb breakdown: where a workload's GPU time goes, by kernel family.
#include <cstdio>

#include "analysis/breakdown.h"
#include "arg_parser.h"
#include "commands.h"
#include "traces/rule_table.h"
#include "traces/trace_loader.h"

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

    auto rules = p.value("rules") ? RuleTable::load(*p.value("rules")) : RuleTable::loadDefault();
    if (!rules.isOk()) {
        std::fprintf(stderr, "kwb: error: %s\n", rules.status().toString().c_str());
        return kExitErrors;
    }
    std::vector<WorkloadBreakdown> results;
    int failures = 0;
    for (const auto& path : p.positionals()) {
        auto trace = loadTrace(path);
        if (!trace.isOk()) {
            std::fprintf(stderr, "kwb: error: %s\n", trace.status().toString().c_str());
            ++failures;
            continue;
        }
        const auto& report = (*trace)->report();
        for (const auto& issue : report.issues) std::fprintf(stderr, "kwb: warning: %s\n", issue.toString().c_str());
        if (report.badEvents > report.issues.size())
            std::fprintf(stderr, "kwb: warning: %s: %llu more bad events not listed\n", path.c_str(),
                static_cast<unsigned long long>(report.badEvents - report.issues.size()));
        results.push_back(breakdown(**trace, *rules, options));
    }
    if (format == "json") std::fputs(breakdownToJson(results).c_str(), stdout);
    else if (format == "csv") std::fputs(breakdownToCsv(results).c_str(), stdout);
    else std::fputs(breakdownToTable(results).c_str(), stdout);
    return failures ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
