#pragma once
// kwb zeros: run KernelBench problems' references through the PyTorch bridge
// (request kind "zero_probe", app/runner/bridge/kwb_zero_probe.py) and collect
// the zero-acceptance rows (analysis/zero_acceptance.h) core decided on the
// device's outputs. One bridge process serves the problems one after another;
// a crash or a problem past its time budget costs that problem's row only (a
// fresh bridge starts for the next). Blocks the calling thread.
#include <functional>
#include <string>
#include <vector>

#include "analysis/zero_acceptance.h"
#include "base/status.h"
#include "rerun/kernelbench_sample.h"

namespace kwb {

struct ZeroJob {
    std::string path;    // the problem file
    std::string version; // the folder above KernelBench/ (v0, current), else above levelN/
    int level = 0;       // from a levelN folder; 0 when none
    std::string problem; // the file's stem
};

// Problem files (*.py) of the inputs: files as given, folders walked
// recursively; `levels` (empty: all) keeps only those levels. Sorted by
// level, version, problem number. NotFound for an input that does not exist.
Result<std::vector<ZeroJob>> listZeroJobs(const std::vector<std::string>& inputs, const std::vector<int>& levels);

struct ZeroRunOptions {
    TorchBridgeCommand bridge;
    int seed = 42;
    double timeoutS = 60.0;  // per problem
    std::function<void(const ZeroAcceptanceRow& row, std::size_t done, std::size_t total)> onRow;
};

struct ZeroRunResult {
    std::vector<ZeroAcceptanceRow> rows;
    std::string device;     // the bridge's device name
    std::string runnerVersion;
};

// Unavailable (with the bridge's reason) when it sees no usable GPU.
Result<ZeroRunResult> runZeroProbes(const std::vector<ZeroJob>& jobs, const ZeroRunOptions& options);

// A row from the bridge's reply line (outputs combined by core). Exposed for tests.
Result<ZeroAcceptanceRow> zeroRowFromReply(const std::string& line, const ZeroJob& job);

} // namespace kwb
