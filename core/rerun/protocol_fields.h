#pragma once
// The members of every kwb.rerun/1 message, spelled once. Each visitFields()
// lists a struct's wire names and members in order; protocol.cpp's encoder and
// decoder both walk these lists, so the two cannot disagree about a member.
// The lists know no JSON: a visitor V provides
//   v(key, member)                  a member the wire always carries
//   v(key, member, wire::...)       with a presence rule (below)
//   v.derived(key, fn)              written only: fn() returns an optional value
//                                   computed from other members; readers ignore it
//   v.check(fn, reason)             read only: fn() must hold after the members
//                                   were read, else the object is rejected with reason
// Nested structs with their own visitFields() are objects; std::optional
// members are written when set; vectors are arrays; SizeMap is an object.
// Changing a list changes the wire format: tests/data/golden/protocol pins it.
#include <concepts>
#include <string_view>
#include <type_traits>

#include "rerun/protocol.h"

namespace kwb {

// Presence rules, as tag types so that a rule a member type cannot follow
// fails to compile. Without one, a member is always written and read when present.
namespace wire {
struct Always { };
struct OmitDefault { }; // not written while empty ("", [], false, 0)
struct Required { }; // always written; a reader rejects an object without it
} // namespace wire

// S is T or const T: one list serves the encoder (const) and the decoder.
template <typename S, typename T>
concept FieldsOf = std::same_as<std::remove_const_t<S>, T>;

// The "type" member of each message.
template <typename T> inline constexpr std::string_view kMessageType = {};
template <> inline constexpr std::string_view kMessageType<HelloRequest> = "hello";
template <> inline constexpr std::string_view kMessageType<RerunRequest> = "rerun";
template <> inline constexpr std::string_view kMessageType<ShutdownRequest> = "shutdown";
template <> inline constexpr std::string_view kMessageType<Capabilities> = "capabilities";
template <> inline constexpr std::string_view kMessageType<ProgressMessage> = "progress";
template <> inline constexpr std::string_view kMessageType<RerunResult> = "result";
template <> inline constexpr std::string_view kMessageType<ErrorMessage> = "error";

// ---- parts ----

template <typename V, FieldsOf<RerunOptions> S> void visitFields(V& v, S& o)
{
    v("trials", o.trials);
    v("warmup", o.warmup);
    v("timing_budget_s", o.timingBudgetS, wire::OmitDefault {});
    v("l2_flush", o.l2Flush);
    v("correctness_trials", o.correctnessTrials);
    v("coverage_rows", o.coverageRows);
    v("coverage_cols", o.coverageCols);
    v("timeout_s", o.timeoutS);
    v("seed", o.seed);
    v("time_reference", o.timeReference);
    v("cupti", o.cupti);
    v("sizes", o.sizes);
    // Issue 12's checks: absent in older requests, which then get the defaults.
    v("fresh_inputs", o.freshInputs);
    v("check_every", o.checkEvery);
    v("post_timing", o.postTiming);
    v("reset_persisting_l2", o.resetPersistingL2);
    v("host_timer", o.hostTimer);
    v("per_call", o.perCall);
    v("sanitize", o.sanitize, wire::OmitDefault {});
    v("adversarial", o.adversarial);
    v("odd_shapes", o.oddShapes, wire::OmitDefault {});
    v.check([&] { return o.checkEvery >= 1; }, "check_every must be >= 1");
    v.check([&] {
        for (const auto& t : o.sanitize)
            if (!isSanitizerTool(t)) return false;
        return true;
    }, "sanitize names a tool other than memcheck, initcheck, racecheck, synccheck");
    v.check([&] { return o.trials >= 0 && o.warmup >= 0 && o.correctnessTrials >= 0; }, "trial counts must be >= 0");
    v.check([&] { return o.timingBudgetS >= 0.0 && o.timingBudgetS <= 86400.0; }, "timing_budget_s must be within [0, 86400]");
}

template <typename V, FieldsOf<KernelBenchPayload> S> void visitFields(V& v, S& k)
{
    v("problem_file", k.problemFile);
    v("problem_source", k.problemSource);
    v("record_id", k.recordId);
}

template <typename V, FieldsOf<DeviceInfo> S> void visitFields(V& v, S& d)
{
    v("name", d.name);
    v("ordinal", d.ordinal);
    v("compute_major", d.computeMajor);
    v("compute_minor", d.computeMinor);
    v("sm_count", d.smCount);
    v("memory_bytes", d.memoryBytes);
    v("l2_bytes", d.l2Bytes);
    v("sm_clock_mhz", d.smClockMhz);
    v("memory_clock_mhz", d.memoryClockMhz);
    v("peak_bandwidth_bytes_per_s", d.peakBandwidthBytesPerS);
    v("peak_fp32_flops_per_s", d.peakFp32FlopsPerS);
    v("peak_fp16_flops_per_s", d.peakFp16FlopsPerS);
    v("driver_version", d.driverVersion);
    v("runtime_version", d.runtimeVersion);
    v("uuid", d.uuid, wire::OmitDefault {});
}

template <typename V, FieldsOf<TimingStats> S> void visitFields(V& v, S& t)
{
    v("trials", t.trials);
    v("median_ms", t.medianMs);
    v("q1_ms", t.q1Ms);
    v("q3_ms", t.q3Ms);
    v("iqr_ms", t.iqrMs);
    v("mean_ms", t.meanMs);
    v("std_ms", t.stdMs);
    v("min_ms", t.minMs);
    v("max_ms", t.maxMs);
    v("cv", t.cv);
    v("event_overhead_ms", t.eventOverheadMs);
    v("ungated_trials", t.ungatedTrials);
    v("gate_timeouts", t.gateTimeouts);
    v("gate_blocked", t.gateBlocked);
    v.derived("corrected_median_ms",
        [&] { return t.eventOverheadMs ? std::optional<double>(t.correctedMedianMs()) : std::nullopt; });
    v("samples_ms", t.samplesMs, wire::OmitDefault {});
}

template <typename V, FieldsOf<KernelActivity> S> void visitFields(V& v, S& k)
{
    v("name", k.name);
    v("stream_id", k.streamId);
    v("count", k.count);
    v("total_ms", k.totalMs);
    v("library", k.library);
}

template <typename V, FieldsOf<CuptiSummary> S> void visitFields(V& v, S& c)
{
    v("available", c.available);
    v("note", c.note, wire::OmitDefault {});
    v("timed_stream_id", c.timedStreamId);
    v("kernel_count", c.kernelCount);
    v("timed_stream_kernels", c.timedStreamKernels);
    v("other_stream_kernels", c.otherStreamKernels);
    v("kernel_ms", c.kernelMs);
    v("other_stream_ms", c.otherStreamMs);
    v("memcpy_count", c.memcpyCount);
    v("memset_count", c.memsetCount);
    v("mem_op_ms", c.memOpMs, wire::OmitDefault {});
    v("streams", c.streams);
    v("kernels", c.kernels);
}

template <typename V, FieldsOf<CoverageGrid> S> void visitFields(V& v, S& g)
{
    v("rows", g.rows);
    v("cols", g.cols);
    v("written_fraction", g.writtenFraction); // row-major
    v.check([&] { return std::int64_t(g.rows) * g.cols == static_cast<std::int64_t>(g.writtenFraction.size()); },
        "rows * cols differs from the number of fractions");
}

// The record's Coverage members sit flat in the output's object.
template <typename V, FieldsOf<OutputCoverage> S> void visitFields(V& v, S& o)
{
    v("output", o.output);
    v("written_fraction", o.coverage.writtenFraction);
    v("written_elements", o.coverage.writtenElements);
    v("total_elements", o.coverage.totalElements);
    v("first_unwritten", o.coverage.firstUnwritten);
    v("grid", o.coverage.grid);
    v("sentinel_a", o.sentinelA);
    v("sentinel_b", o.sentinelB);
}

template <typename V, FieldsOf<OutputCheck> S> void visitFields(V& v, S& o)
{
    v("output", o.output);
    v("trials", o.trials);
    v("trials_passed", o.trialsPassed);
    v("passed", o.passed);
    v("zeros_pass", o.zerosPass);
    v("deterministic", o.deterministic);
    v("nondeterministic_elements", o.nondeterministicElements);
    v("count", o.count);
    v("out_of_tolerance", o.outOfTolerance);
    v("out_of_tolerance_share", o.outOfToleranceShare);
    v("first_mismatch", o.firstMismatch);
    v("max_abs_error", o.maxAbsError);
    v("rel_l2_error", o.relL2Error);
    v("ref_rms", o.refRms);
    v("max_error_over_ref_rms", o.maxErrorOverRefRms);
    v("nan_count", o.nanCount);
    v("inf_count", o.infCount);
}

template <typename V, FieldsOf<InputCheck> S> void visitFields(V& v, S& c)
{
    v("input", c.input);
    v("hash_before", c.hashBefore);
    v("hash_after", c.hashAfter);
    v("mutated", c.mutated);
    v("bytes", c.bytes, wire::OmitDefault {});
}

template <typename V, FieldsOf<FreshInputsCheck> S> void visitFields(V& v, S& f)
{
    v("timed_iterations", f.timedIterations);
    v("checked", f.checked);
    v("failed", f.failed);
    v("worst_rel_l2", f.worstRelL2);
    v("nonce", f.nonce, wire::OmitDefault {});
    v.check([&] { return f.checked >= 0 && f.failed >= 0 && f.failed <= f.checked; }, "failed must be within 0..checked");
}

template <typename V, FieldsOf<HostTiming> S> void visitFields(V& v, S& h)
{
    v("candidate_ms", h.candidateMs);
    v("reference_ms", h.referenceMs);
    v("trials", h.trials);
    v("measured_by", h.measuredBy);
    v.check([&] { return h.measuredBy == "runner" || h.measuredBy == "judge"; }, "measured_by must be 'runner' or 'judge'");
}

template <typename V, FieldsOf<PerCallTiming> S> void visitFields(V& v, S& p)
{
    v("candidate", p.candidate);
    v("reference", p.reference);
    v("checked", p.checked);
    v("failed", p.failed);
    v.check([&] { return p.checked >= 0 && p.failed >= 0 && p.failed <= p.checked; }, "failed must be within 0..checked");
}

template <typename V, FieldsOf<OwnKernels> S> void visitFields(V& v, S& o)
{
    v("declared", o.declared);
    v("launched", o.launched);
    v("own_ms", o.ownMs);
    v("library_ms", o.libraryMs);
    v("framework_ms", o.frameworkMs);
    v("total_ms", o.totalMs);
    v("share", o.share);
}

template <typename V, FieldsOf<SanitizerReport> S> void visitFields(V& v, S& r)
{
    v("tool", r.tool);
    v("errors", r.errors);
    v("first_report", r.firstReport, wire::OmitDefault {});
}

template <typename V, FieldsOf<AdversarialCheck> S> void visitFields(V& v, S& a)
{
    v("set", a.set);
    v("passed", a.passed);
    v("rel_l2", a.relL2);
    v("max_abs_error", a.maxAbsError);
    v("message", a.message);
}

template <typename V, FieldsOf<IsolationInfo> S> void visitFields(V& v, S& i)
{
    v("reference_process", i.referenceProcess);
    v("sandbox", i.sandbox);
    v("why_not", i.whyNot, wire::OmitDefault {});
    v("violations", i.violations);
}

template <typename V, FieldsOf<ToleranceValues> S> void visitFields(V& v, S& t)
{
    v("atol", t.atol);
    v("rtol", t.rtol);
}

template <typename V, FieldsOf<Flag> S> void visitFields(V& v, S& f)
{
    v("code", f.code);
    v("reason", f.reason);
    v("severity", f.severity);
}

// ---- messages ("protocol" and "type" are written around these) ----

template <typename V, FieldsOf<HelloRequest> S> void visitFields(V& v, S& m)
{
    v("id", m.id);
}

template <typename V, FieldsOf<ShutdownRequest> S> void visitFields(V& v, S& m)
{
    v("id", m.id);
}

template <typename V, FieldsOf<RerunRequest> S> void visitFields(V& v, S& m)
{
    v("id", m.id);
    v("problem", m.problem, wire::Required {});
    v("candidate", m.candidate, wire::Required {});
    v("options", m.options);
    v("kernelbench", m.kernelbench);
}

template <typename V, FieldsOf<Capabilities> S> void visitFields(V& v, S& m)
{
    v("id", m.id);
    v("runner_version", m.runnerVersion);
    v("device_present", m.devicePresent);
    v("reason", m.reason, wire::OmitDefault {});
    v("device", m.device);
    v("references", m.references);
}

template <typename V, FieldsOf<ProgressMessage> S> void visitFields(V& v, S& m)
{
    v("id", m.id);
    v("stage", m.stage);
    v("done", m.done);
    v("total", m.total);
}

template <typename V, FieldsOf<RerunResult> S> void visitFields(V& v, S& r)
{
    v("id", r.id);
    v("problem_id", r.problemId);
    v("candidate_id", r.candidateId);
    v("status", r.status, wire::Required {});
    v("message", r.message);
    v("runner_restarted", r.runnerRestarted, wire::OmitDefault {});
    v("device", r.device);
    v("sizes", r.sizes);
    v("precision", r.precision);
    v("tolerance", r.tolerance);
    v("compile_cache_hit", r.compileCacheHit);
    v("compile_ms", r.compileMs);
    v("coverage", r.coverage);
    v("outputs", r.outputs);
    v("inputs", r.inputs);
    v("candidate_timing", r.candidateTiming);
    v("reference_timing", r.referenceTiming);
    v("speedup", r.speedup);
    v("candidate_cupti", r.candidateCupti);
    v("reference_cupti", r.referenceCupti);
    v("flops", r.flops);
    v("bytes", r.bytes);
    v("roofline_floor_ms", r.rooflineFloorMs);
    v("wall_ms", r.wallMs);
    v("overhead_ms", r.overheadMs);
    // Issue 12: provenance and the exploit checks' measurements (absent in older results).
    v("checks_run", r.checksRun, wire::OmitDefault {});
    v("fresh_inputs", r.freshInputs);
    v("post_timing", r.postTiming, wire::OmitDefault {});
    v("host_timing", r.hostTiming);
    v("per_call_timing", r.perCallTiming);
    v("own_kernels", r.ownKernels);
    v("sanitizer", r.sanitizer, wire::OmitDefault {});
    v("adversarial", r.adversarial, wire::OmitDefault {});
    v("isolation", r.isolation);
    v("flags", r.flags);
    v("fatal", r.fatal, wire::OmitDefault {});
}

template <typename V, FieldsOf<ErrorMessage> S> void visitFields(V& v, S& m)
{
    v("id", m.id);
    v("message", m.message);
}

} // namespace kwb
