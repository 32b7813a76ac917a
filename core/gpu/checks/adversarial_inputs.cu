#include "gpu/checks/adversarial_inputs.h"

#include <algorithm>

#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

__device__ inline std::uint64_t mix64(std::uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

__global__ void valueSetKernel(float* data, std::int64_t n, int set, float scale, float value, std::uint64_t seed)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        float x = data[i];
        switch (set) {
        case 0: x *= scale; break;
        case 1: x *= 8.673617379884035e-19f; break; // 2^-60
        case 2: x *= ((i >> 10) & 1) ? 1e-3f : 1e3f; break;
        case 3: x = value; break;
        case 4: x = (mix64(seed ^ static_cast<std::uint64_t>(i)) & 1) ? -x : x; break;
        }
        data[i] = x;
    }
}

} // namespace

const std::vector<ValueSet>& allValueSets()
{
    static const std::vector<ValueSet> sets{ValueSet::NearMax, ValueSet::NearZero, ValueSet::MixedScale,
        ValueSet::AllEqual, ValueSet::Signed};
    return sets;
}

std::string_view valueSetName(ValueSet set)
{
    switch (set) {
    case ValueSet::NearMax: return "near_max";
    case ValueSet::NearZero: return "near_zero";
    case ValueSet::MixedScale: return "mixed_scale";
    case ValueSet::AllEqual: return "all_equal";
    case ValueSet::Signed: return "signed";
    }
    return "?";
}

Status applyValueSet(float* data, std::int64_t elements, ValueSet set, double scale, float value, std::uint64_t seed,
    cudaStream_t stream)
{
    if (elements <= 0) return Status::ok();
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>((elements + 255) / 256, 4096));
    valueSetKernel<<<grid, 256, 0, stream>>>(data, elements, static_cast<int>(set), static_cast<float>(scale), value, seed);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

} // namespace kwb::gpu
