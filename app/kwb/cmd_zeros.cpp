// kwb zeros: zero acceptance of KernelBench problems. Runs each problem's
// reference on its own get_inputs() through the PyTorch bridge on the GPU and
// reports whether all zeros, or a constant equal to the output's mean, would
// pass KernelBench's allclose at 1e-2 and 1e-4 — decided by core
// (analysis/zero_acceptance) on the device's values. --show prints a table
// written before (datasets/zero_acceptance/) without a GPU.
#include <cstdio>
#include <ctime>
#include <fstream>

#include "analysis/zero_acceptance.h"
#include "arg_parser.h"
#include "commands.h"
#include "records/zero_acceptance_table.h"
#include "workbench/zero_run.h"

namespace kwb::cli {

namespace {

bool parseLevels(const std::string& text, std::vector<int>& out)
{
    for (const auto& part : splitList(text)) {
        try {
            std::size_t used = 0;
            const int v = std::stoi(part, &used);
            if (used != part.size() || v < 1) return false;
            out.push_back(v);
        } catch (const std::exception&) {
            return false;
        }
    }
    return !out.empty();
}

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

int show(const std::vector<std::string>& files, const std::optional<std::string>& compare, int level)
{
    std::vector<ZeroAcceptanceRow> rows;
    for (const auto& f : files) {
        auto t = readZeroAcceptanceTable(f);
        if (!t.isOk()) {
            std::fprintf(stderr, "kwb zeros: %s\n", t.status().toString().c_str());
            return kExitErrors;
        }
        if (t->haveMeta)
            std::printf("%s: %s, PyTorch %s, CUDA %s, seed %lld, %s\n", f.c_str(), t->meta.device.c_str(),
                t->meta.torch.c_str(), t->meta.cuda.c_str(), t->meta.seed, t->meta.dateUtc.c_str());
        rows.insert(rows.end(), t->rows.begin(), t->rows.end());
    }
    std::printf("\n%s", zeroAcceptanceSummaryText(rows).c_str());
    if (level > 0) std::printf("\n%s", zeroAcceptanceRowsText(rows, level).c_str());
    if (compare) {
        auto other = readZeroAcceptanceTable(*compare);
        if (!other.isOk()) {
            std::fprintf(stderr, "kwb zeros: %s\n", other.status().toString().c_str());
            return kExitErrors;
        }
        const auto diffs = compareZeroAcceptance(other->rows, rows);
        std::printf("\nAgainst %s: %zu difference%s\n", compare->c_str(), diffs.size(), diffs.size() == 1 ? "" : "s");
        for (const auto& d : diffs) std::printf("  %s\n", d.c_str());
    }
    return kExitOk;
}

} // namespace

int runZeros(const Args& args)
{
    ArgParser p("zeros", "kwb zeros [--levels 1,2] [--out TABLE] PROBLEM_DIR_OR_FILES... | kwb zeros --show TABLE...",
        "Zero acceptance of KernelBench problems: runs each problem's reference Model on its own\n"
        "get_inputs() (seeded as KernelBench's evaluator, fp32, TF32 off) through the PyTorch\n"
        "bridge on the GPU and reports the output's max |value| and RMS, and whether an all-zeros\n"
        "output and a constant equal to the output's mean would pass allclose at atol = rtol = 1e-2\n"
        "(KernelBench's first release) and 1e-4 (its current fp32 tolerance). The verdicts are\n"
        "core's (zerosPassAllclose, constantPassesAllclose) on the device's values.");
    p.positional("PROBLEM_DIR_OR_FILES...", "KernelBench problem files or folders (e.g. .../KernelBench/level1); "
                                            "the version is the folder above KernelBench/");
    p.option("levels", "LIST", "only these levels (from the levelN folders), e.g. 1 or 1,2,3");
    p.option("out", "TABLE", "write the table here (JSONL, datasets/zero_acceptance/ format) and its .meta.json");
    p.option("python", "PROGRAM", "Python with torch for the bridge (default: $KWB_PYTHON, else python3)");
    p.option("timeout", "S", "time budget per problem in seconds (a fresh bridge after a timeout)", "60");
    p.option("seed", "N", "seed before get_init_inputs(), Model() and get_inputs()", "42");
    p.flag("show", "print tables written before (the positionals are TABLE files); needs no GPU");
    p.option("compare", "TABLE", "with --show or a run: list the problems whose verdicts differ from TABLE's");
    p.option("level", "N", "with --show: also list every problem of level N");
    p.epilog("Exit status: 0 done, 1 a problem file or table could not be read or written, 2 usage\n"
             "error, 3 no GPU here (the reason is printed: no CUDA device, no torch, no bridge).");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().empty()) {
        std::fprintf(stderr, "kwb zeros: no problem files or folders given\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    int showLevel = 0;
    if (auto l = p.value("level")) {
        std::vector<int> one;
        if (!parseLevels(*l, one) || one.size() != 1) {
            std::fprintf(stderr, "kwb zeros: --level needs one level number, got '%s'\n", l->c_str());
            return kExitUsage;
        }
        showLevel = one.front();
    }
    if (p.isSet("show")) return show(p.positionals(), p.value("compare"), showLevel);

    std::vector<int> levels;
    if (auto l = p.value("levels"); l && !parseLevels(*l, levels)) {
        std::fprintf(stderr, "kwb zeros: --levels needs level numbers (1,2,3), got '%s'\n", l->c_str());
        return kExitUsage;
    }
    ZeroRunOptions options;
    try {
        options.timeoutS = std::stod(*p.value("timeout"));
        options.seed = std::stoi(*p.value("seed"));
    } catch (const std::exception&) {
        std::fprintf(stderr, "kwb zeros: --timeout and --seed need numbers\n");
        return kExitUsage;
    }
    auto jobs = listZeroJobs(p.positionals(), levels);
    if (!jobs.isOk()) {
        std::fprintf(stderr, "kwb zeros: %s\n", jobs.status().toString().c_str());
        return kExitErrors;
    }
    if (jobs->empty()) {
        std::fprintf(stderr, "kwb zeros: no problem files (*.py) in the inputs%s\n", levels.empty() ? "" : " at those levels");
        return kExitErrors;
    }
    auto bridge = findTorchBridge(p.value("python").value_or(std::string()));
    if (!bridge.isOk()) {
        std::fprintf(stderr, "kwb zeros: needs a GPU and the PyTorch bridge: %s\n", bridge.status().message().c_str());
        return kExitNotInBuild;
    }
    options.bridge = *bridge;

    std::ofstream out;
    const auto outPath = p.value("out");
    if (outPath) {
        out.open(*outPath, std::ios::binary | std::ios::trunc);
        if (!out) {
            std::fprintf(stderr, "kwb zeros: %s: cannot write\n", outPath->c_str());
            return kExitErrors;
        }
    }
    options.onRow = [&](const ZeroAcceptanceRow& row, std::size_t done, std::size_t total) {
        if (out.is_open()) {
            out << zeroAcceptanceRowJson(row) << '\n';
            out.flush(); // a run cut short keeps what it finished
        }
        if (row.status == "ok")
            std::fprintf(stderr, "[%zu/%zu] %s level %d %s: max|ref| %.3g, zeros@1e-2 %s, zeros@1e-4 %s, mean@1e-2 %s\n",
                done, total, row.version.c_str(), row.level, row.problem.c_str(), row.combined.maxAbs,
                row.combined.zerosPass[0] ? "yes" : "no", row.combined.zerosPass[1] ? "yes" : "no",
                !row.combined.meanPass[0] ? "-" : *row.combined.meanPass[0] ? "yes" : "no");
        else
            std::fprintf(stderr, "[%zu/%zu] %s level %d %s: %s: %s\n", done, total, row.version.c_str(), row.level,
                row.problem.c_str(), row.status.c_str(), row.reason.c_str());
    };
    const std::string started = utcNow();
    auto run = runZeroProbes(*jobs, options);
    if (!run.isOk()) {
        std::fprintf(stderr, "kwb zeros: %s\n", run.status().message().c_str());
        return run.status().code() == ErrorCode::Unsupported ? kExitNotInBuild : kExitErrors;
    }
    if (outPath) {
        ZeroAcceptanceMeta meta;
        meta.seed = options.seed;
        meta.dateUtc = started;
        meta.device = run->device;
        meta.torch = run->runnerVersion; // "kwb_torch_bridge ... (torch X)"
        std::ofstream m(zeroAcceptanceMetaPath(*outPath), std::ios::binary | std::ios::trunc);
        m << zeroAcceptanceMetaJson(meta) << '\n';
        if (!m) {
            std::fprintf(stderr, "kwb zeros: %s: cannot write\n", zeroAcceptanceMetaPath(*outPath).c_str());
            return kExitErrors;
        }
    }
    std::printf("%s", zeroAcceptanceSummaryText(run->rows).c_str());
    if (auto c = p.value("compare")) {
        auto other = readZeroAcceptanceTable(*c);
        if (!other.isOk()) {
            std::fprintf(stderr, "kwb zeros: %s\n", other.status().toString().c_str());
            return kExitErrors;
        }
        const auto diffs = compareZeroAcceptance(other->rows, run->rows);
        std::printf("\nAgainst %s: %zu difference%s\n", c->c_str(), diffs.size(), diffs.size() == 1 ? "" : "s");
        for (const auto& d : diffs) std::printf("  %s\n", d.c_str());
    }
    return kExitOk;
}

} // namespace kwb::cli
