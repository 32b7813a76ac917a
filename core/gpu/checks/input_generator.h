#pragma once
// Input tensors generated on the GPU with a counter-based hash RNG (no
// cuRAND state): element i of a tensor depends only on (seed, i), so the same
// seed gives the same tensor on any launch configuration. Uniform is like
// torch.rand on [low, high); Normal uses Box-Muller; RandInt draws integers
// in [low, high). And a 64-bit content hash of device buffers, to see whether
// a candidate changed its inputs.
//
// Thread: executor thread; work is enqueued on `stream`.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "base/status.h"
#include "gpu/device/elem_type.h"

namespace kwb::gpu {

enum class GenDistribution : std::uint8_t { Uniform, Normal, RandInt, Constant, Pareto };

struct GenParams {
    GenDistribution distribution = GenDistribution::Uniform;
    double low = 0.0;
    double high = 1.0;
    double mean = 0.0;
    double stddev = 1.0;
    double value = 0.0;
    double scale = 1.0; // pareto
    double alpha = 1.0; // pareto
    std::uint64_t seed = 0;
};

// Seed of tensor `tensorIndex` in trial `trial` derived from a base seed.
std::uint64_t deriveSeed(std::uint64_t base, std::uint64_t trial, std::uint64_t tensorIndex);

Status generateTensor(void* data, std::int64_t elements, ElemType type, const GenParams& params, cudaStream_t stream);
// Loads every element type's generator kernel (empty launches; synchronises
// `stream`). CUDA loads kernels lazily, and loading one waits for the whole
// context: a first generateTensor behind the timer's batch gate waits for the
// gate, which waits for the host (500 ms and the gate gives up). A process that
// refreshes inputs inside a timed loop, and generated none before, loads first.
Status loadGenerators(cudaStream_t stream);

// Converts `elements` values of `type` to float32 (for comparison and fp32 references).
Status convertToFloat(const void* src, float* dst, std::int64_t elements, ElemType type, cudaStream_t stream);
// Converts float32 to `type` (round to nearest even).
Status convertFromFloat(const float* src, void* dst, std::int64_t elements, ElemType type, cudaStream_t stream);

// Order-dependent 64-bit hash of `bytes` bytes; synchronises `stream`.
// `scratch` must point to 8 bytes of device memory.
Result<std::uint64_t> hashDeviceBytes(const void* data, std::int64_t bytes, unsigned long long* scratch,
    cudaStream_t stream);
std::string hashHex(std::uint64_t h);

} // namespace kwb::gpu
