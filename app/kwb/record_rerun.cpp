#include "record_rerun.h"

#include <cstdio>
#include <vector>

#include "commands.h"
#include "rerun_cli.h"
#include "workbench/record_lookup.h"
#include "workbench/run_summary.h"

namespace kwb::cli {

void addRecordOptions(ArgParser& p)
{
    p.repeatedOption("record", "FILE#ID", "re-run record ID of FILE (any record file kwb reads): its candidate spec "
                                          "on kwb-runner, or its KernelBench sample on the PyTorch bridge");
    addBridgeOptions(p);
}

void addBridgeOptions(ArgParser& p)
{
    p.option("kernelbench", "DIR", "KernelBench checkout for the samples' problems "
                                   "(DIR/KernelBench/level{L}/{id}_*.py); default: the record's own problem_source");
    p.option("python", "PATH", "python3 with PyTorch for the bridge (default: $KWB_PYTHON, else python3 on PATH)");
}

bool wantsRecords(const ArgParser& p)
{
    return !p.values("record").empty();
}

int runRecordRerun(const ArgParser& p, const RerunOptions& options, const FlagThresholds& thresholds,
    const std::string& format, const std::vector<GpuPlacement>& gpus)
{
    // Jobs first: a missing record or problem is the user's to fix before anything starts.
    std::vector<workbench::RerunJob> jobs;
    bool errors = false;
    workbench::SpecIndex index;
    // Specs of records that name theirs by id or file name only: --problems and
    // --candidates, else the dataset's.
    auto problemDirs = p.values("problems");
    if (problemDirs.empty()) problemDirs = defaultProblemDirs();
    auto candidateDirs = p.values("candidates");
    if (candidateDirs.empty()) candidateDirs = {std::string(KWB_DATASET_DIR) + "/candidates"};
    for (const auto& dir : problemDirs) index.addDirectory(dir);
    for (const auto& dir : candidateDirs) index.addDirectory(dir);
    for (const auto& ref : p.values("record")) {
        auto record = workbench::findRecordByReference(ref);
        if (!record) {
            std::fprintf(stderr, "kwb rerun: %s\n", record.status().toString().c_str());
            errors = true;
            continue;
        }
        workbench::JobContext context;
        context.recordFile = workbench::splitRecordReference(ref)->first;
        context.kernelbenchDir = p.value("kernelbench").value_or(std::string());
        auto job = workbench::resolveRerunJob(*record, index, context, options);
        if (!job) {
            std::fprintf(stderr, "kwb rerun: %s\n", job.status().toString().c_str());
            errors = true;
            continue;
        }
        jobs.push_back(std::move(*job));
    }
    if (errors) return kExitErrors;

    int exitCode = kExitOk;
    workbench::ExecutorSet executors(executorConfig(p));
    Capabilities caps;
    for (auto kind : {workbench::ExecutorKind::Runner, workbench::ExecutorKind::Bridge}) {
        bool needed = false;
        for (const auto& j : jobs) needed = needed || j.executor == kind;
        if (!needed) continue;
        if (!requireExecutor(executors, kind, "rerun", exitCode)) return exitCode;
        caps = executors.probe(kind).capabilities;
    }
    auto batch = runBatch(executors, jobs, thresholds, "rerun", p.isSet("quiet"), gpus);
    if (!batch) return gpus.empty() ? 130 : kExitErrors;
    const std::vector<RerunOutcome>& outcomes = batch->outcomes;
    for (const auto& o : outcomes) errors = errors || !o.result;
    const int restarts = executors.restarts(workbench::ExecutorKind::Runner) +
                         executors.restarts(workbench::ExecutorKind::Bridge) + batch->poolRestarts;
    if (format == "json") {
        nlohmann::json j;
        j["device"] = deviceInfoToJson(caps.device);
        j["runner_version"] = caps.runnerVersion;
        j["runner_restarts"] = restarts;
        j["outcomes"] = nlohmann::json::array();
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            nlohmann::json o = workbench::rerunOutcomeJson(outcomes[i], jobs[i].recordId);
            if (jobs[i].request.kernelbench) o["kernelbench_problem"] = jobs[i].request.kernelbench->problemFile;
            if (i < batch->placements.size()) o["placement"] = placementJson(batch->placements[i]);
            j["outcomes"].push_back(std::move(o));
        }
        std::fputs((j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    } else {
        std::printf("records on %s (%s)\n\n", caps.device.name.c_str(), caps.runnerVersion.c_str());
        std::vector<workbench::RunSummary> summaries;
        for (std::size_t i = 0; i < outcomes.size(); ++i)
            summaries.push_back(workbench::summarizeOutcome(outcomes[i], jobs[i].recordId));
        std::fputs(workbench::runSummariesTable(summaries, false).c_str(), stdout);
        if (!batch->placements.empty()) std::printf("\n%s", placementsLine(batch->placements).c_str());
        if (restarts > 0) std::printf("\nthe executors were restarted %d time(s)\n", restarts);
    }
    return errors ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
