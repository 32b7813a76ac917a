// kwb summary: load record files and print per-group statistics.
#include <algorithm>
#include <cstdio>

#include "analysis/claims.h"
#include "analysis/summary_report.h"
#include "arg_parser.h"
#include "commands.h"
#include "records/record_loader.h"

namespace kwb::cli {

namespace {

bool parseDoubles(const std::string& text, std::vector<double>& out)
{
    out.clear();
    for (const auto& part : splitList(text)) {
        try {
            std::size_t used = 0;
            out.push_back(std::stod(part, &used));
            if (used != part.size()) return false;
        } catch (const std::exception&) {
            return false;
        }
    }
    return !out.empty();
}

void printIssues(const RecordSet& set)
{
    for (const auto& f : set.files) {
        if (!f.ok()) std::fprintf(stderr, "kwb: error: %s\n", f.fatal.toString().c_str());
        for (const auto& issue : f.issues) std::fprintf(stderr, "kwb: warning: %s\n", issue.toString().c_str());
        if (f.badRecords > f.issues.size())
            std::fprintf(stderr, "kwb: warning: %s: %zu more bad records not listed\n", f.file.c_str(),
                f.badRecords - f.issues.size());
    }
}

} // namespace

int runSummary(const Args& args)
{
    ArgParser p("summary", "kwb summary [--by FIELD[,FIELD]] [--format table|json|csv] FILE...",
        "Loads evaluation records and prints, per group, the statistics kernel-generation\n"
        "papers report: correctness rate, fast_p (KernelBench's definition: correct and\n"
        "speedup > p over all records), median and geometric-mean speedup of correct\n"
        "samples, win rate (share of correct timed samples with speedup > 1), bootstrap\n"
        "95% intervals, and unbiased pass@k.");
    p.positional("FILE...", "record files or folders: Kernel Workbench JSONL, KernelBench eval_results.json "
                            "and baseline timing JSON, leaderboard raw_data.json");
    p.option("by", "FIELD[,FIELD]", "group by fields: model, level, problem, suite, run, outcome, gpu, baseline, "
                                    "flagged, or any top-level field of the records");
    p.option("format", "table|json|csv", "output format", "table");
    p.option("input-format", "FORMAT", "force the input format: kwb-jsonl, kernelbench-eval, kernelbench-baseline, leaderboard");
    p.repeatedOption("baseline", "FILE", "KernelBench baseline timing JSON to join to eval results");
    p.option("level", "N", "KernelBench level of eval_results.json files (default: from the path)");
    p.option("model", "NAME", "model configuration of eval_results.json files (default: the run folder)");
    p.option("p", "LIST", "p values for fast_p", "0,0.5,0.8,1,1.5,2");
    p.option("k", "LIST", "k values for pass@k", "1,5,10");
    p.option("bootstrap", "N", "bootstrap resamples for the 95% intervals", "2000");
    p.flag("curve", "with --format json: add each group's continuous fast_p curve (its breakpoints)");
    p.option("claims", "auto|yes|no", "per-model table of claimed speedups against their re-runs (kwb verify): "
                                      "auto prints it when some record was re-run", "auto");
    p.option("hold-ratio", "R", "a claim holds when re-measured / claimed >= R", "0.8");
        p.epilog("Exit status is 1 when a file could not be read or no records were loaded; bad records are reported on\n"
             "stderr (file, position, reason) and counted, and the rest still load.");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().empty()) {
        std::fprintf(stderr, "kwb summary: no input files\n\n%s", p.help().c_str());
        return kExitUsage;
    }

    RecordLoadOptions load;
    if (auto f = p.value("input-format")) {
        auto fmt = recordFormatFromName(*f);
        if (!fmt) {
            std::fprintf(stderr, "kwb summary: unknown input format '%s'\n", f->c_str());
            return kExitUsage;
        }
        load.format = *fmt;
    }
    load.baselineFiles = p.values("baseline");
    if (auto l = p.value("level")) {
        try {
            load.kernelbench.level = std::stoll(*l);
        } catch (const std::exception&) {
            std::fprintf(stderr, "kwb summary: --level needs a number, got '%s'\n", l->c_str());
            return kExitUsage;
        }
    }
    if (auto m = p.value("model")) load.kernelbench.model = *m;

