#include "problems/roofline.h"

#include <algorithm>

namespace kwb {

std::optional<double> rooflineFloorMs(std::optional<double> flops, std::optional<double> bytes, const DevicePeaks& peaks)
{
    std::optional<double> floorS;
    if (flops && *flops > 0 && peaks.flopsPerSecond > 0) floorS = *flops / peaks.flopsPerSecond;
    if (bytes && *bytes > 0 && peaks.bytesPerSecond > 0) {
        const double t = *bytes / peaks.bytesPerSecond;
        floorS = floorS ? std::max(*floorS, t) : t;
    }
    if (!floorS) return std::nullopt;
    return *floorS * 1e3;
}

} // namespace kwb
