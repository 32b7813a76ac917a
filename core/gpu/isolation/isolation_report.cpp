#include "gpu/isolation/isolation_report.h"

#include <cstdio>
#include <string_view>
#include <type_traits>

namespace kwb::gpu {

nlohmann::json IsolationReport::isolationJson() const
{
    nlohmann::json j;
    j["reference_process"] = separate ? "separate" : "same";
    j["sandbox"] = sandbox;
    if (!whyNot.empty()) j["why_not"] = whyNot;
    j["violations"] = violations;
    return j;
}

nlohmann::json IsolationReport::hostTimingJson() const
{
    if (!hostCandidateMs) return nullptr;
    nlohmann::json j;
    j["candidate_ms"] = *hostCandidateMs;
    if (hostReferenceMs) j["reference_ms"] = *hostReferenceMs;
    j["trials"] = hostTrials;
    j["measured_by"] = "judge";
    return j;
}

nlohmann::json isolationMembers(const IsolationReport& report)
{
    nlohmann::json j;
    j["isolation"] = report.isolationJson();
    if (auto h = report.hostTimingJson(); !h.is_null()) j["host_timing"] = h;
    if (report.separate) j["checks_run"] = nlohmann::json::array({"isolation"});
    return j;
}

namespace {

// Fills the contract's C++ members (core/rerun) where the
// result has them; the names are looked up in a template so this compiles
// with and without them. Without them the members only go to the log.
template <typename R>
bool fillMembers(R& r, const IsolationReport& rep)
{
    if constexpr (requires { r.isolation; r.hostTiming; r.markCheck(std::string_view()); }) {
        using Info = typename std::remove_cvref_t<decltype(r.isolation)>::value_type;
        Info info;
        info.referenceProcess = rep.separate ? "separate" : "same";
        info.sandbox = rep.sandbox;
        info.whyNot = rep.whyNot;
        info.violations = rep.violations;
        r.isolation = info;
        if (rep.hostCandidateMs) {
            using Host = typename std::remove_cvref_t<decltype(r.hostTiming)>::value_type;
            Host h;
            h.candidateMs = rep.hostCandidateMs;
            h.referenceMs = rep.hostReferenceMs;
            h.trials = rep.hostTrials;
            h.measuredBy = "judge";
            r.hostTiming = h;
            r.markCheck("host_timer");
        }
        if (rep.separate) r.markCheck("isolation");
        return true;
    } else {
        return false;
    }
}

} // namespace

void applyIsolationMembers(RerunResult& result, const IsolationReport& report)
{
    fillMembers(result, report);
    std::fprintf(stderr, "kwb-runner: isolation: %s %s\n", result.id.c_str(), isolationMembers(report).dump().c_str());
}

} // namespace kwb::gpu
