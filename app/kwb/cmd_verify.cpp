// kwb verify: re-run evaluation records and write them back as native records
// with the verification fields filled in (workbench/verify_batch.h does the
// work; this file parses and prints).
#include <algorithm>
#include <cstdio>
#include <thread>

#include "arg_parser.h"
#include "commands.h"
#include "record_rerun.h"
#include "rerun_cli.h"
#include "workbench/verify_batch.h"

namespace kwb::cli {

int runVerify(const Args& args)
{
    ArgParser p("verify", "kwb verify RECORDS... --out FILE [options]",
        "Re-runs evaluation records on the local GPU and writes them as native records\n"
        "(kwb.record/1) with the verification fields filled: coverage of the outputs with\n"
        "its grid, flags with reasons, and the whole re-run result under\n"
        "verification.rerun. A record's kernel is found as in every front end: its\n"
        "\"candidate_spec\" member or a source.path ending in .json, else its KernelBench\n"
        "sample (inline ModelNew: the PyTorch bridge), else a candidate spec of the --candidates\n"
        "folders whose id is the record id or whose source file has the record's file name;\n"
        "its problem from \"problem_spec\", else by the candidate's problem id in --problems\n"
        "and the problems/ folder beside the candidates. What a record lacks (outcome,\n"
        "candidate timing, a \"reference\" baseline, speedup) is filled from the re-run;\n"
        "what it has is kept. Other records are written\n"
        "with a not_run flag. Lines are appended as records finish; run the same command\n"
        "again after an interruption and records already in FILE are skipped.");
    p.positional("RECORDS...", "record files or folders (any format kwb summary reads)");
    p.option("out", "FILE", "native JSONL file to append verified records to (required)");
    p.repeatedOption("problems", "DIR", "where to look up problem ids (default: the dataset's problems/)");
    p.option("shard", "I/N", "only the records of shard I of N (0 <= I < N; by a hash of the record id)");
    p.option("gpus", "LIST|all", "one isolated runner per GPU: all, or indices/UUIDs such as 0,1,3 (default: one runner)");
    p.repeatedOption("candidates", "DIR", "candidate specs for records that name none by path (default: the dataset's candidates/)");
    // Half the cores: each build runs two compilers, and on the H200 machine 8 workers of 16 cores
    // built 24 samples 7% slower than 16 but each in 34 s instead of 57 s, so the batch ended sooner.
    p.option("build-jobs", "N", "build KernelBench samples' extensions in N parallel build lanes before the GPU work "
                                "(0: build each when it is re-run; default: half the cores)",
        std::to_string(std::max(1u, std::thread::hardware_concurrency() / 2)));
    addRerunOptions(p);
    addBridgeOptions(p);
    p.epilog("Exit status: 0 when every record was handled, 1 on errors (unreadable input,\n"
             "executor failures, no usable GPU), 3 when this build has no GPU support,\n"
             "130 when interrupted (run again to resume).");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().empty() || !p.value("out")) {
        std::fprintf(stderr, "kwb verify: %s\n\n%s", p.positionals().empty() ? "no record files" : "--out FILE is required",
            p.help().c_str());
        return kExitUsage;
    }
    workbench::VerifyOptions vo;
    if (!readRerunOptions(p, "verify", vo.rerun, vo.thresholds)) return kExitUsage;
    if (auto code = gpuBuildCheck("verify")) return *code;
    vo.out = *p.value("out");
    vo.recordFiles = p.positionals();
    vo.problemDirs = p.values("problems");
    if (vo.problemDirs.empty()) vo.problemDirs = defaultProblemDirs();
    vo.candidateDirs = p.values("candidates");
    if (vo.candidateDirs.empty()) vo.candidateDirs = {std::string(KWB_DATASET_DIR) + "/candidates"};
    vo.kernelbenchDir = p.value("kernelbench").value_or(std::string());
    if (auto s = p.value("shard")) {
        auto parsed = parseShardSpec(*s);
        if (!parsed) {
            std::fprintf(stderr, "kwb verify: --shard: %s\n", parsed.status().message().c_str());
            return kExitUsage;
        }
        vo.shard = *parsed;
    }
    if (auto g = p.value("gpus")) {
        auto resolved = resolveGpus(*g, GpuEnvironment::fromProcess());
        if (!resolved) {
            std::fprintf(stderr, "kwb verify: %s\n", resolved.status().toString().c_str());
            return kExitErrors;
        }
        vo.gpus = std::move(*resolved);
    }
    try {
        const int n = std::stoi(*p.value("build-jobs"));
        if (n < 0 || n > 4096) throw std::out_of_range("build-jobs");
        vo.buildJobs = n;
    } catch (const std::exception&) {
        std::fprintf(stderr, "kwb verify: --build-jobs: invalid value '%s'\n", p.value("build-jobs")->c_str());
        return kExitUsage;
    }

