#pragma once
// Tolerances a problem's allclose uses, from its TolerancePolicy.
#include <string_view>

#include "problems/problem_spec.h"

namespace kwb {

struct ToleranceValues {
    double atol = 0.0;
    double rtol = 0.0;
};

// KernelBench (src/kernelbench/eval.py, get_tolerance_for_precision):
// fp32 1e-4, fp16 1e-2, bf16 1e-2, used as both atol and rtol.
inline constexpr double kKernelBenchTolFp32 = 1e-4;
inline constexpr double kKernelBenchTolHalf = 1e-2;
// KernelBench's earlier eval used atol = rtol = 1e-2 for every precision.
inline constexpr double kKernelBenchLegacyTol = 1e-2;

ToleranceValues resolveTolerance(const TolerancePolicy& policy, DType precision);
const char* tolerancePolicyName(TolerancePolicy::Kind kind); // "kernelbench", "kernelbench_legacy", "explicit"

} // namespace kwb
