#include "workbench/verify_batch.h"

#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include "base/mapped_file.h"
#include "records/native_reader.h"
#include "records/native_writer.h"
#include "records/record_loader.h"
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
    for (const auto& file : options.recordFiles) {
        RecordSet set = loadRecordFiles({file});
        for (const auto& f : set.files) {
            if (!f.ok()) plan.fileErrors.push_back(f.fatal);
            plan.issues.insert(plan.issues.end(), f.issues.begin(), f.issues.end());
        }
        for (auto& r : set.records) {
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
    // The build pool: every sample's compiler runs before the GPU work starts.
    std::map<std::string, SampleBuild> builds;
    if (options.buildJobs > 0 && plan.jobs(ExecutorKind::Bridge) > 0 && executors.bridgeCommand()) {
        std::vector<const RerunJob*> jobs;
        for (const auto& i : plan.items)
            if (i.job) jobs.push_back(&*i.job);
        std::string scratch = options.buildScratchDir;
        if (scratch.empty()) scratch = (fs::temp_directory_path() / ("kwb-build-" + std::to_string(::getpid()))).string();
        TaskContext buildCtx;
        buildCtx.cancel = cancel;
        buildCtx.progress = events.buildProgress;
        KWB_ASSIGN_OR_RETURN(BuildReport built, prebuildSamples(jobs, *executors.bridgeCommand(), options.buildJobs, scratch, buildCtx));
        if (events.onBuilt) events.onBuilt(built);
        builds = std::move(built.bySource);
        std::error_code ec;
        if (options.buildScratchDir.empty()) fs::remove_all(scratch, ec);
    }

    std::FILE* sink = std::fopen(options.out.c_str(), "ab");
    if (!sink) return Status(ErrorCode::IoError, "cannot open for appending", SourcePosition{options.out});
    VerifyReport report;
    const std::size_t count = plan.items.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (cancel && cancel->isCancelled()) {
            report.cancelled = true;
            break;
        }
        VerifyItem& item = plan.items[i];
        EvalRecord record = item.record;
        std::optional<RerunOutcome> outcome;
        if (!item.job) {
            record.verification.flags.push_back({std::string(flagcode::kNotRun), "not re-run: " + item.whyNot, "info"});
        } else {
            TaskContext ctx;
            ctx.cancel = cancel;
            if (events.progressFor) ctx.progress = events.progressFor(i, count, record.id);
            const SampleBuild* build = nullptr;
            if (item.job->executor == ExecutorKind::Bridge) {
                auto b = builds.find(sampleSourceKey(item.job->request.candidate.source));
                if (b != builds.end() && !b->second.ok) build = &b->second;
            }
            outcome = build ? compileErrorOutcome(*item.job, build->error, options.thresholds)
                            : runJob(executors, *item.job, options.thresholds, ctx);
            if (outcome->error.code() == ErrorCode::Cancelled || (cancel && cancel->isCancelled())) {
                report.cancelled = true;
                break;
            }
            if (!outcome->result) {
                ++report.errors;
                report.errorDetails.push_back(Status(outcome->error.code(), record.id + ": " + outcome->error.toString()));
                if (events.onRecord) events.onRecord(i, count, item, &*outcome);
                continue;
            }
            applyRerunToRecord(record, *outcome->result);
            completeRecordFromRerun(record, *outcome->result, options.rerun);
            for (const auto& f : outcome->result->flags) ++report.flagCounts[f.code];
        }
        const std::string line = recordToJsonLine(record);
        if (std::fwrite(line.data(), 1, line.size(), sink) != line.size() || std::fflush(sink) != 0) {
            std::fclose(sink);
            return Status(ErrorCode::IoError, "cannot write", SourcePosition{options.out});
        }
        ++report.written;
        if (events.onRecord) events.onRecord(i, count, item, outcome ? &*outcome : nullptr);
    }
    std::fclose(sink);
    return report;
}

} // namespace kwb::workbench
