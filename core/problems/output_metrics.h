#pragma once
// Host-side comparison of a candidate's output with the reference output:
// KernelBench's check (torch.allclose) plus scale-invariant metrics. Used by
// the executor after copying results back, and by tests to check GPU reductions.
// Pure functions; thread-safe (compareOutputs may use worker threads of its own).
#include <cstdint>
#include <span>

#include "problems/output_metrics_types.h"
#include "problems/tolerance_policy.h"

namespace kwb {

// Large outputs are scanned by several threads in fixed 1M-element chunks whose
// sums are merged in order: the result is the same whatever the thread count.
OutputMetrics compareOutputs(std::span<const float> out, std::span<const float> ref, ToleranceValues tol);

// Would an all-zeros output pass allclose against this reference?
bool zerosPassAllclose(std::span<const float> ref, ToleranceValues tol);
// Would an output filled with `value` pass? The second trivial answer of zero
// acceptance (value = the reference's mean). Same convention as isClose.
bool constantPassesAllclose(std::span<const float> ref, float value, ToleranceValues tol);

// The same test for one pair, as torch.isclose(equal_nan=False) on float32.
bool isClose(float out, float ref, ToleranceValues tol);

// Conversions for half-precision outputs copied back as raw bits.
float halfToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

} // namespace kwb
