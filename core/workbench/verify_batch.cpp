#include "workbench/verify_batch.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include <unistd.h>

#include "base/mapped_file.h"
#include "records/native_reader.h"
#include "records/native_writer.h"
#include "records/record_loader.h"
#include "rerun/kernelbench_sample.h"
#include "workbench/build_board.h"
#include "workbench/gpu_batch.h"
#include "workbench/run_summary.h"

namespace kwb::workbench {

namespace fs = std::filesystem;

std::size_t VerifyPlan::jobs(ExecutorKind kind) const
{
    std::size_t n = 0;
    for (const auto& i : items) n += i.job && i.job->executor == kind;
    return n;
}

Result<std::set<std::string>> verifiedIds(const std::string& out)
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

Result<VerifyPlan> planVerify(const VerifyOptions& options)
{
    KWB_ASSIGN_OR_RETURN(std::set<std::string> done, verifiedIds(options.out));
    VerifyPlan plan;
    SpecIndex index;
    for (const auto& d : options.problemDirs) index.addDirectory(d);
    for (const auto& d : options.candidateDirs) index.addDirectory(d);
    std::set<std::string> planned;
    std::set<std::string> inOrder;
    for (const auto& file : options.recordFiles) {
        RecordSet set = loadRecordFiles({file});
        for (const auto& f : set.files) {
            if (!f.ok()) plan.fileErrors.push_back(f.fatal);
            plan.issues.insert(plan.issues.end(), f.issues.begin(), f.issues.end());
        }
        for (auto& r : set.records) {
            if (options.shard && !inShard(r.id, *options.shard)) continue;
            if (inOrder.insert(r.id).second) plan.order.push_back(r.id);
            if (done.count(r.id) || planned.count(r.id)) {
                ++plan.alreadyDone;
                continue;
            }
            planned.insert(r.id);
            VerifyItem item;
            item.recordFile = file;
            JobContext context;
            context.recordFile = file;
            context.kernelbenchDir = options.kernelbenchDir;
            auto job = resolveRerunJob(r, index, context, options.rerun);
            if (job) item.job = std::move(job).value();
            else item.whyNot = job.status().toString();
            item.record = std::move(r);
            plan.items.push_back(std::move(item));
        }
    }
    return plan;
}

namespace {

// What the bridge would have answered for a sample that does not build,
// without sending it to the GPU.
RerunOutcome compileErrorOutcome(const RerunJob& job, const std::string& error, const FlagThresholds& thresholds)
{
    RerunResult r;
    r.id = job.request.id;
    r.problemId = job.request.problem.id;
    r.candidateId = job.request.candidate.id;
    r.status = RerunStatus::CompileError;
    r.message = "the build pool could not build the sample: " + error;
    r.precision = job.request.problem.precision;
    r.flags = deriveFlags(r, thresholds);
    RerunOutcome o;
    o.problemId = r.problemId;
    o.candidateId = r.candidateId;
    o.expectation = checkExpectations(job.request.candidate, r);
    o.result = std::move(r);
    return o;
}

} // namespace

Result<VerifyReport> runVerify(VerifyPlan& plan, const VerifyOptions& options, ExecutorSet& executors,
    const VerifyEvents& events, const CancelFlag* cancel)
{
    // Every executor the plan needs must be there before anything runs.
    for (ExecutorKind kind : {ExecutorKind::Runner, ExecutorKind::Bridge}) {
        if (plan.jobs(kind) == 0) continue;
        const Availability& a = executors.probe(kind);
        if (!a.available) return Status(ErrorCode::Unsupported, a.reason);
    }
    // The build pool. The GPU starts on the first samples as soon as they are
    // built (the board says when): the one GPU loop waits on the board for each
    // record's sample, and with a runner per GPU each GPU's thread waits for the
    // record it took (PoolJob::before).
    BuildBoard board;
    BuildReport built;
    Status buildStatus;
    std::thread builder;
    CancelFlag stopBuild;
    std::string scratch = options.buildScratchDir;
    const bool pooled = options.buildJobs > 0 && plan.jobs(ExecutorKind::Bridge) > 0 && executors.bridgeCommand();
    if (pooled) {
        std::vector<const RerunJob*> jobs;
        for (const auto& i : plan.items)
            if (i.job) jobs.push_back(&*i.job);
        if (scratch.empty()) scratch = (fs::temp_directory_path() / ("kwb-build-" + std::to_string(::getpid()))).string();
        std::error_code ec;
        fs::create_directories(scratch, ec);
        if (ec) return Status(ErrorCode::IoError, "cannot create the build scratch folder: " + ec.message(), SourcePosition{scratch});
        board.expect(sampleKeysToBuild(jobs));
        const TorchBridgeCommand command = *executors.bridgeCommand();
        auto build = [&, jobs, command] {
            TaskContext buildCtx;
            buildCtx.cancel = &stopBuild;
            buildCtx.progress = events.buildProgress;
            auto r = prebuildSamples(jobs, command, options.buildJobs, scratch, buildCtx,
                [&](const std::string& key, const SampleBuild& b) { board.publish(key, b); });
            if (r) built = std::move(r).value();
            else buildStatus = r.status();
            board.close();
        };
        builder = std::thread(build);
    }
    // Ends the pool (if still building) and reports it, once.
    bool buildReported = false;
    const auto endBuild = [&] {
        if (builder.joinable()) {
            stopBuild.cancel();
            builder.join();
        }
        if (pooled && !buildReported) {
            buildReported = true;
            if (buildStatus.isOk() && events.onBuilt) events.onBuilt(built);
            std::error_code ec;
            if (options.buildScratchDir.empty()) fs::remove_all(scratch, ec);
        }
    };
    struct EndBuildGuard {
        const std::function<void()> end;
        ~EndBuildGuard() { end(); }
    } endBuildGuard{endBuild};

    std::FILE* sink = std::fopen(options.out.c_str(), "ab");
    if (!sink) return Status(ErrorCode::IoError, "cannot open for appending", SourcePosition{options.out});
    VerifyReport report;
    const std::size_t count = plan.items.size();
    bool writeFailed = false;
    // Writes one finished record; false when the output cannot be written.
    const auto finish = [&](std::size_t i, const RerunOutcome* outcome, const GpuPlacement* placement) {
        VerifyItem& item = plan.items[i];
        EvalRecord record = item.record;
        if (!item.job) {
            record.verification.flags.push_back({std::string(flagcode::kNotRun), "not re-run: " + item.whyNot, "info"});
        } else if (!outcome->result) {
            ++report.errors;
            report.errorDetails.push_back(Status(outcome->error.code(), record.id + ": " + outcome->error.toString()));
            if (events.onRecord) events.onRecord(i, count, item, outcome);
            return true;
        } else {
            applyRerunToRecord(record, *outcome->result);
            completeRecordFromRerun(record, *outcome->result, options.rerun);
            nameFromKernelBenchRerun(record, *outcome->result);
            if (placement) recordPlacement(record, *placement);
            for (const auto& f : outcome->result->flags) ++report.flagCounts[f.code];
        }
        const std::string line = recordToJsonLine(record);
        if (std::fwrite(line.data(), 1, line.size(), sink) != line.size() || std::fflush(sink) != 0) {
            writeFailed = true;
            return false;
        }
        ++report.written;
        if (events.onRecord) events.onRecord(i, count, item, outcome);
        return true;
    };
    // A sample the build pool could not build never reaches the GPU; one it
    // is still building is waited for (the bridge would build it a second time).
    const auto failedBuild = [&](const RerunJob& job) -> std::optional<SampleBuild> {
        if (!pooled || job.executor != ExecutorKind::Bridge) return std::nullopt;
        auto b = board.wait(sampleSourceKey(job.request.candidate.source), cancel);
        if (b && !b->ok && !b->cancelled) return b; // an interrupted build is not the sample's compile error
        return std::nullopt;
    };

    if (options.gpus.empty()) {
        for (std::size_t i = 0; i < count && !writeFailed; ++i) {
            if (cancel && cancel->isCancelled()) {
                report.cancelled = true;
                break;
            }
            VerifyItem& item = plan.items[i];
            if (!item.job) {
                finish(i, nullptr, nullptr);
                continue;
            }
            TaskContext ctx;
            ctx.cancel = cancel;
            if (events.progressFor) ctx.progress = events.progressFor(i, count, item.record.id);
            const std::optional<SampleBuild> build = failedBuild(*item.job);
            if (cancel && cancel->isCancelled()) {
                report.cancelled = true;
                break;
            }
            RerunOutcome outcome = build ? compileErrorOutcome(*item.job, build->error, options.thresholds)
                                         : runJob(executors, *item.job, options.thresholds, ctx);
            if (outcome.error.code() == ErrorCode::Cancelled || (cancel && cancel->isCancelled())) {
                report.cancelled = true;
                break;
            }
            finish(i, &outcome, nullptr);
        }
        report.runnerRestarts = executors.restarts(ExecutorKind::Runner);
        report.bridgeRestarts = executors.restarts(ExecutorKind::Bridge);
    } else {
        // One runner (and bridge) per GPU; records go to whichever is free.
        auto started = startRunnerPool(executors, options.gpus, options.thresholds,
            plan.jobs(ExecutorKind::Runner) > 0, plan.jobs(ExecutorKind::Bridge) > 0);
        if (!started) {
            std::fclose(sink);
            return started.status();
        }
        RunnerPool& pool = **started;
        if (events.onGpu)
            for (std::size_t g = 0; g < pool.size(); ++g) events.onGpu(g, pool.placement(g));
        std::vector<PoolJob> poolJobs;
        std::vector<std::size_t> itemOf;
        for (std::size_t i = 0; i < count && !writeFailed; ++i) {
            const VerifyItem& item = plan.items[i];
            if (!item.job) {
                finish(i, nullptr, nullptr);
                continue;
            }
            PoolJob pj{item.record.id, &item.job->request, &item.job->request.candidate,
                item.job->executor == ExecutorKind::Bridge, {}};
            // On the GPU's thread: wait for this record's sample; one that does not build never runs.
            pj.before = [&failedBuild, &options, job = &*item.job](const CancelFlag* c) -> std::optional<RerunOutcome> {
                const std::optional<SampleBuild> build = failedBuild(*job);
                if (c && c->isCancelled()) {
                    RerunOutcome o;
                    o.error = Status(ErrorCode::Cancelled, "interrupted while the sample was building");
                    return o;
                }
                if (build) return compileErrorOutcome(*job, build->error, options.thresholds);
                return std::nullopt;
            };
            poolJobs.push_back(std::move(pj));
            itemOf.push_back(i);
        }
        if (!writeFailed)
            pool.run(poolJobs, cancel,
                [&](std::size_t job, std::size_t slot) {
                    return events.progressFor ? events.progressFor(itemOf[job], count,
                                                    poolJobs[job].name + " (GPU " + std::to_string(slot) + ")")
                                              : ProgressFn{};
                },
                [&](PoolResult&& r) {
                    if (r.outcome.error.code() == ErrorCode::Cancelled) {
                        report.cancelled = true;
                        return false;
                    }
                    return finish(itemOf[r.job], &r.outcome, r.ran ? &pool.placement(r.slot) : nullptr);
                });
        if (cancel && cancel->isCancelled()) report.cancelled = true;
        report.gpus = pool.size();
        report.runnerRestarts = pool.runnerRestarts();
        report.bridgeRestarts = pool.bridgeRestarts();
    }
    std::fclose(sink);
    // Samples still building are not needed any more (the loop ended early), or all are built.
    endBuild();
    if (writeFailed) return Status(ErrorCode::IoError, "cannot write", SourcePosition{options.out});
    if (!buildStatus.isOk()) return buildStatus;
    if (!report.cancelled) {
        // Finished: input order, the same file however many GPUs or shards wrote it.
        auto sorted = sortRecordFile(options.out, plan.order);
        if (!sorted) return sorted.status();
    }
    return report;
}

} // namespace kwb::workbench