    auto plan = workbench::planVerify(vo);
    if (!plan) {
        std::fprintf(stderr, "kwb verify: %s\n", plan.status().toString().c_str());
        return kExitErrors;
    }
    bool errors = !plan->fileErrors.empty();
    for (const auto& e : plan->fileErrors) std::fprintf(stderr, "kwb verify: error: %s\n", e.toString().c_str());
    for (const auto& i : plan->issues) std::fprintf(stderr, "kwb verify: warning: %s\n", i.toString().c_str());
    std::fprintf(stderr, "kwb verify: %zu records to verify (%zu with candidate specs, %zu KernelBench samples), %zu already in %s\n",
        plan->items.size(), plan->jobs(workbench::ExecutorKind::Runner), plan->jobs(workbench::ExecutorKind::Bridge),
        plan->alreadyDone, vo.out.c_str());

    workbench::ExecutorSet executors(executorConfig(p));
    const bool quiet = p.isSet("quiet");
    StderrProgress progress("verify", !quiet);
    workbench::VerifyEvents events;
    events.progressFor = [&](std::size_t i, std::size_t n, const std::string& id) { return progress.forItem(i, n, id); };
    events.onRecord = [&](std::size_t i, std::size_t n, const workbench::VerifyItem& item, const RerunOutcome* o) {
        if (o && !o->result) {
            std::fprintf(stderr, "kwb verify: %s: %s\n", item.record.id.c_str(), o->error.toString().c_str());
            return;
        }
        if (quiet || !o) return;
        std::string codes;
        for (const auto& f : o->result->flags) codes += (codes.empty() ? "" : ",") + f.code;
        std::fprintf(stderr, "kwb verify: [%zu/%zu] %s: %s%s%s\n", i + 1, n, item.record.id.c_str(),
            rerunStatusName(o->result->status), codes.empty() ? "" : ", flags: ", codes.c_str());
    };
    events.onGpu = [](std::size_t g, const GpuPlacement& gpu) {
        std::fprintf(stderr, "kwb verify: GPU %zu: CUDA_VISIBLE_DEVICES=%s %s\n", g, gpu.visibleDevices.c_str(), gpu.name.c_str());
    };
    std::int64_t lastBuilt = -1;
    events.buildProgress = [&](const Progress& pr) {
        // A line per tenth of the samples, so a long pool shows it is alive.
        if (quiet || pr.total <= 0 || (pr.done != pr.total && pr.done * 10 / pr.total == lastBuilt)) return;
        lastBuilt = pr.done * 10 / pr.total;
        std::fprintf(stderr, "kwb verify: building samples: %lld/%lld\n", static_cast<long long>(pr.done),
            static_cast<long long>(pr.total));
    };
    events.onBuilt = [&](const workbench::BuildReport& b) {
        std::vector<double> t = b.buildSeconds;
        std::sort(t.begin(), t.end());
        const std::string cut = b.cancelled ? ", " + std::to_string(b.cancelled) + " not built: interrupted" : std::string();
        std::fprintf(stderr, "kwb verify: built %zu distinct samples in %.1f s with %d workers (%zu cached, %zu failed%s; median %.1f s each)\n",
            b.distinct - b.cancelled, b.wallSeconds, vo.buildJobs, b.cacheHits, b.failed, cut.c_str(), t.empty() ? 0.0 : t[t.size() / 2]);
    };
    auto report = workbench::runVerify(*plan, vo, executors, events, installInterruptFlag());
    if (!report) {
        std::fprintf(stderr, "kwb verify: %s\n", report.status().toString().c_str());
        return kExitErrors;
    }
    errors = errors || report->errors > 0;
    std::printf("verified %zu records into %s (%zu already there)", report->written, vo.out.c_str(), plan->alreadyDone);
    if (report->gpus > 0) std::printf(" on %zu GPUs", report->gpus);
    if (report->runnerRestarts > 0) std::printf("; kwb-runner restarted %d time(s)", report->runnerRestarts);
    if (report->bridgeRestarts > 0) std::printf("; PyTorch bridge restarted %d time(s)", report->bridgeRestarts);
    std::printf("\n");
    for (const auto& [code, n] : report->flagCounts) std::printf("  %-22s %d\n", code.c_str(), n);
    if (report->cancelled) {
        std::fprintf(stderr, "kwb verify: interrupted; run the same command again to resume\n");
        return 130;
    }
    return errors ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
