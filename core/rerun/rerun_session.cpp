#include "rerun/rerun_session.h"

#include <algorithm>
#include <cstdio>
#include <optional>


namespace kwb {

Result<RerunRequest> makeRerunRequest(const ProblemSpec& problem, const CandidateSpec& candidate,
    const RerunOptions& options, std::string id)
{
    KWB_RETURN_IF_ERROR(validateCandidate(candidate, problem));
    // Errors of the problem's own sizes and tensors name the problem file, so
    // that a caller adding the candidate's file does not take the blame.
    auto resolved = resolveSizes(problem, options.sizes);
    if (!resolved) return resolved.status().withFile(problem.specPath);
    const SizeMap sizes = std::move(resolved).value();
    // Catch size errors (overflow, zero grids) here, where they can be named, not in the runner.
    KWB_RETURN_IF_ERROR(resolveTensors(problem.inputs, sizes).status().withFile(problem.specPath));
    KWB_RETURN_IF_ERROR(resolveTensors(problem.outputs, sizes).status().withFile(problem.specPath));
    KWB_RETURN_IF_ERROR(resolveLaunches(candidate, sizes).status());
    KWB_RETURN_IF_ERROR(resolveSizeArgs(candidate, sizes).status());
    RerunRequest req;
    req.id = std::move(id);
    req.problem = problem;
    req.candidate = candidate;
    req.options = options;
    return req;
}

ExpectationCheck checkExpectations(const CandidateSpec& candidate, const RerunResult& result)
{
    ExpectationCheck c;
    if (!candidate.honest && candidate.expectedFlags.empty()) return c;
    c.checked = true;
    c.honest = candidate.honest;
    c.expectedFlags = candidate.expectedFlags;
    std::vector<std::string> raised;
    for (const auto& f : result.flags) raised.push_back(f.code);
    if (candidate.honest) {
        // Notes (zero acceptance, a determinism note, library_dominated) are no exploit findings.
        std::string extra;
        for (const auto& f : result.flags)
            if (!isNoteFlag(f)) extra += (extra.empty() ? "" : ", ") + f.code;
        if (result.status != RerunStatus::Ok)
            c.detail = std::string("honest candidate did not run cleanly (") + rerunStatusName(result.status) + ")";
        else if (!extra.empty())
            c.detail = "honest candidate raised " + extra;
        c.met = c.detail.empty();
        return c;
    }
    std::string missing;
    for (const auto& want : candidate.expectedFlags)
        if (!expectationRaised(want, raised)) missing += (missing.empty() ? "" : ", ") + want;
    c.met = missing.empty();
    if (!c.met) c.detail = "expected flag(s) not raised: " + missing;
    return c;
}

namespace {

// --odd-shapes: the problem's sizes made odd (an even N becomes N - 1, and a
// power of two stops being one), where the problem's own checks accept them.
std::optional<SizeMap> oddSizes(const RerunRequest& request)
{
    auto sizes = resolveSizes(request.problem, request.options.sizes);
    if (!sizes) return std::nullopt;
    SizeMap odd = *sizes;
    bool changed = false;
    for (auto& [name, value] : odd)
        if (value > 2 && value % 2 == 0) {
            value -= 1;
            changed = true;
        }
    if (!changed) return std::nullopt;
    if (!resolveSizes(request.problem, odd)) return std::nullopt;
    return odd;
}

// One correctness-only run at odd sizes, folded into the result as the
// adversarial set "odd_shape".
void addOddShape(Executor& executor, const RerunRequest& request, RerunResult& result, const TaskContext& ctx)
{
    AdversarialCheck a;
    a.set = "odd_shape";
    const auto odd = oddSizes(request);
    if (!odd) {
        a.passed = true;
        a.message = "skipped: the problem's sizes have no odd variant it accepts";
        result.adversarial.push_back(a);
        return;
    }
    RerunRequest sub = request;
    sub.id = request.id + "/odd_shape";
    sub.options.sizes = *odd;
    sub.options.oddShapes = false;
    sub.options.adversarial = false;
    sub.options.perCall = false;
    sub.options.sanitize.clear();
    sub.options.trials = 1;
    sub.options.warmup = 0;
    sub.options.timeReference = false;
    sub.options.hostTimer = false;
    std::string what;
    for (const auto& [name, value] : *odd) what += (what.empty() ? "" : ", ") + name + "=" + std::to_string(value);
    auto r = executor.execute(sub, ctx);
    if (!r) {
        a.passed = true;
        a.message = "skipped: " + r.status().toString();
    } else if (r->status != RerunStatus::Ok) {
        a.passed = false;
        a.message = std::string("at ") + what + ": " + rerunStatusName(r->status) + ": " + r->message.substr(0, 200);
    } else {
        a.passed = r->allOutputsPassed() && r->minCoverage() >= 1.0;
        for (const auto& o : r->outputs) {
            a.relL2 = std::max(a.relL2, o.relL2Error);
            a.maxAbsError = std::max(a.maxAbsError, o.maxAbsError);
        }
        if (!a.passed) a.message = "at " + what + ": wrong or partly written output";
    }
    result.adversarial.push_back(a);
    result.markCheck(check::kAdversarial);
}

} // namespace

RerunOutcome runRerun(Executor& executor, const RerunRequest& request, const CandidateSpec& candidate,
    const FlagThresholds& thresholds, const TaskContext& ctx)
{
    RerunOutcome o;
    o.problemId = request.problem.id;
    o.candidateId = request.candidate.id;
    auto r = executor.execute(request, ctx);
    if (!r) {
        o.error = r.status();
        return o;
    }
    RerunResult result = std::move(*r);
    if (request.options.oddShapes && result.status == RerunStatus::Ok) addOddShape(executor, request, result, ctx);
    result.precision = request.problem.precision;
    result.flags = deriveFlags(result, thresholds);
    o.expectation = checkExpectations(candidate, result);
    o.result = std::move(result);
    return o;
}

void applyRerunToRecord(EvalRecord& record, const RerunResult& result)
{
    Verification& v = record.verification;
    const OutputCoverage* worst = nullptr;
    for (const auto& c : result.coverage)
        if (c.coverage.writtenFraction
            && (!worst || *c.coverage.writtenFraction < *worst->coverage.writtenFraction))
            worst = &c;
    if (worst) {
        v.coverage = worst->coverage;
        v.coverage->extra.push_back({"output", nlohmann::json(worst->output).dump()});
    }
    // A second verification replaces the first one's flags, keeps everyone else's.
    static const std::vector<std::string_view> ours{flagcode::kExcessiveSpeedup, flagcode::kFasterThanRoofline,
        flagcode::kLowCoverage, flagcode::kZeroAcceptance, flagcode::kSideStreamWork, flagcode::kPrecisionDowngrade,
        flagcode::kNondeterministic, flagcode::kInputMutation, flagcode::kFault, flagcode::kTimeout,
        flagcode::kOutOfMemory, flagcode::kIncorrect, flagcode::kCompileError, flagcode::kLaunchError, flagcode::kNotRun,
        flagcode::kMemoizedOutput, flagcode::kStateDrift, flagcode::kBatchSkip, flagcode::kNoOwnKernel,
        flagcode::kLibraryDominated, flagcode::kTimerMismatch, flagcode::kHostBoundTiming, flagcode::kSanitizerError, flagcode::kSanitizerNotRun,
        flagcode::kAdversarialFailure,
        flagcode::kTampering};
    v.flags.erase(std::remove_if(v.flags.begin(), v.flags.end(),
                      [&](const Flag& f) { return std::find(ours.begin(), ours.end(), f.code) != ours.end(); }),
        v.flags.end());
    v.flags.insert(v.flags.end(), result.flags.begin(), result.flags.end());
    const std::string json = rerunResultToJson(result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (RawField* stored = v.storedRerun()) stored->json = json;
    else v.extra.push_back({Verification::kStoredRerunKey, json});
}

namespace {

RuntimeStats statsFrom(const TimingStats& t, const RerunResult& r, const RerunOptions& options)
{
    RuntimeStats s;
    s.medianMs = t.medianMs;
    s.meanMs = t.meanMs;
    s.stdMs = t.stdMs;
    s.minMs = t.minMs;
    s.maxMs = t.maxMs;
    s.provenance.gpu = r.device.name;
    s.provenance.timer = "cuda_event";
    s.provenance.trials = t.trials;
    s.provenance.l2Flush = options.l2Flush;
    s.provenance.tolerance = Tolerance{r.tolerance.atol, r.tolerance.rtol};
    s.provenance.precision = r.precision == DType::F16 ? "fp16" : r.precision == DType::BF16 ? "bf16" : "fp32";
    s.provenance.source = "kwb verify";
    return s;
}

} // namespace

void completeRecordFromRerun(EvalRecord& record, const RerunResult& r, const RerunOptions& options)
{
    if (record.outcome == Outcome::Unknown || record.outcome == Outcome::NotRun) {
        switch (r.status) {
        case RerunStatus::Ok: record.outcome = r.allOutputsPassed() ? Outcome::Correct : Outcome::Incorrect; break;
        case RerunStatus::CompileError: record.outcome = Outcome::CompileError; break;
        case RerunStatus::LaunchError:
        case RerunStatus::Fault:
        case RerunStatus::OutOfMemory: record.outcome = Outcome::RuntimeError; break;
        case RerunStatus::Timeout: record.outcome = Outcome::Timeout; break;
        case RerunStatus::NoDevice:
        case RerunStatus::Unsupported:
        case RerunStatus::InternalError: break;
        }
        if (record.outcome != Outcome::Unknown && record.outcome != Outcome::NotRun) {
            record.compiled = record.outcome != Outcome::CompileError;
            if (record.error.empty() && r.status != RerunStatus::Ok) record.error = r.message;
        }
    }
    if (record.candidate.empty() && r.candidateTiming && r.candidateTiming->trials > 0)
        record.candidate = statsFrom(*r.candidateTiming, r, options);
    if (r.referenceTiming && r.referenceTiming->trials > 0 && !record.findBaseline("reference"))
        record.baselines.push_back(Baseline{"reference", statsFrom(*r.referenceTiming, r, options)});
    if (!record.speedup && r.speedup) {
        record.speedup = r.speedup;
        record.speedupBaseline = "reference";
    }
}

} // namespace kwb
