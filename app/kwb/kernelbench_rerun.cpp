#include "kernelbench_rerun.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "commands.h"
#include "records/record_loader.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/rerun_session.h"
#include "rerun_cli.h"

namespace kwb::cli {

namespace fs = std::filesystem;

void addKernelBenchOptions(ArgParser& p)
{
    p.repeatedOption("record", "FILE#ID", "re-run the KernelBench sample (ModelNew source) of record ID in FILE "
                                          "through the PyTorch bridge; FILE is any record file kwb reads");
    p.option("kernelbench", "DIR", "KernelBench checkout for the samples' problems "
                                   "(DIR/KernelBench/level{L}/{id}_*.py); default: the record's own problem_source");
    p.option("python", "PATH", "python3 with PyTorch for the bridge (default: $KWB_PYTHON, else python3 on PATH)");
}

bool wantsKernelBenchSamples(const ArgParser& p)
{
    return !p.values("record").empty();
}

Result<std::pair<std::string, std::string>> splitRecordReference(std::string_view reference)
{
    const auto hash = reference.rfind('#');
    if (hash == std::string_view::npos || hash == 0 || hash + 1 == reference.size())
        return Status(ErrorCode::InvalidArgument, "record reference '" + std::string(reference) + "' is not FILE#ID");
    return std::make_pair(std::string(reference.substr(0, hash)), std::string(reference.substr(hash + 1)));
}

Result<EvalRecord> findRecordByReference(std::string_view reference)
{
    KWB_ASSIGN_OR_RETURN(auto parts, splitRecordReference(reference));
    const auto& [file, id] = parts;
    std::error_code ec;
    if (!fs::exists(file, ec)) return Status(ErrorCode::NotFound, "record file not found", SourcePosition{file});
    RecordSet set = loadRecordFiles({file});
    for (const auto& report : set.files)
        if (!report.fatal.isOk()) return report.fatal;
    const EvalRecord* suffixMatch = nullptr;
    int suffixMatches = 0;
    const std::string suffix = "/" + id;
    for (const auto& r : set.records) {
        if (r.id == id) return r;
        if (r.id.size() > suffix.size() && r.id.compare(r.id.size() - suffix.size(), suffix.size(), suffix) == 0) {
            suffixMatch = &r;
            ++suffixMatches;
        }
    }
    if (suffixMatches == 1) return *suffixMatch;
    if (suffixMatches > 1)
        return Status(ErrorCode::InvalidArgument, "record id '" + id + "' is ambiguous: " + std::to_string(suffixMatches)
            + " records end in '" + suffix + "'", SourcePosition{file});
    return Status(ErrorCode::NotFound, "no record with id '" + id + "' among " + std::to_string(set.records.size())
        + " records", SourcePosition{file});
}

Result<RerunRequest> kernelBenchVerifyRequest(const ArgParser& p, const EvalRecord& record, const RerunOptions& options)
{
    KernelBenchSampleOptions o;
    o.kernelbenchDir = p.value("kernelbench").value_or(std::string());
    o.rerun = options;
    return kernelBenchRequestFromRecord(record, o);
}

std::optional<ProcessClientOptions> bridgeOptions(const ArgParser& p, const char* command, int& exitCode)
{
    // --python wins over $KWB_PYTHON; the lookup reads the environment.
    if (auto py = p.value("python")) ::setenv("KWB_PYTHON", py->c_str(), 1);
    auto bridge = findTorchBridge();
    if (!bridge) {
        std::fprintf(stderr, "kwb %s: %s\n", command, bridge.status().message().c_str());
        exitCode = kExitErrors;
        return std::nullopt;
    }
    ProcessClientOptions o = torchBridgeClientOptions(*bridge);
    o.forwardStderr = p.isSet("verbose-runner");
    return o;
}

int runKernelBenchRerun(const ArgParser& p, const RerunOptions& options, const FlagThresholds& thresholds,
    const std::string& format)
{
    // Requests first: a missing record or problem is the user's to fix before anything starts.
    std::vector<RerunRequest> requests;
    bool errors = false;
    for (const auto& ref : p.values("record")) {
        auto record = findRecordByReference(ref);
        if (!record) {
            std::fprintf(stderr, "kwb rerun: %s\n", record.status().toString().c_str());
            errors = true;
            continue;
        }
        auto req = kernelBenchVerifyRequest(p, *record, options);
        if (!req) {
            std::fprintf(stderr, "kwb rerun: %s\n", req.status().toString().c_str());
            errors = true;
            continue;
        }
        requests.push_back(std::move(*req));
    }
    if (errors) return kExitErrors;

    int exitCode = kExitOk;
    auto bridgeOpts = bridgeOptions(p, "rerun", exitCode);
    if (!bridgeOpts) return exitCode;
    ProcessClient client(*bridgeOpts);
    Capabilities caps;
    if (!checkDevice(client, "rerun", exitCode, caps)) return exitCode;

    std::vector<std::pair<const RerunRequest*, const CandidateSpec*>> items;
    for (const auto& request : requests) items.emplace_back(&request, &request.candidate);
    auto batch = runBatch(client, items, thresholds, "rerun", p.isSet("quiet"));
    if (!batch) return 130;
    const std::vector<RerunOutcome>& outcomes = *batch;
    for (const auto& o : outcomes) errors = errors || !o.result;
    if (format == "json") {
        nlohmann::json j;
        j["device"] = deviceInfoToJson(caps.device);
        j["runner"] = bridgeOpts->runnerPath + " " + bridgeOpts->runnerArgs.back();
        j["runner_version"] = caps.runnerVersion;
        j["runner_restarts"] = client.restarts();
        j["outcomes"] = nlohmann::json::array();
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            nlohmann::json o = rerunOutcomeJson(outcomes[i]);
            if (requests[i].kernelbench) {
                o["record_id"] = requests[i].kernelbench->recordId;
                o["kernelbench_problem"] = requests[i].kernelbench->problemFile;
            }
            j["outcomes"].push_back(std::move(o));
        }
        std::fputs((j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    } else {
        std::printf("KernelBench samples on %s (%s)\n\n", caps.device.name.c_str(), caps.runnerVersion.c_str());
        std::fputs(rerunOutcomesTable(outcomes, false).c_str(), stdout);
        if (client.restarts() > 0) std::printf("\nthe bridge was restarted %d time(s)\n", client.restarts());
    }
    return errors ? kExitErrors : kExitOk;
}

} // namespace kwb::cli
