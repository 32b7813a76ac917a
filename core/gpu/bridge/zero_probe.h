#pragma once
// Zero acceptance of one reference output on the device (kwb zeros): the
// float32 device array is copied to the host in fixed chunks, twice (values,
// then the constant-mean answer), and core's ZeroAcceptanceAccumulator decides
// every verdict, so outputs of several GB need only one chunk of host memory.
// The bridge (app/runner/bridge/kwb_zero_probe.py) reaches it through
// kwb_zero_probe_output in bridge_api.h.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/zero_acceptance.h"
#include "base/status.h"

namespace kwb::gpu {

inline constexpr std::size_t kZeroProbeChunk = std::size_t{1} << 24; // 64 MB of float32

Result<ZeroOutputStats> probeDeviceOutput(const float* data, std::int64_t count, std::vector<std::int64_t> shape,
    std::string dtype, void* stream, std::size_t chunkElements = kZeroProbeChunk);

} // namespace kwb::gpu
