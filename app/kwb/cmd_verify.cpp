// kwb verify: re-run evaluation records whose kernels have candidate specs and
// write them back as native records with the verification fields filled in.
// Appends one line per record as it goes, so an interrupted run resumes where
// it stopped: records already in --out are skipped.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "arg_parser.h"
#include "base/mapped_file.h"
#include "commands.h"
#include "kernelbench_rerun.h"
#include "records/native_reader.h"
#include "records/native_writer.h"
#include "records/record_loader.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/rerun_session.h"
#include "rerun_cli.h"
#include "workbench/runner_pool.h"
#include "workbench/shard.h"

namespace kwb::cli {

namespace {

namespace fs = std::filesystem;

// Where a record's specs are: the top-level fields "candidate_spec" /
// "problem_spec" (paths), else source.path when it names a candidate spec.
std::optional<std::string> rawString(const EvalRecord& r, const char* key)
{
    const RawField* f = findRaw(r.extra, key);
    if (!f) return std::nullopt;
    try {
        auto j = nlohmann::json::parse(f->json);
        if (j.is_string()) return j.get<std::string>();
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

std::string resolvePath(const std::string& path, const std::string& recordFile)
{
    std::error_code ec;
    if (fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
    const fs::path besideRecords = fs::path(recordFile).parent_path() / path;
    if (fs::exists(besideRecords, ec)) return besideRecords.string();
    return path;
}

struct Job {
    EvalRecord record;
    std::string recordFile;
    std::optional<CandidateSpec> candidate;
    std::optional<ProblemSpec> problem;
    std::optional<RerunRequest> kernelbench; // a KernelBench sample, for the PyTorch bridge
    std::string whyNot; // why the record cannot be re-run
};

void planJob(Job& job, const std::vector<std::string>& problemDirs, const ArgParser& p, const RerunOptions& options)
{
    std::string candidatePath;
    if (auto c = rawString(job.record, "candidate_spec")) candidatePath = *c;
    else if (job.record.source.path.size() > 5 && job.record.source.path.ends_with(".json")) candidatePath = job.record.source.path;
    if (candidatePath.empty() && isKernelBenchSample(job.record)) {
        auto req = kernelBenchVerifyRequest(p, job.record, options);
        if (req) job.kernelbench = std::move(*req);
        else job.whyNot = req.status().toString();
        return;
    }
    if (candidatePath.empty()) {
        job.whyNot = "the record names no candidate spec (source.path or candidate_spec)";
        return;
    }
    auto candidate = loadCandidateSpec(resolvePath(candidatePath, job.recordFile));
    if (!candidate) {
        job.whyNot = candidate.status().toString();
        return;
    }
    Result<ProblemSpec> problem = Status(ErrorCode::NotFound, "");
    if (auto pp = rawString(job.record, "problem_spec")) {
        problem = loadProblemSpec(resolvePath(*pp, job.recordFile));
    } else {
        std::vector<std::string> dirs = problemDirs;
        const fs::path cdir = fs::path(candidate->specPath).parent_path();
        for (const auto& d : {cdir.parent_path().parent_path() / "problems", cdir.parent_path() / "problems"}) {
            std::error_code ec;
            if (fs::is_directory(d, ec)) dirs.push_back(d.string());
        }
        problem = findProblem(candidate->problem, dirs);
    }
    if (!problem) {
        job.whyNot = problem.status().toString();
        return;
    }
    job.candidate = std::move(*candidate);
    job.problem = std::move(*problem);
}

// Cuts a trailing partial line (an interrupted write) and returns the ids present.
Result<std::set<std::string>> resumeState(const std::string& out)
{
    std::set<std::string> ids;
    std::error_code ec;
    if (!fs::exists(out, ec)) return ids;
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(out));
    if (!text.empty() && text.back() != '\n') {
        const auto cut = text.rfind('\n');
        text.resize(cut == std::string::npos ? 0 : cut + 1);
        fs::resize_file(out, text.size(), ec);
        if (ec) return Status(ErrorCode::IoError, "cannot cut the partial last line: " + ec.message(), SourcePosition{out});
    }
    const RecordSet done = parseNativeRecords(text, out);
    for (const auto& r : done.records) ids.insert(r.id);
    return ids;
}

} // namespace

int runVerify(const Args& args)
{
    ArgParser p("verify", "kwb verify RECORDS... --out FILE [options]",
        "Re-runs evaluation records on the local GPU and writes them as native records\n"
        "(kwb.record/1) with the verification fields filled: coverage of the outputs with\n"
        "its grid, flags with reasons, and the whole re-run result under\n"
        "verification.rerun. A record is re-run when it names a candidate spec (its\n"
        "top-level \"candidate_spec\" field, or source.path ending in .json); its problem\n"
        "spec comes from \"problem_spec\", else by the candidate's problem id from --problems\n"
        "folders and the problems/ folder beside the candidates. What a record lacks (outcome,\n"
        "candidate timing, a \"reference\" baseline, speedup) is filled from the re-run;\n"
        "what it has is kept. Other records are written\n"
        "with a not_run flag. Lines are appended as records finish; run the same command\n"
        "again after an interruption and records already in FILE are skipped.");
    p.positional("RECORDS...", "record files or folders (any format kwb summary reads)");
    p.option("out", "FILE", "native JSONL file to append verified records to (required)");
    p.repeatedOption("problems", "DIR", "where to look up problem ids (default: the dataset's problems/)");
    p.option("shard", "I/N", "only the records of shard I of N (0 <= I < N; by a hash of the record id)");
    p.option("gpus", "LIST|all", "one isolated runner per GPU: all, or indices/UUIDs such as 0,1,3 (default: one runner)");
    addRerunOptions(p);
    addKernelBenchOptions(p);
    p.epilog("Exit status: 0 when every record was handled, 1 on errors (unreadable input,\n"
             "executor failures, no usable GPU), 3 when this build has no GPU support,\n"
             "130 when interrupted (run again to resume).");
    if (!p.parse(args)) return finishParse(p);
    if (p.positionals().empty() || !p.value("out")) {
        std::fprintf(stderr, "kwb verify: %s\n\n%s", p.positionals().empty() ? "no record files" : "--out FILE is required",
            p.help().c_str());
        return kExitUsage;
    }
    RerunOptions options;
    FlagThresholds thresholds;
    if (!readRerunOptions(p, "verify", options, thresholds)) return kExitUsage;
    if (auto code = gpuBuildCheck("verify")) return *code;
    const std::string out = *p.value("out");
    auto problemDirs = p.values("problems");
    if (problemDirs.empty()) problemDirs = defaultProblemDirs();
    std::optional<ShardSpec> shard;
    if (auto s = p.value("shard")) {
        auto parsed = parseShardSpec(*s);
        if (!parsed) {
            std::fprintf(stderr, "kwb verify: --shard: %s\n", parsed.status().message().c_str());
            return kExitUsage;
        }
        shard = *parsed;
    }
    std::vector<GpuPlacement> gpus;
    if (auto g = p.value("gpus")) {
        auto resolved = resolveGpus(*g, GpuEnvironment::fromProcess());
        if (!resolved) {
            std::fprintf(stderr, "kwb verify: %s\n", resolved.status().toString().c_str());
            return kExitErrors;
        }
        gpus = std::move(*resolved);
    }

    auto done = resumeState(out);
    if (!done) {
        std::fprintf(stderr, "kwb verify: %s\n", done.status().toString().c_str());
        return kExitErrors;
    }
    bool errors = false;
    std::vector<Job> jobs;
    std::size_t skipped = 0;
    std::set<std::string> planned;
    std::vector<std::string> order; // the shard's records in input order: how the finished file is sorted
    std::set<std::string> ordered;
    for (const auto& file : p.positionals()) {
        const RecordSet set = loadRecordFiles({file});
        for (const auto& f : set.files) {
            if (!f.ok()) {
                std::fprintf(stderr, "kwb verify: error: %s\n", f.fatal.toString().c_str());
                errors = true;
            }
            for (const auto& issue : f.issues) std::fprintf(stderr, "kwb verify: warning: %s\n", issue.toString().c_str());
        }
        for (const auto& r : set.records) {
            if (shard && !inShard(r.id, *shard)) continue;
            if (ordered.insert(r.id).second) order.push_back(r.id);
            if (done->count(r.id) || planned.count(r.id)) {
                ++skipped;
                continue;
            }
            planned.insert(r.id);
            Job job;
            job.record = r;
            job.recordFile = file;
            planJob(job, problemDirs, p, options);
            jobs.push_back(std::move(job));
        }
    }
    const std::size_t runnable =
        static_cast<std::size_t>(std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.candidate.has_value(); }));
    const std::size_t samples =
        static_cast<std::size_t>(std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.kernelbench.has_value(); }));
    std::fprintf(stderr, "kwb verify: %zu records to verify (%zu with candidate specs, %zu KernelBench samples), %zu already in %s\n",
        jobs.size(), runnable, samples, skipped, out.c_str());

    int exitCode = kExitOk;
    RunnerPoolOptions poolOptions;
    poolOptions.gpus = gpus;
    poolOptions.thresholds = thresholds;
    if (runnable > 0) {
        auto runnerOpts = runnerOptions(p, "verify", exitCode);
        if (!runnerOpts) return exitCode;
        poolOptions.runner = std::move(*runnerOpts);
    }
    if (samples > 0) {
        auto bridgeOpts = bridgeOptions(p, "verify", exitCode);
        if (!bridgeOpts) return exitCode;
        poolOptions.bridge = std::move(*bridgeOpts);
    }
    RunnerPool pool(std::move(poolOptions));
    if (runnable > 0 || samples > 0) {
        if (Status s = pool.start(runnable > 0, samples > 0); !s) {
            std::fprintf(stderr, "kwb verify: %s\n", s.toString().c_str());
            return kExitErrors;
        }
        if (!gpus.empty())
            for (std::size_t g = 0; g < pool.size(); ++g)
                std::fprintf(stderr, "kwb verify: GPU %zu: CUDA_VISIBLE_DEVICES=%s %s\n", g,
                    pool.placement(g).visibleDevices.c_str(), pool.placement(g).name.c_str());
    }

    std::FILE* sink = std::fopen(out.c_str(), "ab");
    if (!sink) {
        std::fprintf(stderr, "kwb verify: cannot open '%s' for appending\n", out.c_str());
        return kExitErrors;
    }
    const CancelFlag* interrupted = installInterruptFlag();
    std::map<std::string, int> flagCounts;
    std::size_t written = 0;
    bool cancelled = false;
    bool writeFailed = false;
    const auto writeRecord = [&](const EvalRecord& record) {
        const std::string line = recordToJsonLine(record);
        if (std::fwrite(line.data(), 1, line.size(), sink) != line.size() || std::fflush(sink) != 0) {
            std::fprintf(stderr, "kwb verify: cannot write to '%s'\n", out.c_str());
            writeFailed = true;
            return false;
        }
        ++written;
        return true;
    };
    // Requests first (on this thread), then the pool runs them on every GPU at once.
    std::vector<RerunRequest> requests;
    std::vector<std::size_t> jobOf; // pool job -> jobs[]
    requests.reserve(jobs.size());
    for (std::size_t i = 0; i < jobs.size() && !writeFailed; ++i) {
        Job& job = jobs[i];
        if (!job.candidate && !job.kernelbench) {
            job.record.verification.flags.push_back({std::string(flagcode::kNotRun), "not re-run: " + job.whyNot, "info"});
            writeRecord(job.record);
            continue;
        }
        if (job.kernelbench) {
            requests.push_back(std::move(*job.kernelbench));
        } else {
            auto made = makeRerunRequest(*job.problem, *job.candidate, options, job.record.id);
            if (!made) {
                std::fprintf(stderr, "kwb verify: %s: %s\n", job.record.id.c_str(), made.status().toString().c_str());
                errors = true;
                continue;
            }
            requests.push_back(std::move(*made));
        }
        jobOf.push_back(i);
    }
    std::vector<PoolJob> poolJobs;
    for (std::size_t k = 0; k < requests.size(); ++k)
        poolJobs.push_back({jobs[jobOf[k]].record.id, &requests[k], &requests[k].candidate,
            requests[k].candidate.form == CandidateForm::KernelBenchSample});
    const bool quiet = p.isSet("quiet");
    const auto where = [&](std::size_t slot) { return gpus.empty() ? std::string() : " (GPU " + std::to_string(slot) + ")"; };
    const auto progressOf = [&](std::size_t k, std::size_t slot) -> ProgressFn {
        if (quiet) return {};
        auto last = std::make_shared<std::string>();
        const std::string name = poolJobs[k].name + where(slot);
        return [k, n = poolJobs.size(), name, last](const Progress& pr) {
            if (pr.stage == *last) return;
            *last = pr.stage;
            std::fprintf(stderr, "kwb verify: [%zu/%zu] %s: %s\n", k + 1, n, name.c_str(), pr.stage.c_str());
        };
    };
    std::size_t finished = 0;
    if (!writeFailed)
        pool.run(poolJobs, interrupted, progressOf, [&](PoolResult&& r) {
            ++finished;
            EvalRecord& record = jobs[jobOf[r.job]].record;
            const RerunOutcome& o = r.outcome;
            if (o.error.code() == ErrorCode::Cancelled) {
                cancelled = true;
                return false;
            }
            if (!o.result) {
                std::fprintf(stderr, "kwb verify: %s: %s\n", record.id.c_str(), o.error.toString().c_str());
                errors = true;
                return true;
            }
            applyRerunToRecord(record, *o.result);
            completeRecordFromRerun(record, *o.result, options);
            if (!gpus.empty()) recordPlacement(record, pool.placement(r.slot));
            std::string codes;
            for (const auto& f : o.result->flags) {
                ++flagCounts[f.code];
                codes += (codes.empty() ? "" : ",") + f.code;
            }
            if (!quiet)
                std::fprintf(stderr, "kwb verify: [%zu/%zu done] %s%s: %s%s%s\n", finished, poolJobs.size(), record.id.c_str(),
                    where(r.slot).c_str(), rerunStatusName(o.result->status), codes.empty() ? "" : ", flags: ", codes.c_str());
            return writeRecord(record);
        });
    std::fclose(sink);
    if (writeFailed) return kExitErrors;
    if (interrupted->isCancelled()) cancelled = true;
    if (!cancelled) {
        // Finished: put the records in input order, so the file is the same however many GPUs or shards wrote it.
        if (auto sorted = sortRecordFile(out, order); !sorted) {
            std::fprintf(stderr, "kwb verify: %s\n", sorted.status().toString().c_str());
            errors = true;
        }
    }

    std::printf("verified %zu records into %s (%zu already there)", written, out.c_str(), skipped);
    if (!gpus.empty()) std::printf(" on %zu GPUs", gpus.size());
    if (pool.runnerRestarts() > 0) std::printf("; kwb-runner restarted %d time(s)", pool.runnerRestarts());
    if (pool.bridgeRestarts() > 0) std::printf("; PyTorch bridge restarted %d time(s)", pool.bridgeRestarts());
    std::printf("\n");
    for (const auto& [code, n] : flagCounts) std::printf("  %-22s %d\n", code.c_str(), n);
    if (cancelled) {
        std::fprintf(stderr, "kwb verify: interrupted; run the same command again to resume\n");
        return 130;
    }
    return errors ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
