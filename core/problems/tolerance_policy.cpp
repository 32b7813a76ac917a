#include "problems/tolerance_policy.h"

namespace kwb {

ToleranceValues resolveTolerance(const TolerancePolicy& policy, DType precision)
{
    switch (policy.kind) {
    case TolerancePolicy::Kind::Explicit: return {policy.atol, policy.rtol};
    case TolerancePolicy::Kind::KernelBenchLegacy: return {kKernelBenchLegacyTol, kKernelBenchLegacyTol};
    case TolerancePolicy::Kind::KernelBench: break;
    }
    const double tol = (precision == DType::F16 || precision == DType::BF16) ? kKernelBenchTolHalf : kKernelBenchTolFp32;
    return {tol, tol};
}

const char* tolerancePolicyName(TolerancePolicy::Kind kind)
{
    switch (kind) {
    case TolerancePolicy::Kind::KernelBench: return "kernelbench";
    case TolerancePolicy::Kind::KernelBenchLegacy: return "kernelbench_legacy";
    case TolerancePolicy::Kind::Explicit: return "explicit";
    }
    return "kernelbench";
}

} // namespace kwb
