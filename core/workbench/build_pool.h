#pragma once
// The build pool: before the GPU work of a batch starts, every distinct
// KernelBench sample's extension is built in parallel across the machine's
// cores into the bridge's source-hash cache, so the GPU never waits on a
// compiler: by long-lived build lanes (`kwb_torch_bridge.py --build-serve`,
// workbench/build_lanes.h), or with KWB_BUILD_LANES=0 one process per sample
// (`--build FILE`, what the lanes are measured against). A sample
// whose build fails becomes a compile_error result carrying the compiler's
// first error, and is not sent to the GPU. Builds run niced (KWB_BUILD_NICE,
// default +10), so the GPU work that overlaps them is scheduled on time.
//
// Thread: runPool blocks its caller; children run in their own process
// groups and are killed on timeout or cancellation.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "rerun/kernelbench_sample.h"
#include "workbench/rerun_job.h"

namespace kwb::workbench {

// One command of a pool: argv[0] is an executable path.
struct PoolTask {
    std::vector<std::string> argv;
    double timeoutS = 900.0;
};

struct PoolTaskResult {
    int exitCode = -1;      // -1: killed (timeout, cancel) or not started
    bool timedOut = false;
    bool cancelled = false; // killed or never started because the pool was cancelled
    double seconds = 0.0;
    std::string stderrText; // at most the last 64 KiB
    std::string startError; // why it could not be started
};

using PoolTaskDone = std::function<void(std::size_t task, const PoolTaskResult& result)>;

// Runs the tasks, at most `jobs` at a time (>= 1). `progress` is called on the
// caller's thread with {"build", finished, total}, and `onDone` (optional) as
// each task ends (failed starts included). Cancellation kills running tasks
// and starts no more; their results say so.
std::vector<PoolTaskResult> runPool(const std::vector<PoolTask>& tasks, int jobs, const TaskContext& ctx = {},
    const PoolTaskDone& onDone = {});

// The compiler's first error in a build log ("file(12): error: …", "error: …"),
// else the log's last non-empty line.
std::string firstCompilerError(const std::string& log);

struct SampleBuild {
    bool ok = false;
    bool cacheHit = false;
    bool cancelled = false; // not built: the batch was interrupted (neither a failure nor a time)
    double seconds = 0.0;
    std::string error; // the first compiler error when !ok
};

struct BuildReport {
    std::size_t distinct = 0; // distinct sample sources built
    std::size_t failed = 0;     // compile errors, timeouts, failed starts
    std::size_t cancelled = 0;  // not built because the batch was interrupted
    std::size_t cacheHits = 0;
    double wallSeconds = 0.0;
    std::vector<double> buildSeconds; // per distinct sample that was built or failed, in order
    std::map<std::string, SampleBuild> bySource; // key: sampleSourceKey()
};

// The key a sample's build is filed under: a hash of its source text.
std::string sampleSourceKey(const std::string& source);

// What becomes of one sample as soon as its build ends (key: sampleSourceKey()).
using SampleBuilt = std::function<void(const std::string& key, const SampleBuild& build)>;

// The sample keys prebuildSamples() would build for `jobs`, in build order.
std::vector<std::string> sampleKeysToBuild(const std::vector<const RerunJob*>& jobs);

// Builds the KernelBench samples among `jobs` (others are ignored) with the
// bridge `command` in `workers` parallel processes. Scratch files go to
// `scratchDir` (created). `onSample` (optional) hears of each sample as its
// build ends, from the calling thread. Errors: the scratch folder cannot be written.
Result<BuildReport> prebuildSamples(const std::vector<const RerunJob*>& jobs, const TorchBridgeCommand& command,
    int workers, const std::string& scratchDir, const TaskContext& ctx = {}, const SampleBuilt& onSample = {});

} // namespace kwb::workbench
