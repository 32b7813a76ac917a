#pragma once
// Build lanes: the build pool's long-lived workers. A lane is one process
// (`kwb_torch_bridge.py --build-serve`) that reads a sample path per line on
// stdin and answers a JSON line per sample on stdout ({"path", "ok",
// "cache_hit", "seconds", "error"}). A per-sample process paid the judge's
// start and its worker's (two `import torch`, 9 s of a 37 s cold build on the
// H200 machine); a lane pays the first once and starts each next worker while
// the current sample builds.
//
// A lane that dies, breaks the protocol or overruns a sample's timeout is
// killed with its process group (the compilers too) and replaced; its sample
// fails with the lane's log. Lanes run niced like the per-process pool.
//
// Thread: runLanes blocks its caller; onDone runs on it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/progress.h"

namespace kwb::workbench {

struct LaneResult {
    bool ok = false;
    bool cacheHit = false;
    bool timedOut = false;
    bool cancelled = false; // never sent, or killed, because the pool was cancelled
    double seconds = 0.0;   // from sending the path to the answer (or the kill)
    std::string log;        // the lane's error text for this input, else its stderr while it ran (tail)
};

using LaneDone = std::function<void(std::size_t input, const LaneResult& result)>;

// The bytes of the file at `path` from byte `from` on, at most the last `maxBytes` ("" when unreadable).
std::string readLogFrom(const std::string& path, std::uintmax_t from, std::size_t maxBytes);

// How much builds are niced: KWB_BUILD_NICE (0-19), default 10 (build_pool.h says why).
int buildNiceness();

// Sends every input (one line each, no newlines inside) to one of `lanes`
// processes running `argv` (argv[0] an executable path), at most one input per
// lane at a time. `progress` reports {"build", answered, total}.
std::vector<LaneResult> runLanes(const std::vector<std::string>& argv, const std::vector<std::string>& inputs,
    int lanes, double timeoutS, const TaskContext& ctx = {}, const LaneDone& onDone = {});

} // namespace kwb::workbench