    SummaryOptions options;
    if (auto by = p.value("by")) options.groupBy = splitList(*by);
    if (!parseDoubles(*p.value("p"), options.pGrid)) {
        std::fprintf(stderr, "kwb summary: --p needs a comma-separated list of numbers\n");
        return kExitUsage;
    }
    std::vector<double> ks;
    if (!parseDoubles(*p.value("k"), ks)) {
        std::fprintf(stderr, "kwb summary: --k needs a comma-separated list of integers\n");
        return kExitUsage;
    }
    options.passK.clear();
    for (double k : ks) options.passK.push_back(static_cast<std::int64_t>(k));
    try {
        options.bootstrapResamples = std::stoi(*p.value("bootstrap"));
    } catch (const std::exception&) {
        std::fprintf(stderr, "kwb summary: --bootstrap needs an integer\n");
        return kExitUsage;
    }
    options.withCurve = p.isSet("curve");
    const std::string format = *p.value("format");
    if (format != "table" && format != "json" && format != "csv") {
        std::fprintf(stderr, "kwb summary: unknown format '%s' (table, json or csv)\n", format.c_str());
        return kExitUsage;
    }

    const std::string claims = *p.value("claims");
    if (claims != "auto" && claims != "yes" && claims != "no") {
        std::fprintf(stderr, "kwb summary: --claims takes auto, yes or no, got '%s'\n", claims.c_str());
        return kExitUsage;
    }
    ClaimOptions claimOptions;
    if (!parseDoubles(*p.value("hold-ratio"), ks) || ks.size() != 1 || !(ks[0] > 0.0)) {
        std::fprintf(stderr, "kwb summary: --hold-ratio needs one positive number\n");
        return kExitUsage;
    }
    claimOptions.holdRatio = ks[0];

    const RecordSet set = loadRecordFiles(p.positionals(), load);
    printIssues(set);
    const auto groups = summarize(set.records, options);
    // Claimed against verified (core/analysis/claims): what the re-runs found.
    const auto points = analyzeClaims(set.records, claimOptions);
    const bool anyRerun = std::any_of(points.begin(), points.end(),
        [](const ClaimPoint& c) { return c.verdict != ClaimVerdict::NotReMeasured; });
    const bool withClaims = claims == "yes" || (claims == "auto" && anyRerun);
    if (format == "json")
        std::fputs(summaryToJson(groups, set.allIssues(),
                       withClaims ? claimsToJson(points, tallyClaims(points), claimOptions) : std::string())
                       .c_str(),
            stdout);
    else if (format == "csv") std::fputs(summaryToCsv(groups).c_str(), stdout);
    else {
        std::fputs(summaryToTable(groups).c_str(), stdout);
        std::fprintf(stdout, "\n%zu records from %zu file%s", set.records.size(), set.files.size(),
            set.files.size() == 1 ? "" : "s");
        if (set.badRecordCount()) std::fprintf(stdout, "; %zu bad records skipped", set.badRecordCount());
        if (set.failedFileCount()) std::fprintf(stdout, "; %zu files failed", set.failedFileCount());
        std::fputs("\n", stdout);
        if (withClaims) {
            std::fputs("\nClaimed speedups against their re-runs\n\n", stdout);
            std::fputs(claimTallyText(tallyClaims(points), claimOptions).c_str(), stdout);
        }
    }
    // No records at all is no summary: say why (a baseline table alone) and fail.
    const auto hints = recordLoadHints(set);
    for (const auto& h : hints) std::fprintf(stderr, "kwb summary: %s\n", h.c_str());
    if (set.records.empty()) {
        if (hints.empty()) std::fprintf(stderr, "kwb summary: no records were loaded\n");
        return kExitErrors;
    }
    return set.failedFileCount() ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
