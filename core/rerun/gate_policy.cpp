#include "rerun/gate_policy.h"

#include <algorithm>

namespace kwb {

GateDecision afterGateGaveUp(int batch, int blockedAt)
{
    batch = std::max(batch, 1);
    if (blockedAt == 0) return {false, 1};                          // the first call already waited: it waits on the GPU
    if (blockedAt > 0) return {true, std::min(blockedAt, batch)};  // the trials that fitted before the queue filled
    if (batch == 1) return {false, 1};                              // a slow host even for one trial
    return {true, batch / 2};
}

int batchLastTrial(int start, int batch, int trials, int alignment)
{
    alignment = std::max(alignment, 1);
    const int aligned = (start / alignment + 1) * alignment - 1; // the full batch's end at or after start
    return std::min({start + std::max(batch, 1) - 1, aligned, trials - 1});
}

} // namespace kwb
