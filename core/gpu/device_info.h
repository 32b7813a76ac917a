#pragma once
// What the re-run engine needs to know about the GPU it runs on: identity,
// versions, and the peak rates that bound a roofline floor.
#include <cstdint>
#include <string>

#include "base/status.h"

namespace kwb::gpu {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    std::string uuid;
    int ccMajor = 0;
    int ccMinor = 0;
    int smCount = 0;
    int smClockKHz = 0;       // max SM clock
    int memClockKHz = 0;      // max memory clock
    int memBusWidthBits = 0;
    std::int64_t l2Bytes = 0;
    std::int64_t totalMemBytes = 0;
    int driverVersion = 0;    // e.g. 13000
    int runtimeVersion = 0;
    std::string driverVersionText; // "580.159.04" when NVML-free lookup succeeds, else empty
    // Datasheet-style estimates from the clocks; measured figures may replace them.
    double peakBandwidthBytesPerS = 0;   // 2 (DDR) * memClock * busWidth / 8
    double peakFp32FlopPerS = 0;         // SMs * 128 FMA lanes * 2 * clock
    double peakTensorFp16FlopPerS = 0;   // dense fp16/bf16 tensor core estimate
    double peakTensorTf32FlopPerS = 0;

    std::string archName() const { return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor); }
    std::string toJson() const;
};

// Number of CUDA devices; 0 (not an error) when there is no driver or no GPU.
int deviceCount(std::string* whyNone = nullptr);

// Selects `ordinal`, creates its primary context and describes it.
Result<DeviceInfo> openDevice(int ordinal);

} // namespace kwb::gpu
