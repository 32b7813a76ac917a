#pragma once
// OutputMetrics, the value type of the output comparison, without the
// tolerance-policy and spec headers (and their JSON): CUDA sources and the
// protocol's value types include it (problems/output_metrics.h computes it).
#include <cstdint>

namespace kwb {

struct OutputMetrics {
    std::int64_t count = 0;
    // torch.allclose(out, ref, atol, rtol, equal_nan=False): every element has
    // out == ref, or both finite and |out - ref| <= atol + rtol * |out| (torch.allclose(ref, out)),
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

} // namespace kwb
