// kwb rerun: re-run candidates of a problem on the local GPU, in an isolated
// kwb-runner process, and print what a reviewer of a suspicious speedup asks.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "arg_parser.h"
#include "commands.h"
#include "record_rerun.h"
#include "workbench/run_summary.h"
#include "rerun/rerun_session.h"
#include "rerun_cli.h"

namespace kwb::cli {

int runRerun(const Args& args)
{
    ArgParser p("rerun", "kwb rerun PROBLEM [CANDIDATE...] [--format table|json] [options]",
        "Re-runs candidate kernels of a problem on the local NVIDIA GPU, each in an isolated\n"
        "kwb-runner process, and reports per candidate: correctness on fresh inputs\n"
        "(KernelBench's allclose plus scale-invariant errors), coverage of the outputs\n"
        "(sentinel fills), whether all zeros would pass, timing against the reference\n"
        "(CUDA events, L2 flush, CUPTI on every stream), and flags with reasons. A\n"
        "candidate that faults, hangs or runs out of memory becomes a result with that\n"
        "reason; the next one gets a fresh runner.");
    p.positional("PROBLEM", "problem spec file, or a problem id looked up in --problems folders (not with --record)");
    p.positional("CANDIDATE...", "candidate spec files or ids; none: every candidate of the problem found "
                                 "in the --candidates folders");
    p.option("format", "table|json", "output format", "table");
    p.repeatedOption("problems", "DIR", "where to look up a problem id (default: the dataset's problems/)");
    p.repeatedOption("candidates", "DIR", "where to find candidates (default: the candidates/ folder beside the "
                                          "problem spec's folder, and the dataset's candidates/)");
    p.flag("check-expectations", "exit 1 unless every exploit fixture raises its expected flags and no honest "
                                 "candidate raises any (zero_acceptance aside)");
    addRerunOptions(p);
    addGpusOption(p);
    addRecordOptions(p);
    p.epilog("Exit status: 0 when every candidate was re-run (flags do not change it), 1 on\n"
             "errors, on a machine without a usable GPU, or with --check-expectations when\n"
             "an expectation is not met; 3 when this build has no GPU support.");
    if (!p.parse(args)) return finishParse(p);
    const std::string format = *p.value("format");
    if (format != "table" && format != "json") {
        std::fprintf(stderr, "kwb rerun: unknown format '%s' (table or json)\n", format.c_str());
        return kExitUsage;
    }
    RerunOptions options;
    FlagThresholds thresholds;
    if (!readRerunOptions(p, "rerun", options, thresholds)) return kExitUsage;
    std::vector<GpuPlacement> gpus;
    if (!readGpusOption(p, "rerun", gpus)) return kExitErrors;
    // Records (--record FILE#ID): the runner or the PyTorch bridge, as each record needs.
    if (wantsRecords(p)) {
        if (auto code = gpuBuildCheck("rerun")) return *code;
        return runRecordRerun(p, options, thresholds, format, gpus);
    }
    if (p.positionals().empty()) {
        std::fprintf(stderr, "kwb rerun: no problem given\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    if (auto code = gpuBuildCheck("rerun")) return *code;

    // Specs first: errors in them are the user's to fix before any GPU work.
    auto problemDirs = p.values("problems");
    if (problemDirs.empty()) problemDirs = defaultProblemDirs();
    auto problem = findProblem(p.positionals().front(), problemDirs);
    if (!problem) {
        std::fprintf(stderr, "kwb rerun: %s\n", problem.status().toString().c_str());
        return kExitErrors;
    }
    auto candidateDirs = p.values("candidates");
    if (candidateDirs.empty()) candidateDirs = defaultCandidateDirs(*problem);
    std::vector<CandidateSpec> candidates;
    bool specErrors = false;
    const std::vector<std::string> wanted(p.positionals().begin() + 1, p.positionals().end());
    CandidateScan scan;
    const bool needScan = wanted.empty()
        || std::any_of(wanted.begin(), wanted.end(), [](const std::string& w) { return !std::filesystem::exists(w); });
    if (needScan)
        for (const auto& dir : candidateDirs) {
            auto s = findCandidates(dir, wanted.empty() ? std::string_view(problem->id) : std::string_view());
            scan.candidates.insert(scan.candidates.end(), s.candidates.begin(), s.candidates.end());
            scan.errors.insert(scan.errors.end(), s.errors.begin(), s.errors.end());
        }
    if (wanted.empty()) {
        for (const auto& e : scan.errors) std::fprintf(stderr, "kwb rerun: warning: %s\n", e.toString().c_str());
        candidates = scan.candidates;
        if (candidates.empty()) {
            std::string dirs;
            for (const auto& d : candidateDirs) dirs += (dirs.empty() ? "" : ", ") + d;
            std::fprintf(stderr, "kwb rerun: no candidates of problem '%s' (looked in: %s)\n", problem->id.c_str(),
                dirs.empty() ? "nothing" : dirs.c_str());
            return kExitErrors;
        }
    }
    for (const auto& w : wanted) {
        if (std::filesystem::exists(w)) {
            auto c = loadCandidateSpec(w);
            if (!c) {
                std::fprintf(stderr, "kwb rerun: %s\n", c.status().toString().c_str());
                specErrors = true;
                continue;
            }
            candidates.push_back(std::move(*c));
            continue;
        }
        auto it = std::find_if(scan.candidates.begin(), scan.candidates.end(),
            [&](const CandidateSpec& c) { return c.id == w && (c.problem == problem->id || c.problem.empty()); });
        if (it == scan.candidates.end()) {
            std::fprintf(stderr, "kwb rerun: no candidate file or id '%s' for problem '%s'\n", w.c_str(), problem->id.c_str());
            specErrors = true;
            continue;
        }
        candidates.push_back(*it);
    }
    if (specErrors) return kExitErrors;
    std::vector<workbench::RerunJob> jobs;
    for (const auto& c : candidates) {
        auto req = makeRerunRequest(*problem, c, options, c.id);
        if (!req) {
            std::fprintf(stderr, "kwb rerun: %s: %s\n", c.specPath.empty() ? c.id.c_str() : c.specPath.c_str(),
                req.status().toString().c_str());
            specErrors = true;
            continue;
        }
        workbench::RerunJob job;
        job.recordId = c.id;
        job.executor = workbench::executorKindFor(*req);
        job.request = std::move(*req);
        jobs.push_back(std::move(job));
    }
    if (specErrors) return kExitErrors;

    int exitCode = kExitOk;
    workbench::ExecutorSet executors(executorConfig(p));
    if (!requireExecutor(executors, workbench::ExecutorKind::Runner, "rerun", exitCode)) return exitCode;
    const workbench::Availability& runner = executors.probe(workbench::ExecutorKind::Runner);
    const Capabilities& caps = runner.capabilities;
    auto batch = runBatch(executors, jobs, thresholds, "rerun", p.isSet("quiet"), gpus);
    if (!batch) return gpus.empty() ? 130 : kExitErrors;
    const std::vector<RerunOutcome>& outcomes = batch->outcomes;
    const int restarts = executors.restarts(workbench::ExecutorKind::Runner) + batch->poolRestarts;

    bool errors = false;
    bool unmet = false;
    for (const auto& o : outcomes) {
        errors = errors || !o.result;
        unmet = unmet || (o.expectation.checked && !o.expectation.met);
    }
    const bool check = p.isSet("check-expectations");
    if (format == "json") {
        nlohmann::json j;
        j["problem_id"] = problem->id;
        if (!problem->specPath.empty()) j["problem_spec"] = problem->specPath;
        j["device"] = deviceInfoToJson(caps.device);
        j["runner"] = runner.command;
        j["runner_restarts"] = restarts;
        j["outcomes"] = nlohmann::json::array();
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            nlohmann::json o = workbench::rerunOutcomeJson(outcomes[i]);
            if (i < batch->placements.size()) o["placement"] = placementJson(batch->placements[i]);
            j["outcomes"].push_back(std::move(o));
        }
        if (check) j["expectations_met"] = !unmet;
        std::fputs((j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    } else {
        std::printf("problem %s on %s\n\n", problem->id.c_str(), caps.device.name.c_str());
        std::vector<workbench::RunSummary> summaries;
        for (const auto& o : outcomes) summaries.push_back(workbench::summarizeOutcome(o));
        std::fputs(workbench::runSummariesTable(summaries, check).c_str(), stdout);
        if (!batch->placements.empty()) std::printf("\n%s", placementsLine(batch->placements).c_str());
        if (restarts > 0) std::printf("\nkwb-runner was restarted %d time(s)\n", restarts);
        if (check) std::printf("\nexpectations: %s\n", unmet ? "NOT MET" : "all met");
    }
    if (errors) return kExitErrors;
    if (check && unmet) return kExitErrors;
    return kExitOk;
}

} // namespace kwb::cli
