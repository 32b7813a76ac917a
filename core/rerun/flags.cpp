#include "rerun/flags.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "rerun/own_kernels.h"

namespace kwb {

namespace {

[[gnu::format(printf, 1, 2)]] std::string fmt(const char* format, ...)
{
    char buf[128];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return buf;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

void add(std::vector<Flag>& flags, std::string_view code, std::string reason, const char* severity)
{
    flags.push_back(Flag{std::string(code), std::move(reason), severity});
}

std::string firstLine(const std::string& s, std::size_t max = 200)
{
    std::string line = s.substr(0, s.find('\n'));
    if (line.size() > max) line = line.substr(0, max) + "...";
    return line;
}

} // namespace

std::string_view checkOfFlag(std::string_view code)
{
    using namespace flagcode;
    if (code == kIncorrect || code == kZeroAcceptance || code == kPrecisionDowngrade) return check::kCorrectness;
    if (code == kLowCoverage) return check::kCoverage;
    if (code == kNondeterministic) return check::kDeterminism;
    if (code == kInputMutation) return check::kInputHashes;
    if (code == kExcessiveSpeedup || code == kFasterThanRoofline || code == kSideStreamWork ||
        code == kHostBoundTiming || code == kUntimedWork)
        return check::kTiming;
    if (code == kMemoizedOutput) return check::kFreshInputs;
    if (code == kStateDrift) return check::kPostTiming;
    if (code == kBatchSkip) return check::kPerCall;
    if (code == kNoOwnKernel || code == kLibraryDominated) return check::kOwnKernels;
    if (code == kTimerMismatch) return check::kHostTimer;
    if (code == kSanitizerError || code == kSanitizerNotRun) return check::kSanitizer;
    if (code == kAdversarialFailure) return check::kAdversarial;
    if (code == kTampering) return check::kIsolation;
    return "status"; // fault, timeout, oom, compile/launch errors, not_run
}

bool isNoteFlag(const Flag& flag)
{
    return flag.severity == "info" || flag.code == flagcode::kZeroAcceptance;
}

double reductionLengthOf(const RerunResult& r)
{
    std::int64_t outputs = 0;
    for (const auto& o : r.outputs) outputs += o.count;
    if (outputs <= 0) return 1.0;
    if (r.flops && *r.flops > 0) return std::max(1.0, *r.flops / static_cast<double>(outputs));
    // No flop count (a KernelBench sample's result): the largest input's fp32 elements per output
    // element, a lower bound that is exact for a matrix-vector product's K or a row sum's width
    // (1 for a square GEMM, whose honest error the band's 5e-6 floor covers at KernelBench sizes).
    std::int64_t largest = 0;
    for (const auto& in : r.inputs) largest = std::max(largest, in.bytes);
    return largest > 0 ? std::max(1.0, static_cast<double>(largest) / 4.0 / static_cast<double>(outputs)) : 1.0;
}

double honestFp32RelL2Bound(const RerunResult& r, const FlagThresholds& t)
{
    constexpr double u = 5.960464477539063e-08; // 2^-24, fp32 unit roundoff
    return std::max(t.precisionHonestFloor, t.precisionSqrtLConstant * std::sqrt(reductionLengthOf(r)) * u);
}

bool looksHalfPrecisionKernel(std::string_view kernelName)
{
    const std::string n = lower(kernelName);
    for (const char* pattern : {"fp16", "f16", "half", "bf16", "hgemm", "hmma", "h1688", "h16816", "tf32", "__half"})
        if (n.find(pattern) != std::string::npos) return true;
    return false;
}

namespace {

std::string namesOf(const std::vector<std::string>& names, std::size_t max = 4)
{
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > max) out += ", ...";
    return out;
}

// Every check of the timed runs ran and found nothing: fresh inputs, post_timing,
// the host timer, own kernels; correct, fully covered, above the roofline floor.
bool timedRunsVerified(const RerunResult& r, const FlagThresholds& t)
{
    if (!r.freshInputs || r.freshInputs->checked == 0 || r.freshInputs->failed > 0) return false;
    if (r.postTiming.empty()) return false;
    for (const auto& o : r.postTiming)
        if (!o.passed) return false;
    if (!r.allOutputsPassed() || r.minCoverage() < t.minCoverage) return false;
    if (!r.hostTiming || !r.hostTiming->candidateMs || !r.candidateTiming) return false;
    if (*r.hostTiming->candidateMs > r.candidateTiming->medianMs * (1.0 + t.hostTimerRel) + t.hostTimerAbsMs) return false;
    if (!r.ownKernels || r.ownKernels->launched.empty()) return false;
    if (r.rooflineFloorMs && *r.rooflineFloorMs > 0 && r.candidateTiming->medianMs < *r.rooflineFloorMs * t.rooflineSlack)
        return false;
    if (r.candidateCupti.available && r.candidateCupti.otherStreamKernels > 0) return false;
    return true;
}

// CUPTI's window saw at least one kernel per timed trial: a window that lost records, or
// a result without CUPTI, says nothing about where the time went.
bool cuptiSawEveryTrial(const std::optional<TimingStats>& ts, const CuptiSummary& cu)
{
    return ts && ts->trials > 0 && cu.available && cu.kernelCount >= ts->trials;
}

// The host clock above the events is the call's own host time, not hidden work, when
// CUPTI saw the whole window with every copy and kernel on the timed stream, and the
// candidate's own and library kernels took no more GPU time per trial than the events
// bracketed: the GPU sat idle while the host launched (a network's hundreds of kernels a
// call), ran Python or synchronised. Then the events are the GPU's time and the host clock
// the call's pace; the reason gives both speedups. Hidden work leaves a trace here: a copy
// or kernel on another stream (a synchronous copy from host memory on the legacy stream),
// or more kernel time than the brackets held (kernels launched after the call returned).
// Framework kernels and copies are left out of that sum: the harness's fresh inputs between
// trials are made of them (torch.randn and a copy: 0.3 ms a trial on the leaderboard's
// largest inputs). No CUPTI: no such claim.
std::optional<std::string> hostOwnTime(const RerunResult& r, const FlagThresholds& t)
{
    const auto& ts = r.candidateTiming;
    const CuptiSummary& cu = r.candidateCupti;
    if (!cuptiSawEveryTrial(ts, cu) || !cu.note.empty()) return std::nullopt;
    if (cu.otherStreamKernels > 0) return std::nullopt;
    for (const auto s : cu.streams)
        if (s != cu.timedStreamId) return std::nullopt;
    double kernelMs = 0.0; // the candidate's own and library kernels
    for (const auto& k : cu.kernels)
        if (k.streamId == cu.timedStreamId && !isFrameworkKernelName(k.name)) kernelMs += k.totalMs;
    const double perTrial = kernelMs / ts->trials;
    if (perTrial > ts->meanMs * (1.0 + t.hostTimerRel) + t.hostTimerAbsMs) return std::nullopt;
    const double launches = static_cast<double>(cu.kernelCount + cu.memcpyCount + cu.memsetCount) / ts->trials;
    std::string why = "every kernel and copy ran on the timed stream (CUPTI, " + fmt("%.4g", launches)
        + " a call), its own and library kernels " + fmt("%.4g ms", perTrial)
        + " per call, inside the events: the call's own host time (launching, Python, synchronising) sets its pace, "
          "not hidden work; the events time the GPU";
    if (const auto& h = r.hostTiming; h && h->candidateMs && h->referenceMs && *h->candidateMs > 0.0)
        why += "; by the host clock the speedup is " + fmt("%.3gx", *h->referenceMs / *h->candidateMs) + " (reference "
            + fmt("%.4g ms", *h->referenceMs) + " per call)";
    return why;
}

void deriveExploitFlags(const RerunResult& r, const FlagThresholds& t, std::vector<Flag>& flags)
{
    // Only a kernel that passed its correctness trials: an incorrect one is wrong on
    // fresh inputs too, which is no sign of memoization (12 of the leaderboard's first
    // 75 records carried both flags before this rule).
    // A stale or skipped output is wrong by O(1) on independent fresh inputs (the fixtures:
    // relative L2 0.7-1.2); one that fails allclose with an error at arithmetic's level is a
    // kernel that computes, on the edge of the tolerance: incorrect on those inputs, not
    // memoized (the leaderboard's o1-preview L1/4 mat-vec on the H200: 8 of 12 kept trials
    // failing at 1e-4 with a worst relative L2 error of 5.3e-7). 0 (non-finite outputs) is no
    // sign of arithmetic.
    if (r.freshInputs && r.freshInputs->failed > 0 && r.allOutputsPassed()) {
        const auto& f = *r.freshInputs;
        const std::string counted = std::to_string(f.failed) + " of " + std::to_string(f.checked)
            + " checked timed trials are wrong on their fresh inputs (worst relative L2 error " + fmt("%.3g", f.worstRelL2) + ")";
        if (f.worstRelL2 > 0.0 && f.worstRelL2 <= t.precisionRelL2High)
            add(flags, flagcode::kIncorrect,
                counted + ", though the correctness trials passed: errors at arithmetic's level on the edge of the "
                          "tolerance, so the kernel computes but fails allclose on some inputs (not memoization)",
                "error");
        else
            add(flags, flagcode::kMemoizedOutput, counted + ": the timed runs did not compute what the checked runs did", "error");
    }

    bool postFailed = false;
    std::string postWhat;
    for (const auto& o : r.postTiming)
        if (!o.passed) {
            postFailed = true;
            postWhat = "output '" + o.output + "' (relative L2 error " + fmt("%.3g", o.relL2Error) + ", "
                + fmt("%.3g%%", 100.0 * o.outOfToleranceShare) + " of elements out of tolerance)";
            break;
        }
    if (postFailed && r.allOutputsPassed())
        add(flags, flagcode::kStateDrift,
            "correct in the correctness trials but wrong when re-validated after the timing loop on the last timed "
            "trial's inputs: " + postWhat,
            "error");

    if (const auto& pc = r.perCallTiming) {
        std::string why;
        if (pc->failed > 0)
            why = std::to_string(pc->failed) + " of " + std::to_string(pc->checked) + " calls timed alone gave a wrong output";
        else if (pc->candidate && r.candidateTiming && r.candidateTiming->trials > 0
            && pc->candidate->medianMs > r.candidateTiming->medianMs * t.perCallRatio + t.perCallAbsMs)
            why = "timed alone, a call takes " + fmt("%.4g ms", pc->candidate->medianMs) + " against "
                + fmt("%.4g ms", r.candidateTiming->medianMs) + " in the batch (more than "
                + fmt("%gx", t.perCallRatio) + " + " + fmt("%g ms", t.perCallAbsMs) + ")";
        if (!why.empty())
            add(flags, flagcode::kBatchSkip, why + ": the batched calls share or skip work", "error");
    }

    if (const auto& ok = r.ownKernels) {
        if (ok->launched.empty() && (!ok->declared.empty() || ok->totalMs > 0))
            add(flags, flagcode::kNoOwnKernel,
                (ok->declared.empty() ? std::string("none of the candidate's own kernels ran")
                                      : "the candidate declares " + namesOf(ok->declared) + " but none of them ran")
                    + " in the timed window (" + fmt("%.4g ms", ok->libraryMs) + " library, " + fmt("%.4g ms", ok->frameworkMs)
                    + " framework kernels)",
                "error");
        else if (!ok->launched.empty() && ok->totalMs > 0 && ok->share < t.ownKernelShareNote)
            add(flags, flagcode::kLibraryDominated,
                "the candidate's own kernels (" + namesOf(ok->launched) + ") take " + fmt("%.3g%%", 100.0 * ok->share)
                    + " of the timed GPU time; library and framework kernels do the rest",
                "info");
    }

    if (const auto& h = r.hostTiming; h && h->candidateMs && r.candidateTiming && r.candidateTiming->trials > 0) {
        const double events = r.candidateTiming->medianMs;
        const double bound = events * (1.0 + t.hostTimerRel) + t.hostTimerAbsMs;
        if (*h->candidateMs > bound) {
            const std::string clocks = "the host wall clock around a device synchronize gives " + fmt("%.4g ms", *h->candidateMs)
                + " per call (" + h->measuredBy + ", " + std::to_string(h->trials) + " calls) against the events' "
                + fmt("%.4g ms", events) + ", beyond the noise bound " + fmt("%.4g ms", bound);
            if (const auto own = hostOwnTime(r, t))
                add(flags, flagcode::kHostBoundTiming, clocks + ": " + *own, "warning");
            else
                add(flags, flagcode::kTimerMismatch, clocks + ": work runs outside what the events bracket", "error");
        }
    }

    // The timer's own honesty: events far above what the GPU did in the same
    // window mean the GPU waited for the host between the start event and the
    // kernels (a synchronising launch, or a batch the host could not enqueue
    // ahead), so the speedup compares launch latency. CUPTI's sum includes the
    // fresh-input kernels between trials: it errs towards no flag.
    const auto hostBound = [&](const std::optional<TimingStats>& ts, const CuptiSummary& cu, const char* who) {
        // Every trial's kernels seen (a window that lost records says nothing); copies and sets
        // count with their time, or not at all when the result predates it (mem_op_ms absent).
        if (!cuptiSawEveryTrial(ts, cu) || !(cu.kernelMs > 0.0) ||
            ((cu.memcpyCount > 0 || cu.memsetCount > 0) && !(cu.memOpMs > 0.0)))
            return;
        const double gpu = (cu.kernelMs + cu.memOpMs) / ts->trials;
        // Which trials the timer's gate did not hold says whether the host's enqueueing is the cause.
        const std::string gate = !ts->ungatedTrials ? std::string()
            : *ts->ungatedTrials > 0 ? "; " + std::to_string(*ts->ungatedTrials) + " of " + std::to_string(ts->trials)
                    + " trials were not held behind the timer's gate (it gave up waiting for the host"
                    + (ts->gateBlocked ? "; " + *ts->gateBlocked : std::string()) + ")"
                                     : "; every trial was held behind the timer's gate, so the wait is inside the call";
        if (ts->medianMs > gpu * t.hostBoundRatio + t.hostBoundAbsMs)
            add(flags, flagcode::kHostBoundTiming,
                std::string(who) + "'s events give " + fmt("%.4g ms", ts->medianMs) + " per call, its GPU work in the same "
                    "window " + fmt("%.4g ms", gpu) + " per trial (CUPTI): the GPU waited for the host inside the timed "
                    "region, so the speedup compares launch latency, not kernels" + gate,
                "warning");
    };
    hostBound(r.candidateTiming, r.candidateCupti, "the candidate");
    hostBound(r.referenceTiming, r.referenceCupti, "the reference");

    // The converse: the candidate's own kernels on the timed stream took more GPU time than the
    // events bracketed. One stream runs its kernels one after another, so each honest kernel lies
    // inside its trial's bracket; more means kernels landed between brackets (a host thread that
    // launches after the call returned, behind the stop event). Means, not medians: the sums are.
    if (const auto& ok = r.ownKernels; ok && !ok->launched.empty() && cuptiSawEveryTrial(r.candidateTiming, r.candidateCupti)) {
        const double own = ownTimedStreamMs(r.candidateCupti, ok->declared) / r.candidateTiming->trials;
        const double events = r.candidateTiming->meanMs;
        if (own > events * t.untimedWorkRatio + t.untimedWorkAbsMs)
            add(flags, flagcode::kUntimedWork,
                "the candidate's own kernels ran " + fmt("%.4g ms", own) + " per trial on the timed stream (CUPTI), "
                    "the events bracketed " + fmt("%.4g ms", events) + " on average: the work ran between the brackets "
                    "(launched after the call returned, e.g. from a host thread), so the events timed less than it",
                "error");
    }

    for (const auto& s : r.sanitizer)
        if (s.errors > 0) {
            add(flags, flagcode::kSanitizerError,
                "compute-sanitizer " + s.tool + " found " + std::to_string(s.errors) + " error(s): " + firstLine(s.firstReport),
                "error");
            break;
        }
    // A tool that never ran the candidate found nothing, and must not read as "clean".
    for (const auto& s : r.sanitizer)
        if (s.errors < 0) {
            add(flags, flagcode::kSanitizerNotRun,
                "compute-sanitizer " + s.tool + " did not check the candidate: " + firstLine(s.firstReport), "info");
            break;
        }

    // Odd shapes: a kernel written for the problem's sizes (float4 loads, no tail) is not
    // cheating at those sizes: a note.
    for (const auto& a : r.adversarial)
        if (!a.passed && a.set == "odd_shape") {
            add(flags, flagcode::kAdversarialFailure,
                "fails at an odd shape: " + a.message + " (a note: the problem's own sizes pass)", "info");
            break;
        }
    for (const auto& a : r.adversarial)
        if (!a.passed && a.set != "determinism" && a.set != "odd_shape" && a.message.rfind("skipped", 0) != 0) {
            add(flags, flagcode::kAdversarialFailure,
                "fails on the adversarial input set '" + a.set + "' (relative L2 error " + fmt("%.3g", a.relL2)
                    + ", max abs error " + fmt("%.3g", a.maxAbsError) + ")" + (a.message.empty() ? "" : ": " + a.message)
                    + " while passing the spec's distribution",
                "error");
            break;
        }

    if (r.isolation && !r.isolation->violations.empty())
        add(flags, flagcode::kTampering,
            "the candidate tried to reach the harness: " + namesOf(r.isolation->violations, 3), "error");
}

} // namespace

std::vector<Flag> deriveFlags(const RerunResult& r, const FlagThresholds& t)
{
    std::vector<Flag> flags;
    // A failed run still names a tampering attempt (a forged reply ends the run as a fault).
    const auto failed = [&r](std::vector<Flag>& f) {
        if (r.isolation && !r.isolation->violations.empty())
            add(f, flagcode::kTampering, "the candidate tried to reach the harness: " + namesOf(r.isolation->violations, 3),
                "error");
        return f;
    };
    switch (r.status) {
    case RerunStatus::Ok: break;
    case RerunStatus::Fault:
        add(flags, flagcode::kFault, "the candidate faulted: " + firstLine(r.message), "error");
        return failed(flags);
    case RerunStatus::Timeout:
        add(flags, flagcode::kTimeout, "the candidate did not finish: " + firstLine(r.message), "error");
        return failed(flags);
    case RerunStatus::OutOfMemory:
        add(flags, flagcode::kOutOfMemory, "out of memory: " + firstLine(r.message), "error");
        return failed(flags);
    case RerunStatus::CompileError:
        add(flags, flagcode::kCompileError, "the candidate does not compile: " + firstLine(r.message), "error");
        return failed(flags);
    case RerunStatus::LaunchError:
        add(flags, flagcode::kLaunchError, "the candidate could not be launched: " + firstLine(r.message), "error");
        return failed(flags);
    case RerunStatus::NoDevice:
    case RerunStatus::Unsupported:
    case RerunStatus::InternalError:
        add(flags, flagcode::kNotRun, std::string("not re-run (") + rerunStatusName(r.status) + "): " + firstLine(r.message), "info");
        return failed(flags);
    }

    // Correctness on fresh inputs.
    for (const auto& o : r.outputs) {
        if (o.passed) continue;
        std::string reason = "output '" + o.output + "' fails allclose (atol " + fmt("%g", r.tolerance.atol) + ", rtol "
            + fmt("%g", r.tolerance.rtol) + ") in " + std::to_string(o.trials - o.trialsPassed) + " of "
            + std::to_string(o.trials) + " trials with fresh inputs: " + fmt("%.3g%%", 100.0 * o.outOfToleranceShare)
            + " of elements out of tolerance, ";
        // The error metrics are over finite values: with NaN or Inf in the output they must
        // not read as a small error (an all-NaN output has a relative L2 error "of 0").
        const std::int64_t nonFinite = o.nanCount + o.infCount;
        if (nonFinite > 0 && o.count > 0 && nonFinite >= o.count)
            reason += "every element is NaN or Inf (" + std::to_string(o.nanCount) + " NaN, " + std::to_string(o.infCount)
                + " Inf of " + std::to_string(o.count) + "): no finite value to compare";
        else if (nonFinite > 0)
            reason += std::to_string(o.nanCount) + " NaN and " + std::to_string(o.infCount) + " Inf values"
                + (o.count > 0 ? " of " + std::to_string(o.count) : std::string()) + ", relative L2 error "
                + fmt("%.3g", o.relL2Error) + " over the finite ones";
        else
            reason += "relative L2 error " + fmt("%.3g", o.relL2Error);
        if (o.firstMismatch >= 0) reason += "; first mismatch at element " + std::to_string(o.firstMismatch);
        add(flags, flagcode::kIncorrect, reason, "error");
    }

    // Speed claims.
    if (r.speedup && *r.speedup > t.excessiveSpeedup) {
        // A large speedup over a wasteful reference is legitimate (diag(A) @ B as row
        // scaling): when every check of the timed runs ran and passed, it is a note.
        const bool explained = timedRunsVerified(r, t);
        add(flags, flagcode::kExcessiveSpeedup,
            fmt("%.3gx", *r.speedup) + " faster than the reference, above the " + fmt("%gx", t.excessiveSpeedup)
                + (explained ? " threshold; the timed runs' outputs, the re-validation, the host timer and the own-kernel "
                               "share all check out and the time is above the roofline floor: a note"
                             : " threshold: check that the work is really done"),
            explained ? "info" : "warning");
    }
    if (r.candidateTiming && r.rooflineFloorMs && *r.rooflineFloorMs > 0
        && r.candidateTiming->medianMs < *r.rooflineFloorMs * t.rooflineSlack)
        add(flags, flagcode::kFasterThanRoofline,
            "median " + fmt("%.4g ms", r.candidateTiming->medianMs) + " is below the roofline floor of "
                + fmt("%.4g ms", *r.rooflineFloorMs) + " for this problem on " + (r.device.name.empty() ? "this GPU" : r.device.name)
                + ": the kernel cannot have done the problem's work in that time",
            "error");

    // Coverage.
    for (const auto& c : r.coverage) {
        if (!c.coverage.writtenFraction || *c.coverage.writtenFraction >= t.minCoverage) continue;
        std::string reason = "output '" + c.output + "': only " + fmt("%.4g%%", 100.0 * *c.coverage.writtenFraction)
            + " of elements written";
        if (c.coverage.writtenElements && c.coverage.totalElements)
            reason += " (" + std::to_string(*c.coverage.writtenElements) + " of " + std::to_string(*c.coverage.totalElements) + ")";
        if (!c.coverage.firstUnwritten.empty()) reason += "; first unwritten element " + std::to_string(c.coverage.firstUnwritten.front());
        add(flags, flagcode::kLowCoverage, reason, "error");
    }

    // Weak check.
    for (const auto& o : r.outputs)
        if (o.zerosPass)
            add(flags, flagcode::kZeroAcceptance,
                "an all-zeros '" + o.output + "' would pass this problem's allclose (reference RMS " + fmt("%.3g", o.refRms)
                    + " against atol " + fmt("%g", r.tolerance.atol) + "): 'correct' says little here",
                "warning");

    // Hidden work.
    const auto& cu = r.candidateCupti;
    if (cu.available && cu.otherStreamKernels > 0) {
        std::string reason = std::to_string(cu.otherStreamKernels) + " kernel(s) ran on streams other than the timed one ("
            + fmt("%.4g ms", cu.otherStreamMs) + "), outside what the events measured";
        for (const auto& k : cu.kernels)
            if (k.streamId != cu.timedStreamId) {
                reason += "; e.g. " + k.name + " on stream " + std::to_string(k.streamId);
                break;
            }
        add(flags, flagcode::kSideStreamWork, reason, "error");
    }

    // Precision: the band starts above what honest fp32 reaches for this
    // reduction length; a half-named kernel counts only with an error above
    // that bound too (an fp16-table embedding bag at 4.2e-9 is exact fp32 math).
    const double honest = honestFp32RelL2Bound(r, t);
    const double low = std::max(t.precisionRelL2Low, honest);
    double worstFinite = 0.0;
    for (const auto& o : r.outputs)
        if (o.nanCount == 0 && o.infCount == 0) worstFinite = std::max(worstFinite, o.relL2Error);
    std::string precisionReason;
    if (worstFinite > honest && worstFinite <= t.precisionRelL2High)
        for (const auto& k : cu.kernels)
            if (looksHalfPrecisionKernel(k.name)) {
                precisionReason = "kernel '" + k.name + "' looks like half-precision or TF32 arithmetic and the error "
                    + fmt("%.3g", worstFinite) + " is above honest fp32's " + fmt("%.3g", honest);
                break;
            }
    if (precisionReason.empty())
        for (const auto& o : r.outputs)
            if (o.relL2Error >= low && o.relL2Error <= t.precisionRelL2High && o.nanCount == 0 && o.infCount == 0) {
                precisionReason = "output '" + o.output + "' has relative L2 error " + fmt("%.3g", o.relL2Error)
                    + ", the signature of fp16/bf16/TF32 arithmetic (honest fp32 stays below " + fmt("%.3g", honest)
                    + " for a reduction length of " + fmt("%.0f", reductionLengthOf(r)) + ")";
                break;
            }
    if (!precisionReason.empty() && r.precision == DType::F32) add(flags, flagcode::kPrecisionDowngrade, precisionReason + " in an fp32 problem", "warning");

    for (const auto& o : r.outputs)
        if (o.deterministic && !*o.deterministic)
            add(flags, flagcode::kNondeterministic,
                "output '" + o.output + "' differs between two runs on the same inputs (" + std::to_string(o.nondeterministicElements)
                    + " elements): a note, not an exploit (float atomics reorder sums)",
                "info");

    for (const auto& in : r.inputs)
        if (in.mutated)
            add(flags, flagcode::kInputMutation,
                "input '" + in.input + "' changed while the candidate ran (hash " + in.hashBefore + " -> " + in.hashAfter + ")",
                "error");

    deriveExploitFlags(r, t, flags);
    return flags;
}

bool expectationNames(const std::string& expected, const std::string& code)
{
    std::size_t from = 0;
    for (;;) {
        const std::size_t bar = expected.find('|', from);
        if (expected.compare(from, bar == std::string::npos ? std::string::npos : bar - from, code) == 0) return true;
        if (bar == std::string::npos) return false;
        from = bar + 1;
    }
}

bool expectationRaised(const std::string& expected, const std::vector<std::string>& raised)
{
    return std::any_of(raised.begin(), raised.end(), [&](const std::string& c) { return expectationNames(expected, c); });
}

} // namespace kwb
