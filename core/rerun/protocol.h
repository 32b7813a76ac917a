#pragma once
// The re-run protocol ("kwb.rerun/1") between a parent (kwb, the GUI) and the
// isolated kwb-runner process: one JSON object per line on the runner's stdin
// (requests) and stdout (replies). Every line carries "protocol" and "type".
//
//   parent -> runner: hello | rerun | shutdown
//   runner -> parent: capabilities (reply to hello)
//                     progress* then result (reply to rerun; same id)
//                     error (a request the runner could not parse or serve)
//
// A rerun request carries the problem and candidate specs inline (the
// candidate's source text included), so the runner reads no spec files.
// Documented in docs/formats.md ("Re-run protocol") with
// resources/schemas/rerun-protocol.schema.json. Units are in the field names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "problems/tolerance_policy.h"
#include "records/eval_record.h"

namespace kwb {

inline constexpr std::string_view kRerunProtocol = "kwb.rerun/1";

struct RerunOptions {
    std::int32_t trials = 100;           // timed trials per kernel (candidate and reference)
    std::int32_t warmup = 10;            // untimed runs before timing
    bool l2Flush = true;                 // flush L2 before every timed trial
    std::int32_t correctnessTrials = 3;  // trials with fresh inputs (seed policy permitting)
    std::int32_t coverageRows = 32;      // requested coverage-grid resolution
    std::int32_t coverageCols = 32;
    double timeoutS = 120.0;             // the parent kills the runner after this long
    std::uint64_t seed = 42;             // overrides ProblemSpec::seed.base
    bool timeReference = true;
    bool cupti = true;                   // CUPTI activity tracing of the timed window
    SizeMap sizes;                       // overrides of the problem's sizes
};

// What a KernelBench sample (CandidateForm::KernelBenchSample) needs besides
// the sample itself: the KernelBench problem file (Model, get_inputs,
// get_init_inputs) as text. Encoded as the optional member "kernelbench" of a
// rerun request; runners that do not know it ignore it.
struct KernelBenchPayload {
    std::string problemFile;   // where the problem came from (display, provenance)
    std::string problemSource; // the problem module's Python text
    std::string recordId;      // the evaluation record the sample came from, if any
};

struct RerunRequest {
    std::string id; // echoed in progress and result lines
    ProblemSpec problem;
    CandidateSpec candidate;
    RerunOptions options;
    std::optional<KernelBenchPayload> kernelbench; // set for KernelBench samples
};

struct HelloRequest {
    std::string id;
};

struct ShutdownRequest {
    std::string id;
};

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

// Reply to hello: whether this runner can run anything.
struct Capabilities {
    std::string id;
    std::string runnerVersion;
    bool devicePresent = false;
    std::string reason; // why not, when no device ("no CUDA device", driver error text)
    DeviceInfo device;
    std::vector<std::string> references; // built-in references this runner implements
};

struct ProgressMessage {
    std::string id;
    std::string stage; // "compile", "inputs", "coverage", "correctness", "timing", "reference"
    std::int64_t done = 0;
    std::int64_t total = 0;
};

// Why a re-run ended as it did. Everything but Ok is the candidate's (or the
// environment's) failure reported as a result, not an executor error.
enum class RerunStatus : std::uint8_t {
    Ok,            // every step ran (the output may still be wrong: see correctness)
    CompileError,  // NVRTC / nvcc rejected the source
    LaunchError,   // bad launch configuration, missing entry point, kwb_launch returned non-zero
    Fault,         // CUDA fault (illegal address, ...) or the runner crashed
    Timeout,       // the parent killed the runner after options.timeoutS
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
    std::vector<std::uint32_t> streams; // distinct stream ids seen
    std::vector<KernelActivity> kernels;
};

// One output's correctness over the trials; metrics are of the worst trial
// (largest outOfToleranceShare, then largest relL2Error).
struct OutputCheck {
    std::string output;      // tensor name
    std::int32_t trials = 0;
    std::int32_t trialsPassed = 0;
    bool passed = false;     // allclose on every trial
    bool zerosPass = false;  // would all zeros pass allclose (any trial)?
    std::optional<bool> deterministic;      // two runs on equal inputs bitwise equal
    std::int64_t nondeterministicElements = 0;
    std::int64_t count = 0;
    std::int64_t outOfTolerance = 0;
    double outOfToleranceShare = 0.0;
    std::int64_t firstMismatch = -1;
    double maxAbsError = 0.0;
    double relL2Error = 0.0;
    double refRms = 0.0;
    double maxErrorOverRefRms = 0.0;
    std::int64_t nanCount = 0;
    std::int64_t infCount = 0;
};

struct InputCheck {
    std::string input;   // tensor name
    std::string hashBefore; // hex digest of the bytes before the candidate ran
    std::string hashAfter;
    bool mutated = false;
};

struct OutputCoverage {
    std::string output; // tensor name
    Coverage coverage;  // records/eval_record.h: fraction, counts, first unwritten, grid
    std::uint32_t sentinelA = 0; // bit patterns used (32-bit elements; 16-bit outputs use the low half)
    std::uint32_t sentinelB = 0;
};

struct RerunResult {
    std::string id;
    std::string problemId;
    std::string candidateId;
    RerunStatus status = RerunStatus::InternalError;
    std::string message;          // reason / compiler log excerpt / fault text
    bool runnerRestarted = false; // set by the parent when it had to start a fresh runner
    DeviceInfo device;
    SizeMap sizes;                // sizes the run used
    DType precision = DType::F32; // the problem's precision (copied from the request)
    ToleranceValues tolerance;
    // Compilation.
    bool compileCacheHit = false;
    double compileMs = 0.0;
    // Checks (empty when the run stopped before them).
    std::vector<OutputCoverage> coverage;
    std::vector<OutputCheck> outputs;
    std::vector<InputCheck> inputs;
    // Timing.
    std::optional<TimingStats> candidateTiming;
    std::optional<TimingStats> referenceTiming;
    std::optional<double> speedup; // reference median / candidate median
    CuptiSummary candidateCupti;
    CuptiSummary referenceCupti;
    // Roofline.
    std::optional<double> flops;
    std::optional<double> bytes;
    std::optional<double> rooflineFloorMs;
    // Costs beyond the timed kernels.
    double wallMs = 0.0;          // whole request, as the runner saw it
    double overheadMs = 0.0;      // wallMs minus the timed kernel executions
    // Flags derived by the parent (rerun/flags.h); a runner leaves this empty.
    std::vector<Flag> flags;
    // The runner must exit after sending this result (sticky CUDA error).
    bool fatal = false;

    bool allOutputsPassed() const;
    double minCoverage() const; // lowest written fraction over outputs; 1 when none
};

struct ErrorMessage {
    std::string id;     // empty when the request id could not be read
    std::string message;
};

using ProtocolMessage = std::variant<HelloRequest, RerunRequest, ShutdownRequest, Capabilities,
    ProgressMessage, RerunResult, ErrorMessage>;

// One line of JSON, newline included.
std::string encodeMessage(const ProtocolMessage& message);
// Parses one line; rejects a missing or different "protocol" (the message says
// both versions), unknown types and malformed members (path and reason).
Result<ProtocolMessage> decodeMessage(std::string_view line);

// Pieces, for embedding results elsewhere (verification.extra of records).
nlohmann::json rerunResultToJson(const RerunResult& result);
Result<RerunResult> rerunResultFromJson(const nlohmann::json& j);
nlohmann::json deviceInfoToJson(const DeviceInfo& device);

} // namespace kwb
