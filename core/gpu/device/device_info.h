#pragma once
// The GPU the re-run engine runs on, described as the protocol's DeviceInfo
// (rerun/rerun_types.h): identity, versions, and the peak rates that bound a
// roofline floor (datasheet-style estimates from the clocks).
#include <string>

#include "base/status.h"
#include "rerun/rerun_types.h"

namespace kwb::gpu {

// Number of CUDA devices; 0 (not an error) when there is no driver or no GPU.
int deviceCount(std::string* whyNone = nullptr);

// Selects `ordinal`, creates its primary context and describes it.
Result<DeviceInfo> openDevice(int ordinal);

// "sm_90" for compute capability 9.0.
std::string archName(const DeviceInfo& d);

// The kernel driver's version text ("580.159.04") read without NVML, or empty.
std::string kernelDriverVersion();

} // namespace kwb::gpu
