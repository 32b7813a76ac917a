#include "workbench/run_summary.h"

#include <algorithm>
#include <cstdio>

#include "base/text_table.h"

namespace kwb::workbench {

RunSummary summarizeOutcome(const RerunOutcome& o, const std::string& recordId)
{
    RunSummary s;
    s.recordId = recordId;
    s.problemId = o.problemId;
    s.candidateId = o.candidateId;
    s.expectation = o.expectation;
    if (!o.result) {
        s.status = "error";
        s.message = o.error.toString();
        return s;
    }
    const RerunResult& r = *o.result;
    s.completed = true;
    s.status = rerunStatusName(r.status);
    s.message = r.message;
    for (const auto& out : r.outputs) {
        s.trials += out.trials;
        s.trialsPassed += out.trialsPassed;
    }
    if (!r.outputs.empty()) s.correct = r.allOutputsPassed();
    for (const auto& c : r.coverage) {
        if (!c.coverage.writtenFraction) continue;
        ++s.coveredOutputs;
        if (!s.coverage || *c.coverage.writtenFraction < *s.coverage->coverage.writtenFraction) s.coverage = c;
    }
    if (r.candidateTiming && r.candidateTiming->trials > 0) s.candidateMs = r.candidateTiming->medianMs;
    if (r.referenceTiming && r.referenceTiming->trials > 0) s.referenceMs = r.referenceTiming->medianMs;
    s.speedup = r.speedup;
    s.flags = r.flags;
    s.checksRun = r.checksRun;
    s.device = r.device.name;
    s.runnerRestarted = r.runnerRestarted;
    return s;
}

nlohmann::json runSummaryToJson(const RunSummary& s)
{
    nlohmann::json j;
    if (!s.recordId.empty()) j["record_id"] = s.recordId;
    j["problem_id"] = s.problemId;
    j["candidate_id"] = s.candidateId;
    j["completed"] = s.completed;
    j["status"] = s.status;
    if (!s.message.empty()) j["message"] = s.message;
    if (s.trials > 0) j["trials"] = {{"passed", s.trialsPassed}, {"total", s.trials}};
    j["correct"] = s.correct ? nlohmann::json(*s.correct) : nlohmann::json();
    if (s.coverage) {
        const Coverage& c = s.coverage->coverage;
        nlohmann::json cov{{"output", s.coverage->output}, {"outputs_scanned", s.coveredOutputs}};
        if (c.writtenFraction) cov["written_fraction"] = *c.writtenFraction;
        if (c.writtenElements) cov["written_elements"] = *c.writtenElements;
        if (c.totalElements) cov["total_elements"] = *c.totalElements;
        if (!c.firstUnwritten.empty()) cov["first_unwritten"] = c.firstUnwritten;
        if (c.grid.rows > 0) cov["grid"] = {{"rows", c.grid.rows}, {"cols", c.grid.cols}, {"written_fraction", c.grid.writtenFraction}};
        j["coverage"] = std::move(cov);
    }
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    j["candidate_median_ms"] = opt(s.candidateMs);
    j["reference_median_ms"] = opt(s.referenceMs);
    j["speedup"] = opt(s.speedup);
    j["flags"] = nlohmann::json::array();
    for (const auto& f : s.flags)
        j["flags"].push_back({{"code", f.code}, {"severity", f.severity}, {"check", std::string(checkOfFlag(f.code))},
            {"reason", f.reason}});
    if (!s.checksRun.empty()) j["checks_run"] = s.checksRun;
    if (!s.device.empty()) j["device"] = s.device;
    if (s.runnerRestarted) j["runner_restarted"] = true;
    if (s.expectation.checked) {
        j["expectation"] = {{"met", s.expectation.met}};
        if (!s.expectation.detail.empty()) j["expectation"]["detail"] = s.expectation.detail;
        if (s.expectation.honest) j["expectation"]["honest"] = true;
        if (!s.expectation.expectedFlags.empty()) j["expectation"]["expected_flags"] = s.expectation.expectedFlags;
    }
    return j;
}

namespace {

std::string percent(double v)
{
    char buf[32];
    if (v >= 0.9995 && v < 1.0) std::snprintf(buf, sizeof buf, "%.3f%%", 100.0 * v);
    else std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * v);
    return buf;
}

std::string ms(const std::optional<double>& v)
{
    return v ? fixed(*v, 4) : "-";
}

// The checks beyond the basic ones (coverage, correctness, determinism, input
// hashes, timing), abbreviated for the table's "checks" column.
std::string checksColumn(const std::vector<std::string>& ran)
{
    if (ran.empty()) return "-";
    static const std::vector<std::pair<std::string_view, const char*>> shortNames{{check::kFreshInputs, "fresh"},
        {check::kPostTiming, "post"}, {check::kPersistingL2Reset, "l2p"}, {check::kHostTimer, "host"},
        {check::kOwnKernels, "own"}, {check::kPerCall, "percall"}, {check::kSanitizer, "san"},
        {check::kAdversarial, "adv"}, {check::kIsolation, "iso"}};
    std::string out = "base";
    for (const auto& [name, abbrev] : shortNames)
        if (std::find(ran.begin(), ran.end(), name) != ran.end()) out += std::string("+") + abbrev;
    return out;
}

} // namespace

