#pragma once
// Host-side comparison of a candidate's output with the reference output:
// KernelBench's check (torch.allclose) plus scale-invariant metrics. Used by
// the executor after copying results back, and by tests to check GPU reductions.
// Pure functions; thread-safe (compareOutputs may use worker threads of its own).
#include <cstdint>
#include <span>

#include "problems/tolerance_policy.h"

namespace kwb {

struct OutputMetrics {
    std::int64_t count = 0;
    // torch.allclose(out, ref, atol, rtol, equal_nan=False): every element has
    // out == ref, or both finite and |out - ref| <= atol + rtol * |ref|,
    // evaluated in float32 as torch does for float32 tensors.
    bool allclose = false;
    std::int64_t outOfTolerance = 0;   // elements failing that test
    double outOfToleranceShare = 0.0;  // outOfTolerance / count
    std::int64_t firstMismatch = -1;   // flat index, -1 = none
    double maxAbsError = 0.0;          // over finite pairs
    double relL2Error = 0.0;           // ||out - ref||_2 / ||ref||_2 over finite pairs (inf when ref is 0 and out is not)
    double refRms = 0.0;               // sqrt(mean(ref^2)) over finite reference values
    double maxErrorOverRefRms = 0.0;   // maxAbsError / refRms (inf when refRms is 0 and error is not)
    std::int64_t nanCount = 0;         // in the candidate output
    std::int64_t infCount = 0;
    std::int64_t refNanCount = 0;      // in the reference output
    std::int64_t refInfCount = 0;
};

// Large outputs are scanned by several threads in fixed 1M-element chunks whose
// sums are merged in order: the result is the same whatever the thread count.
OutputMetrics compareOutputs(std::span<const float> out, std::span<const float> ref, ToleranceValues tol);

// Would an all-zeros output pass allclose against this reference?
bool zerosPassAllclose(std::span<const float> ref, ToleranceValues tol);

// The same test for one pair, as torch.isclose(equal_nan=False) on float32.
bool isClose(float out, float ref, ToleranceValues tol);

// Conversions for half-precision outputs copied back as raw bits.
float halfToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

} // namespace kwb
