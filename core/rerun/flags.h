#pragma once
// Flags with human reasons derived from a re-run result: the answers to a
// reviewer's questions about a suspicious speedup. Pure function of the
// result and the thresholds; the parent (kwb, GUI) derives them, not the runner.
#include <string_view>
#include <vector>

#include "records/eval_record.h"
#include "rerun/protocol.h"

namespace kwb {

namespace flagcode {
inline constexpr std::string_view kExcessiveSpeedup = "excessive_speedup";
inline constexpr std::string_view kFasterThanRoofline = "faster_than_roofline";
inline constexpr std::string_view kLowCoverage = "low_coverage";
inline constexpr std::string_view kZeroAcceptance = "zero_acceptance";
inline constexpr std::string_view kSideStreamWork = "side_stream_work";
inline constexpr std::string_view kPrecisionDowngrade = "precision_downgrade";
inline constexpr std::string_view kNondeterministic = "nondeterministic";
inline constexpr std::string_view kInputMutation = "input_mutation";
inline constexpr std::string_view kFault = "fault";
inline constexpr std::string_view kTimeout = "timeout";
inline constexpr std::string_view kOutOfMemory = "oom";
inline constexpr std::string_view kIncorrect = "incorrect";         // fails allclose on fresh inputs
inline constexpr std::string_view kCompileError = "compile_error";
inline constexpr std::string_view kLaunchError = "launch_error";
inline constexpr std::string_view kNotRun = "not_run";              // no device, unsupported, internal error
// Issue 12 (docs/security.md): the exploit classes of 2026's public harnesses.
inline constexpr std::string_view kMemoizedOutput = "memoized_output";       // timed trials' outputs wrong on fresh inputs
inline constexpr std::string_view kStateDrift = "state_drift";               // wrong after the timing loop, right before
inline constexpr std::string_view kBatchSkip = "batch_skip";                 // per-call time or outputs differ from batched
inline constexpr std::string_view kNoOwnKernel = "no_own_kernel";            // declared kernels, none launched
inline constexpr std::string_view kLibraryDominated = "library_dominated";   // note: own kernels < half the GPU time
inline constexpr std::string_view kTimerMismatch = "timer_mismatch";         // host wall clock beyond the events
inline constexpr std::string_view kHostBoundTiming = "host_bound_timing";    // the events timed the GPU waiting on the host
inline constexpr std::string_view kUntimedWork = "untimed_work";             // own kernels ran outside the events' brackets
inline constexpr std::string_view kSanitizerError = "sanitizer_error";
inline constexpr std::string_view kSanitizerNotRun = "sanitizer_not_run"; // note: a tool could not run the candidate
inline constexpr std::string_view kAdversarialFailure = "adversarial_failure";
inline constexpr std::string_view kTampering = "tampering";
} // namespace flagcode

// The check a flag comes from (a check:: name of rerun/rerun_types.h), for
// provenance: "correctness" for incorrect, "fresh_inputs" for memoized_output, ...
std::string_view checkOfFlag(std::string_view code);
// Flags that are notes, not exploit findings: an honest candidate may raise them.
bool isNoteFlag(const Flag& flag);
// A fixture's expected flag: a code, or alternatives "a|b" (a kernel that reads
// memory that is not its own may fault or find nothing, depending on where the
// allocator put things; both are failures). Whether `code` is one of them, and
// whether any of them is among `raised`.
bool expectationNames(const std::string& expected, const std::string& code);
bool expectationRaised(const std::string& expected, const std::vector<std::string>& raised);

struct FlagThresholds {
    double excessiveSpeedup = 10.0;      // KernelBench's excessive_speedup_threshold
    double rooflineSlack = 1.0;          // flag when median < floor * slack (floor uses theoretical peaks)
    double minCoverage = 1.0;            // flag when any output's written fraction is below this
    // An fp32 problem whose output error sits in this relative-L2 band looks
    // like half-precision arithmetic: fp16 elementwise ~ 4e-4, an fp16-input
    // GEMM with fp32 accumulation 1.4e-5 (both measured on the H200), bf16
    // ~ 1e-3..1e-2, TF32 ~ 1e-4; honest fp32 kernels of the problem suite
    // stayed at or below 8.4e-7 there.
    double precisionRelL2Low = 5e-6;
    double precisionRelL2High = 3e-2;
    // The honest fp32 error grows with the reduction length L behind each
    // output element: bound(L) = c * sqrt(L) * 2^-24. c is measured: the
    // suite's honest fp32 candidates on the H200 (datasets/evaluations,
    // datasets/kernelbench_dlrm/evaluations) reach at most 0.22 * sqrt(L) * u
    // (kb1_47 thread_per_output, a serial sum over 4096); c = 1 leaves 4.5x.
    // The band's low end is max(precisionRelL2Low, bound(L)); a half-named
    // kernel counts only where the error is above bound(L) too.
    double precisionSqrtLConstant = 1.0;
    double precisionHonestFloor = 1e-6;  // elementwise fast-math (__expf) stays below this
    // timer_mismatch: host per call > events median * (1 + rel) + abs (docs/formats.md derives them).
    double hostTimerRel = 0.5;
    double hostTimerAbsMs = 0.05;
    // batch_skip: per-call median > batched median * ratio + abs.
    double perCallRatio = 3.0;
    double perCallAbsMs = 0.02;
    double ownKernelShareNote = 0.5;     // library_dominated below this share
    // host_bound_timing: events median > CUPTI's GPU time per trial * ratio + abs
    // (no memcpy/memset in the window, whose time CUPTI's kernel sum lacks).
    double hostBoundRatio = 2.5;
    double hostBoundAbsMs = 0.01;
    // untimed_work: the candidate's own kernels on the timed stream take more GPU time per
    // trial (CUPTI) than the events' mean * ratio + abs. Kernels of one stream run one after
    // another inside the brackets, so honest code stays at or below the mean; the slack is
    // for dependent-launch overlap and the two clocks.
    double untimedWorkRatio = 1.25;
    double untimedWorkAbsMs = 0.002;
};

// The reduction length behind one output element, estimated as the problem's
// flops over its output elements (1 when either is unknown): what the
// precision rule's honest bound scales with.
double reductionLengthOf(const RerunResult& result);
// bound(L) of FlagThresholds for `result`'s reduction length.
double honestFp32RelL2Bound(const RerunResult& result, const FlagThresholds& thresholds = {});

// Flag codes in the order above; severity "error" for what invalidates the
// result (incorrect, low coverage, input mutation, side-stream work, faults,
// timeouts), "warning" for what makes it suspect.
std::vector<Flag> deriveFlags(const RerunResult& result, const FlagThresholds& thresholds = {});

// Kernel names that suggest half-precision or TF32 arithmetic.
bool looksHalfPrecisionKernel(std::string_view kernelName);

} // namespace kwb
