// kwb reflag: a verified population's flags under today's rules, without a GPU
// (core/workbench/reflag.h).
#include <cstdio>
#include <cstdlib>

#include "arg_parser.h"
#include "base/mapped_file.h"
#include "commands.h"
#include "records/native_reader.h"
#include "records/native_writer.h"
#include "rerun_cli.h"
#include "workbench/reflag.h"

namespace kwb::cli {

int runReflag(const Args& args)
{
    ArgParser p("reflag", "kwb reflag FILE --out FILE [--excessive-speedup X]",
        "Re-derives the flags of verified records (kwb verify's output) from the re-run result each\n"
        "keeps under verification.rerun, with the current rules: when a rule changes, a population\n"
        "verified at GPU-hour cost gets today's verdicts without re-running it. The stored result\n"
        "goes through the protocol's strict decoder; only the flags a verification writes are\n"
        "replaced. Records without a stored re-run are written unchanged.");
    p.positional("FILE", "native JSONL records (kwb verify --out)");
    p.option("out", "FILE", "where to write the records (may not be FILE itself)");
    p.option("excessive-speedup", "X", "flag speedups above X", "10");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().size() != 1 || !p.value("out")) {
        std::fprintf(stderr, "kwb reflag: needs one input FILE and --out FILE\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    const std::string in = p.positionals().front();
    const std::string out = *p.value("out");
    if (in == out) {
        std::fprintf(stderr, "kwb reflag: --out must not be the input file\n");
        return kExitUsage;
    }
    FlagThresholds thresholds;
    if (!parseDouble(*p.value("excessive-speedup"), thresholds.excessiveSpeedup) ||
        !(thresholds.excessiveSpeedup > 0)) {
        std::fprintf(stderr, "kwb reflag: --excessive-speedup: invalid value '%s'\n", p.value("excessive-speedup")->c_str());
        return kExitUsage;
    }
    auto text = readFileContents(in);
    if (!text) {
        std::fprintf(stderr, "kwb reflag: %s\n", text.status().toString().c_str());
        return kExitErrors;
    }
    RecordSet set = parseNativeRecords(*text, in);
    for (const auto& issue : set.allIssues()) std::fprintf(stderr, "kwb reflag: warning: %s\n", issue.toString().c_str());
    const workbench::ReflagReport r = workbench::reflagRecords(set.records, thresholds);
    for (const auto& e : r.errors) std::fprintf(stderr, "kwb reflag: %s: %s\n", in.c_str(), e.message().c_str());
    if (Status s = writeRecordsFile(out, set.records); !s) {
        std::fprintf(stderr, "kwb reflag: %s\n", s.toString().c_str());
        return kExitErrors;
    }
    std::printf("%zu records: %zu re-flagged from their stored re-runs, %zu with different flags now; written to %s\n",
        r.records, r.reflagged, r.changed, out.c_str());
    return set.badRecordCount() > 0 || !r.errors.empty() ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
