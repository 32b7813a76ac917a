#pragma once
// DeviceMetrics: the executor's output checks computed on the GPU, so that a
// candidate's 1e9-element output need not travel to the host. compare() gives
// the same numbers as kwb::compareOutputs (problems/output_metrics.h) and
// zerosPassAllclose in one pass over (out, ref); countDiffering() is the
// bitwise determinism comparison of two runs' outputs.
//
// Exactness: the isclose test is the host's float32 arithmetic with
// explicitly rounded operations (no contraction into FMA), so pass/fail,
// every count, the first mismatch and the maximum error are bit-identical to
// the host's. The sums of squares are reduced in double in a fixed order
// (per thread, then a shared-memory tree per block, then the blocks in order
// on the host): deterministic, equal to the host's sequential sums to about
// 1e-15 relative.
//
// Thread: one instance per thread; work is enqueued on `stream`, and each call
// synchronises it to return its result.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "problems/output_metrics_types.h"

namespace kwb::gpu {

// compare()'s answer: the host's OutputMetrics and zero acceptance, from one pass.
struct DeviceComparison {
    OutputMetrics metrics;
    // Would an all-zeros output pass allclose against `ref` (zerosPassAllclose)?
    bool zerosPass = false;
};

class DeviceMetrics {
public:
    DeviceMetrics() = default;
    ~DeviceMetrics();
    DeviceMetrics(const DeviceMetrics&) = delete;
    DeviceMetrics& operator=(const DeviceMetrics&) = delete;

    // `out` and `ref` hold `count` float32 values on the device (any alignment).
    // atol/rtol as in ToleranceValues; they are rounded to float32 as the host does.
    Result<DeviceComparison> compare(const float* out, const float* ref, std::int64_t count, double atol,
        double rtol, cudaStream_t stream);

    // Number of elements of `elemBytes` bytes (1, 2, 4 or 8) whose bits differ
    // between the device buffers `a` and `b` of `count` elements each.
    Result<std::int64_t> countDiffering(const void* a, const void* b, std::int64_t count, int elemBytes,
        cudaStream_t stream);

    // The same over the elements both runs wrote: those where `a` differs
    // from `sentinelA` and `b` from `sentinelB` (the low elemBytes bytes of
    // each), for two runs that started from different sentinel prefills.
    Result<std::int64_t> countDifferingWritten(const void* a, const void* b, std::int64_t count, int elemBytes,
        std::uint64_t sentinelA, std::uint64_t sentinelB, cudaStream_t stream);

private:
    Status ensureScratch();
    Result<std::int64_t> differing(const void* a, const void* b, std::int64_t count, int elemBytes,
        const std::uint64_t* sentinels, cudaStream_t stream);

    int m_blocks = 0;                         // reduction grid size (fixed per device)
    unsigned long long* m_counters = nullptr; // device: counts, first mismatch, max error bits
    double* m_partials = nullptr;             // device: 3 sums per block
    std::vector<double> m_hostPartials;
};

} // namespace kwb::gpu
