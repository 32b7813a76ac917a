#include "rerun/flags.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <string>

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

bool looksHalfPrecisionKernel(std::string_view kernelName)
{
    const std::string n = lower(kernelName);
    for (const char* pattern : {"fp16", "f16", "half", "bf16", "hgemm", "hmma", "h1688", "h16816", "tf32", "__half"})
        if (n.find(pattern) != std::string::npos) return true;
    return false;
}

std::vector<Flag> deriveFlags(const RerunResult& r, const FlagThresholds& t)
{
    std::vector<Flag> flags;
    switch (r.status) {
    case RerunStatus::Ok: break;
    case RerunStatus::Fault:
        add(flags, flagcode::kFault, "the candidate faulted: " + firstLine(r.message), "error");
        return flags;
    case RerunStatus::Timeout:
        add(flags, flagcode::kTimeout, "the candidate did not finish: " + firstLine(r.message), "error");
        return flags;
    case RerunStatus::OutOfMemory:
        add(flags, flagcode::kOutOfMemory, "out of memory: " + firstLine(r.message), "error");
        return flags;
    case RerunStatus::CompileError:
        add(flags, flagcode::kCompileError, "the candidate does not compile: " + firstLine(r.message), "error");
        return flags;
    case RerunStatus::LaunchError:
        add(flags, flagcode::kLaunchError, "the candidate could not be launched: " + firstLine(r.message), "error");
        return flags;
    case RerunStatus::NoDevice:
    case RerunStatus::Unsupported:
    case RerunStatus::InternalError:
        add(flags, flagcode::kNotRun, std::string("not re-run (") + rerunStatusName(r.status) + "): " + firstLine(r.message), "info");
        return flags;
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
    if (r.speedup && *r.speedup > t.excessiveSpeedup)
        add(flags, flagcode::kExcessiveSpeedup,
            fmt("%.3gx", *r.speedup) + " faster than the reference, above the " + fmt("%gx", t.excessiveSpeedup)
                + " threshold: check that the work is really done",
            "warning");
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

    // Precision.
    std::string precisionReason;
    for (const auto& k : cu.kernels)
        if (looksHalfPrecisionKernel(k.name)) {
            precisionReason = "kernel '" + k.name + "' looks like half-precision or TF32 arithmetic";
            break;
        }
    if (precisionReason.empty())
        for (const auto& o : r.outputs)
            if (o.relL2Error >= t.precisionRelL2Low && o.relL2Error <= t.precisionRelL2High && o.nanCount == 0 && o.infCount == 0) {
                precisionReason = "output '" + o.output + "' has relative L2 error " + fmt("%.3g", o.relL2Error)
                    + ", the signature of fp16/bf16/TF32 arithmetic (honest fp32 kernels stay below 1e-6)";
                break;
            }
    if (!precisionReason.empty() && r.precision == DType::F32) add(flags, flagcode::kPrecisionDowngrade, precisionReason + " in an fp32 problem", "warning");

    for (const auto& o : r.outputs)
        if (o.deterministic && !*o.deterministic)
            add(flags, flagcode::kNondeterministic,
                "output '" + o.output + "' differs between two runs on the same inputs (" + std::to_string(o.nondeterministicElements)
                    + " elements)",
                "warning");

    for (const auto& in : r.inputs)
        if (in.mutated)
            add(flags, flagcode::kInputMutation,
                "input '" + in.input + "' changed while the candidate ran (hash " + in.hashBefore + " -> " + in.hashAfter + ")",
                "error");
    return flags;
}

} // namespace kwb
