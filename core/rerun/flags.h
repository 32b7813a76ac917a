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
} // namespace flagcode

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
};

// Flag codes in the order above; severity "error" for what invalidates the
// result (incorrect, low coverage, input mutation, side-stream work, faults,
// timeouts), "warning" for what makes it suspect.
std::vector<Flag> deriveFlags(const RerunResult& result, const FlagThresholds& thresholds = {});

// Kernel names that suggest half-precision or TF32 arithmetic.
bool looksHalfPrecisionKernel(std::string_view kernelName);

} // namespace kwb