std::string runSummariesTable(const std::vector<RunSummary>& summaries, bool withExpectations)
{
    using A = TextTable::Align;
    std::vector<std::string> header{"candidate", "status", "correct", "coverage", "median_ms", "ref_ms", "speedup", "flags", "checks"};
    std::vector<A> align{A::Left, A::Left, A::Right, A::Right, A::Right, A::Right, A::Right, A::Left, A::Left};
    if (withExpectations) {
        header.push_back("expected");
        align.push_back(A::Left);
    }
    TextTable table(header, align);
    std::string reasons;
    for (const auto& s : summaries) {
        std::vector<std::string> row{s.candidateId};
        if (!s.completed) {
            row.insert(row.end(), {"error", "-", "-", "-", "-", "-", "-", "-"});
            reasons += "  " + s.candidateId + ": " + s.message + "\n";
        } else {
            row.push_back(s.status);
            row.push_back(s.trials == 0 ? "-" : std::to_string(s.trialsPassed) + "/" + std::to_string(s.trials));
            row.push_back(s.coverage && s.coverage->coverage.writtenFraction ? percent(*s.coverage->coverage.writtenFraction) : "-");
            row.push_back(ms(s.candidateMs));
            row.push_back(ms(s.referenceMs));
            row.push_back(s.speedup ? fixed(*s.speedup, 2) : "-");
            std::string codes;
            for (const auto& f : s.flags) {
                codes += (codes.empty() ? "" : ",") + f.code;
                const std::string_view check = checkOfFlag(f.code);
                reasons += "  " + s.candidateId + ": [" + f.severity + "] " + f.code + ": " + f.reason
                    + (check == "status" ? std::string() : " [check: " + std::string(check) + "]") + "\n";
            }
            row.push_back(codes.empty() ? "-" : codes);
            row.push_back(checksColumn(s.checksRun));
        }
        if (withExpectations) {
            row.push_back(!s.expectation.checked ? "-" : s.expectation.met ? "met" : "NOT MET");
            if (s.expectation.checked && !s.expectation.met)
                reasons += "  " + s.candidateId + ": expectation not met: " + s.expectation.detail + "\n";
        }
        table.addRow(std::move(row));
    }
    std::string out = table.toText();
    if (!reasons.empty()) out += "\n" + reasons;
    return out;
}

nlohmann::json rerunOutcomeJson(const RerunOutcome& o, const std::string& recordId)
{
    nlohmann::json j;
    j["problem_id"] = o.problemId;
    j["candidate_id"] = o.candidateId;
    if (!recordId.empty()) j["record_id"] = recordId;
    j["summary"] = runSummaryToJson(summarizeOutcome(o, recordId));
    if (o.result) j["result"] = rerunResultToJson(*o.result);
    else j["error"] = o.error.toString();
    if (o.expectation.checked) {
        j["expectation"] = {{"met", o.expectation.met}};
        if (!o.expectation.detail.empty()) j["expectation"]["detail"] = o.expectation.detail;
    }
    return j;
}

RerunOutcome runJob(ExecutorSet& executors, const RerunJob& job, const FlagThresholds& thresholds,
    const TaskContext& ctx)
{
    const Availability& a = executors.probe(job.executor);
    Executor* executor = executors.executor(job.executor);
    if (!executor) {
        RerunOutcome o;
        o.problemId = job.request.problem.id;
        o.candidateId = job.request.candidate.id;
        o.error = Status(ErrorCode::Unsupported, std::string(executorKindName(job.executor)) + ": " + a.reason);
        return o;
    }
    return runRerun(*executor, job.request, job.request.candidate, thresholds, ctx);
}

} // namespace kwb::workbench
