#include "gpu/isolation/isolation_report.h"

#include <cstdio>

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

void applyIsolationMembers(RerunResult& result, const IsolationReport& report)
{
    // MERGE: decode isolationMembers(report) into result's contract members
    // (checks_run appended to, not replaced).
    std::fprintf(stderr, "kwb-runner: isolation: %s %s\n", result.id.c_str(), isolationMembers(report).dump().c_str());
}

} // namespace kwb::gpu
