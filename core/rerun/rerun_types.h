#pragma once
// The re-run protocol's value types that carry no spec and no JSON: options,
// device description, status, timing statistics, CUPTI summary and the
// per-output checks. The GPU pipeline (CUDA sources included) fills them;
// rerun/protocol.h includes this header and adds the request and result
// messages and their JSON encoding.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "problems/output_metrics_types.h"
#include "problems/size_expression.h"
#include "records/eval_record.h"

namespace kwb {

struct RerunOptions {
    std::int32_t trials = 100;           // timed trials per kernel (candidate and reference)
    std::int32_t warmup = 10;            // untimed runs before timing
    double timingBudgetS = 0.0;          // per timed kernel: cut warm-ups and trials to fit (0: none; >= 10 trials)
    bool l2Flush = true;                 // flush L2 before every timed trial
    std::int32_t correctnessTrials = 3;  // trials with fresh inputs (seed policy permitting)
    std::int32_t coverageRows = 32;      // requested coverage-grid resolution
    std::int32_t coverageCols = 32;
    double timeoutS = 120.0;             // the candidate's limit; the parent kills the runner after replyDeadlineS()
    std::uint64_t seed = 42;             // overrides ProblemSpec::seed.base
    bool timeReference = true;
    bool cupti = true;                   // CUPTI activity tracing of the timed window
    SizeMap sizes;                       // overrides of the problem's sizes
    // Checks against the exploit classes of docs/security.md (issue 12). The
    // cheap ones are on by default; the rest are selected by option.
    bool freshInputs = true;             // fresh input contents (per-run nonce) before every timed trial
    std::int32_t checkEvery = 10;        // compare every k-th timed trial (and the last) with the reference
    bool postTiming = true;              // re-validate on the last timed trial's inputs after the timing loop
    bool resetPersistingL2 = true;       // persisting-L2 limit 0 + reset before every timed batch
    bool hostTimer = true;               // host wall clock around a device synchronize per timed batch
    bool perCall = false;                // each call synchronised and timed alone, its output checked
    std::vector<std::string> sanitize;   // compute-sanitizer tools (isSanitizerTool)
    bool adversarial = false;            // adversarial value sets + three bitwise runs
    bool oddShapes = false;              // adversarial: an odd/non-power-of-two shape where sizes allow
};

// compute-sanitizer runs the candidate 10-100x slower than it runs alone: each
// tool gets its own limit, and the parent waits for the whole pass on top of
// the candidate's own timeoutS (the H200 run of 2026-12-02: a 10 s limit killed
// every sanitized re-run once the pass really ran the candidate).
double sanitizerToolLimitS(double timeoutS);
// How long the parent waits for a request's reply: timeoutS plus each
// requested sanitizer tool's limit.
double replyDeadlineS(const RerunOptions& options);
// The compute-sanitizer tools a request may name: memcheck, initcheck, racecheck, synccheck.
bool isSanitizerTool(std::string_view tool);

// Names of the checks a verdict can pass through (RerunResult::checksRun).
namespace check {
inline constexpr std::string_view kCoverage = "coverage";
inline constexpr std::string_view kCorrectness = "correctness";
inline constexpr std::string_view kDeterminism = "determinism";
inline constexpr std::string_view kInputHashes = "input_hashes";
inline constexpr std::string_view kFreshInputs = "fresh_inputs";
inline constexpr std::string_view kPostTiming = "post_timing";
inline constexpr std::string_view kPersistingL2Reset = "persisting_l2_reset";
inline constexpr std::string_view kHostTimer = "host_timer";
inline constexpr std::string_view kOwnKernels = "own_kernels";
inline constexpr std::string_view kPerCall = "per_call";
inline constexpr std::string_view kSanitizer = "sanitizer";
inline constexpr std::string_view kAdversarial = "adversarial";
inline constexpr std::string_view kIsolation = "isolation";
inline constexpr std::string_view kTiming = "timing";   // events + CUPTI (speedup, roofline, side streams)
} // namespace check
// Every check name above, in display order (the matrix's columns).
const std::vector<std::string_view>& allCheckNames();

struct DeviceInfo {
    std::string name;
    std::int32_t ordinal = 0;
    std::int32_t computeMajor = 0;
    std::int32_t computeMinor = 0;
    std::int32_t smCount = 0;
    std::int64_t memoryBytes = 0;
    std::int64_t l2Bytes = 0;
    double smClockMhz = 0.0;
    double memoryClockMhz = 0.0;
    double peakBandwidthBytesPerS = 0.0; // theoretical DRAM bandwidth
    double peakFp32FlopsPerS = 0.0;      // non-tensor-core FP32
    double peakFp16FlopsPerS = 0.0;      // dense tensor-core FP16 (0 = unknown)
    std::int32_t driverVersion = 0;      // cudaDriverGetVersion, e.g. 13000
    std::int32_t runtimeVersion = 0;
    std::string uuid;
};

// Why a re-run ended as it did. Everything but Ok is the candidate's (or the
// environment's) failure reported as a result, not an executor error.
enum class RerunStatus : std::uint8_t {
    Ok,            // every step ran (the output may still be wrong: see correctness)
    CompileError,  // NVRTC / nvcc rejected the source
    LaunchError,   // bad launch configuration, missing entry point, kwb_launch returned non-zero
    Fault,         // CUDA fault (illegal address, ...) or the runner crashed
    Timeout,       // the parent killed the runner after replyDeadlineS(options)
    OutOfMemory,   // device or host allocation failed
    NoDevice,      // no usable CUDA device
    Unsupported,   // reference or dtype the runner does not implement
    InternalError, // the runner failed for reasons of its own
};
const char* rerunStatusName(RerunStatus status); // "ok", "compile_error", "launch_error", "fault", "timeout", "oom", ...
std::optional<RerunStatus> rerunStatusFromName(std::string_view name);

// Timing of one kernel over N trials (CUDA events), milliseconds.
struct TimingStats {
    std::int32_t trials = 0;
    double medianMs = 0.0;
    double q1Ms = 0.0;   // 25th percentile
    double q3Ms = 0.0;   // 75th percentile
    double iqrMs = 0.0;  // q3 - q1
    double meanMs = 0.0;
    double stdMs = 0.0;
    double minMs = 0.0;
    double maxMs = 0.0;
    double cv = 0.0;     // std / mean
    std::vector<double> samplesMs; // optional: the per-trial times
    // What the CUDA-event bracket adds to a kernel's own duration under the same
    // trial sequence, calibrated on a probe kernel against CUPTI (gpu/kernel_timer.h);
    // unset when CUPTI was not available.
    std::optional<double> eventOverheadMs;
    // Trials no gate held (the host enqueued them as the GPU ran them, so their
    // events may hold the host's launch time); unset when the timer had no gate.
    std::optional<std::int32_t> ungatedTrials;
    // How many batch gates gave up, and where the first enqueue that blocked behind
    // one spent its time ("trial 0: 499 ms in the call"); unset when none gave up /
    // none blocked. What tells a full launch queue or a waiting call from a gate the
    // host never reached.
    std::optional<std::int32_t> gateTimeouts;
    std::optional<std::string> gateBlocked;
    // medianMs less the event bracket (never below 0); medianMs when uncalibrated.
    double correctedMedianMs() const;
};
// Fills every summary field from samples (linear-interpolated quantiles, as numpy).
TimingStats summarizeTimings(std::vector<double> samplesMs, bool keepSamples = false);

// CUPTI activity in the timed window, aggregated per kernel name and stream.
struct KernelActivity {
    std::string name;      // demangled where possible
    std::uint32_t streamId = 0;
    std::int64_t count = 0;
    double totalMs = 0.0;
    bool library = false;  // cuBLAS / cuDNN / CUTLASS / driver-internal kernel
};

struct CuptiSummary {
    bool available = false;       // CUPTI ran (false: not requested or failed; see note)
    std::string note;
    std::uint32_t timedStreamId = 0;
    std::int64_t kernelCount = 0; // every kernel on every stream in the window
    std::int64_t timedStreamKernels = 0;
    std::int64_t otherStreamKernels = 0;
    double kernelMs = 0.0;        // total kernel time on the timed stream
    double otherStreamMs = 0.0;   // total kernel time on every other stream
    std::int64_t memcpyCount = 0;
    std::int64_t memsetCount = 0;
    double memOpMs = 0.0;         // total time of those copies and sets (timed stream; absent from older results)
    std::vector<std::uint32_t> streams; // distinct stream ids seen
    std::vector<KernelActivity> kernels;
};

// One output's correctness over the trials. The OutputMetrics members (count,
// outOfTolerance, ..., infCount) are those of the worst trial (largest
// outOfToleranceShare, then largest relL2Error); allclose and the reference's
// NaN/Inf counts are the worst trial's too but are not on the wire.
struct OutputCheck : OutputMetrics {
    std::string output;      // tensor name
    std::int32_t trials = 0;
    std::int32_t trialsPassed = 0;
    bool passed = false;     // allclose on every trial
    bool zerosPass = false;  // would all zeros pass allclose (any trial)?
    std::optional<bool> deterministic;      // two runs on equal inputs bitwise equal
    std::int64_t nondeterministicElements = 0;
};

// Timed trials that got fresh input contents, and how many were compared.
struct FreshInputsCheck {
    std::int32_t timedIterations = 0;
    std::int32_t checked = 0;
    std::int32_t failed = 0;
    double worstRelL2 = 0.0;
    std::string nonce; // hex of the per-run nonce the fresh contents were seeded from ("" when not recorded)
};

// Host wall clock per call around a device synchronize (per batch / trials).
struct HostTiming {
    std::optional<double> candidateMs;
    std::optional<double> referenceMs;
    std::int32_t trials = 0;
    std::string measuredBy = "runner"; // "runner" | "judge"
};

// The per-call mode: every call synchronised and timed alone, its output checked.
struct PerCallTiming {
    std::optional<TimingStats> candidate;
    std::optional<TimingStats> reference;
    std::int32_t checked = 0;
    std::int32_t failed = 0;
};

// The candidate's own kernels in the CUPTI window (timed stream and all others).
struct OwnKernels {
    std::vector<std::string> declared; // entry points / set_own_kernels names ([] = every non-library kernel is own)
    std::vector<std::string> launched; // own kernels CUPTI saw
    double ownMs = 0.0;
    double libraryMs = 0.0;   // vendor libraries by the rule table (cuBLAS, cuDNN, CUTLASS, ...)
    double frameworkMs = 0.0; // anything else that is not own (PyTorch's ATen kernels, ...)
    double totalMs = 0.0;
    double share = 0.0;       // ownMs / totalMs (0 when nothing ran)
};

struct SanitizerReport {
    std::string tool;        // "memcheck" | "initcheck" | "racecheck"
    std::int64_t errors = 0;
    std::string firstReport; // the first error's text, trimmed
};

// One adversarial value set (or the odd shape) against the reference.
struct AdversarialCheck {
    std::string set; // "near_max" | "near_zero" | "mixed_scale" | "all_equal" | "signed" | "odd_shape" | "determinism"
    bool passed = false;
    double relL2 = 0.0;
    double maxAbsError = 0.0;
    std::string message; // why it was skipped / what failed ("" when it passed)
};

struct IsolationInfo {
    std::string referenceProcess; // "separate" | "same"
    std::string sandbox;          // "landlock+seccomp" | "seccomp" | "none"
    std::string whyNot;
    std::vector<std::string> violations;
};

struct InputCheck {
    std::string input;   // tensor name
    std::string hashBefore; // hex digest of the bytes before the candidate ran
    std::string hashAfter;
    bool mutated = false;
    std::int64_t bytes = 0; // how many were hashed (0: not recorded, older results)
};

struct OutputCoverage {
    std::string output; // tensor name
    Coverage coverage;  // records/eval_record.h: fraction, counts, first unwritten, grid
    std::uint32_t sentinelA = 0; // bit patterns used (32-bit elements; 16-bit outputs use the low half)
    std::uint32_t sentinelB = 0;
};

} // namespace kwb
