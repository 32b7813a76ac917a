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
#include "rerun/rerun_types.h"

namespace kwb {

inline constexpr std::string_view kRerunProtocol = "kwb.rerun/1";

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
    std::string stage; // free text: "compile", "coverage", "correctness", "timing", "reference"; the bridge adds "problem", "worker", "adversarial", "host timer", "teardown"
    std::int64_t done = 0;
    std::int64_t total = 0;
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
    // Issue 12 (docs/security.md): which checks the verdict passed through, and their measurements.
    std::vector<std::string> checksRun;          // check:: names, in the order they ran
    std::optional<FreshInputsCheck> freshInputs;
    std::vector<OutputCheck> postTiming;         // re-validation after the timing loop
    std::optional<HostTiming> hostTiming;
    std::optional<PerCallTiming> perCallTiming;
    std::optional<OwnKernels> ownKernels;
    std::vector<SanitizerReport> sanitizer;
    std::vector<AdversarialCheck> adversarial;
    std::optional<IsolationInfo> isolation;
    // Appends `name` to checksRun once.
    void markCheck(std::string_view name);
    bool ranCheck(std::string_view name) const;
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
