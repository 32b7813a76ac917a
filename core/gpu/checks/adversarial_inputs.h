#pragma once
// Adversarial value sets (issue 12: inputs that hide bugs): transforms of a
// float32 tensor generated from the spec's distribution, in place. torch.rand
// inputs make wrong kernels look right (ReLU is the identity on [0,1)); these
// sets do not:
//   near_max     x * scale (the caller picks the largest scale whose reference stays finite)
//   near_zero    x * 2^-60
//   mixed_scale  blocks of 1024 elements alternately x * 1e3 and x * 1e-3
//   all_equal    every element = `value`
//   signed       each element's sign flipped by a hash of (seed, i)
//
// Thread: executor thread; work is enqueued on `stream`.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kwb::gpu {

enum class ValueSet : std::uint8_t { NearMax, NearZero, MixedScale, AllEqual, Signed };

const std::vector<ValueSet>& allValueSets();
std::string_view valueSetName(ValueSet set); // "near_max", ...

// `scale` is used by NearMax, `value` by AllEqual, `seed` by Signed.
Status applyValueSet(float* data, std::int64_t elements, ValueSet set, double scale, float value, std::uint64_t seed,
    cudaStream_t stream);

} // namespace kwb::gpu
