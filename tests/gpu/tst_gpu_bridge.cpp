// The PyTorch bridge end to end on a GPU machine: every KernelBench-format
// sample of tests/data/kernelbench_bridge runs through kwb_torch_bridge.py,
// spawned and supervised by ProcessClient exactly as kwb does, and must raise
// the flags its manifest expects; honest ones raise none (zero_acceptance
// aside: that one belongs to the problem). Then the
// first sample runs again to show the extension cache, and — when
// KWB_LEADERBOARD and KWB_KERNELBENCH_DIR are set — leaderboard records run
// against the problems of a KernelBench checkout.
//
// Skips (77) without a CUDA device or without python3 + PyTorch.
// Environment: KWB_BRIDGE_TRIALS (timed trials, default 20),
// KWB_BRIDGE_RESULTS (file: one JSON outcome per line), KWB_LEADERBOARD,
// KWB_KERNELBENCH_DIR, KWB_LEADERBOARD_IDS (comma-separated record ids or
// file hashes; default all records whose problem exists), KWB_BRIDGE_SIZES
// ("name=value,..." overrides of the problems' integer globals).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "gpu_test.h"
#include "records/leaderboard_importer.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/process_client.h"
#include "rerun/rerun_session.h"
#include "workbench/run_summary.h"

using namespace kwb;

