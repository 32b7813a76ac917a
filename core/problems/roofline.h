#pragma once
// Roofline floor: the least time a problem's work can take on a device, from
// its FLOP and byte counts and the device's peaks. A measured time below the
// floor means the candidate skipped work (or the counts are wrong).
#include <optional>

namespace kwb {

struct DevicePeaks {
    double flopsPerSecond = 0.0;  // peak for the problem's precision; 0 = unknown
    double bytesPerSecond = 0.0;  // DRAM bandwidth; 0 = unknown
};

// max(flops / peak FLOP/s, bytes / bandwidth) in milliseconds; nullopt when
// neither term is known. Unknown or non-positive terms are left out.
std::optional<double> rooflineFloorMs(std::optional<double> flops, std::optional<double> bytes,
    const DevicePeaks& peaks);

} // namespace kwb