namespace {

const char* kTest = "tst_gpu_bridge";

std::string env(const char* name, const std::string& fallback = {})
{
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

// Manifest members read by hand: nlohmann's value() trips GCC's null-dereference analysis.
bool boolMember(const nlohmann::json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && *it == true;
}

std::vector<std::string> stringsMember(const nlohmann::json& j, const char* key)
{
    std::vector<std::string> out;
    const auto it = j.find(key);
    if (it != j.end() && it->is_array())
        for (const auto& v : *it)
            if (v.is_string()) out.push_back(v.get_ref<const std::string&>());
    return out;
}

void printOutcome(const RerunOutcome& o)
{
    if (!o.result) {
        std::printf("  %-24s executor error: %s\n", o.candidateId.c_str(), o.error.toString().c_str());
        return;
    }
    const RerunResult& r = *o.result;
    std::string flags;
    for (const auto& f : r.flags) flags += (flags.empty() ? "" : ",") + f.code;
    std::printf("  %-24s %-13s cov %-7.4g pass %-3s cand %-9.4g ref %-9.4g x%-8.3g compile %.0f ms%s  [%s]\n",
        o.candidateId.c_str(), rerunStatusName(r.status), r.minCoverage(), r.allOutputsPassed() ? "yes" : "no",
        r.candidateTiming ? r.candidateTiming->medianMs : 0.0, r.referenceTiming ? r.referenceTiming->medianMs : 0.0,
        r.speedup.value_or(0.0), r.compileMs, r.compileCacheHit ? " (cached)" : "", flags.c_str());
}

} // namespace

int main()
{
    using kwb::gputest::failures;
    kwb::gputest::requireDevice(kTest);

    if (std::getenv("KWB_TORCH_BRIDGE") == nullptr) ::setenv("KWB_TORCH_BRIDGE", KWB_BRIDGE_SCRIPT, 1);
    auto bridge = findTorchBridge();
    if (!bridge) {
        std::printf("FAIL: %s: %s\n", kTest, bridge.status().toString().c_str());
        return 1;
    }
    ProcessClientOptions clientOptions = torchBridgeClientOptions(*bridge);
    clientOptions.forwardStderr = !env("KWB_BRIDGE_VERBOSE").empty();
    ProcessClient client(clientOptions);
    auto caps = client.capabilities();
    if (!caps) {
        std::printf("FAIL: %s: the bridge did not start: %s\n", kTest, caps.status().toString().c_str());
        return 1;
    }
    if (!caps->devicePresent) {
        if (caps->reason.rfind("PyTorch is not installed", 0) == 0 || caps->reason.find("sees no CUDA device") != std::string::npos) {
            std::printf("SKIP: %s: %s\n", kTest, caps->reason.c_str());
            return 77;
        }
        std::printf("FAIL: %s: the bridge cannot run samples: %s\n", kTest, caps->reason.c_str());
        return 1;
    }
    std::printf("bridge: %s %s (%s) on %s, driver %d\n", bridge->python.c_str(), bridge->script.c_str(),
        caps->runnerVersion.c_str(), caps->device.name.c_str(), caps->device.driverVersion);

    RerunOptions options;
    options.trials = std::atoi(env("KWB_BRIDGE_TRIALS", "20").c_str());
    options.warmup = 3;
    options.correctnessTrials = 2;
    options.timeoutS = 300;
    for (const auto& kv : splitList(env("KWB_BRIDGE_SIZES"))) {
        const auto eq = kv.find('=');
        if (eq != std::string::npos) options.sizes[kv.substr(0, eq)] = std::atoll(kv.c_str() + eq + 1);
    }
    std::ofstream results;
    if (const std::string path = env("KWB_BRIDGE_RESULTS"); !path.empty()) results.open(path);
    auto record = [&](const RerunOutcome& o, const std::string& group) {
        printOutcome(o);
        if (results.is_open()) {
            nlohmann::json j = kwb::workbench::rerunOutcomeJson(o);
            j["group"] = group;
            if (o.result) j["result"] = rerunResultToJson(*o.result);
            results << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
            results.flush();
        }
    };

    // 1. The fixtures, with their expectations.
    // KWB_BRIDGE_DATA: the fixtures folder when the tree moved since the build (another machine).
    const std::string dataDir = env("KWB_BRIDGE_DATA", std::string(KWB_TEST_DATA_DIR) + "/kernelbench_bridge");
    auto manifestText = readFileContents(dataDir + "/manifest.json");
    GT_CHECK(manifestText.isOk());
    if (!manifestText) return kwb::gputest::finish(kTest);
    const auto manifest = nlohmann::json::parse(*manifestText);
    std::printf("\nfixtures (%zu samples, %d timed trials):\n", manifest.size(), options.trials);
    std::optional<RerunRequest> first;
    for (const auto& entry : manifest) {
        const std::string samplePath = dataDir + "/" + entry.at("sample").get<std::string>();
        const std::string id = std::filesystem::path(samplePath).stem().string();
        auto problem = findKernelBenchProblem(dataDir, entry.at("level").get<std::int64_t>(), entry.at("problem_id").get<std::int64_t>());
        auto source = readFileContents(samplePath);
        GT_CHECK(problem.isOk() && source.isOk());
        if (!problem || !source) continue;
        RerunOptions o = options;
        o.sizes.clear(); // the fixtures run at their own sizes
        auto req = kernelBenchRequest(*problem, id, *source, o, id);
        GT_CHECK(req.isOk());
        if (!req) continue;
        req->candidate.honest = boolMember(entry, "honest");
        req->candidate.expectedFlags = stringsMember(entry, "expect_flags");
        if (!first) first = *req;
        RerunOutcome out = runRerun(client, *req, req->candidate, FlagThresholds{}, {});
        record(out, "fixture");
        GT_CHECK(out.result.has_value());
        if (!out.result) continue;
        const bool met = out.expectation.checked && out.expectation.met;
        if (!met) std::printf("    expectation NOT met: %s\n", out.expectation.detail.c_str());
        GT_CHECK(met);
    }
    std::printf("bridge restarts after faults: %d\n", client.restarts());

    // 2. The same sample again: its extension comes from the cache.
    if (first) {
        first->id += "-again";
        RerunOutcome again = runRerun(client, *first, first->candidate, FlagThresholds{}, {});
        std::printf("\nsecond run of %s:\n", first->candidate.id.c_str());
        record(again, "cache");
        GT_CHECK(again.result && again.result->compileCacheHit);
    }

    // 3. Leaderboard records against a KernelBench checkout (no expectations: what they do is the finding).
    const std::string leaderboard = env("KWB_LEADERBOARD");
    const std::string checkout = env("KWB_KERNELBENCH_DIR");
    if (!leaderboard.empty() && !checkout.empty()) {
        const RecordSet set = loadLeaderboard(leaderboard);
        const auto wantedList = splitList(env("KWB_LEADERBOARD_IDS"));
        const std::set<std::string> wanted(wantedList.begin(), wantedList.end());
        std::printf("\nleaderboard records from %s, problems from %s:\n", leaderboard.c_str(), checkout.c_str());
        for (const auto& r : set.records) {
            const std::string hash = r.id.substr(r.id.rfind('/') + 1);
            if (!wanted.empty() && !wanted.count(r.id) && !wanted.count(hash)) continue;
            KernelBenchSampleOptions o;
            o.kernelbenchDir = checkout;
            o.rerun = options;
            auto req = kernelBenchRequestFromRecord(r, o);
            if (!req) {
                if (!wanted.empty()) std::printf("  %s: %s\n", r.id.c_str(), req.status().message().c_str());
                continue;
            }
            req->id = hash;
            req->candidate.id = r.model.substr(0, r.model.find('-')) + "_" + hash.substr(0, 8);
            RerunOutcome out = runRerun(client, *req, req->candidate, FlagThresholds{}, {});
            std::printf("  %s L%lld/%lld %s (leaderboard speedup %.3g):\n", r.id.c_str(),
                static_cast<long long>(r.problem.level.value_or(0)), static_cast<long long>(r.problem.id.value_or(0)),
                r.model.c_str(), r.speedup.value_or(0.0));
            record(out, "leaderboard");
            GT_CHECK(out.result.has_value());
        }
    }
    return kwb::gputest::finish(kTest);
}
