#pragma once
// The optional compute-sanitizer pass (issue 12: memory errors that happen to
// pass): kwb-runner re-executes the request's coverage and correctness runs in
// a child `compute-sanitizer --tool T <kwb-runner> --correctness-only`, fed
// the same request on stdin, and reads the tool's report from a log file (the
// child's protocol output is discarded: only the report counts). The parser is
// separate so that it can be tested on recorded reports without a GPU.
//
// Thread: the executor thread (the child is waited for).
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rerun/protocol.h"

namespace kwb::gpu {

// compute-sanitizer: $KWB_COMPUTE_SANITIZER, next to nvcc ($CUDA_HOME/bin,
// /usr/local/cuda/bin), else on PATH. Empty when not found.
std::string computeSanitizerPath();

// One tool's log: "========= ERROR SUMMARY: N errors" gives the count; the
// first report is the first "=========" block that names an error (trimmed).
SanitizerReport parseSanitizerLog(std::string_view tool, std::string_view log);

// One tool's report from a run under it: the log parsed. A program under the
// tool that did not answer (`answered` false: no result line, a dead worker)
// keeps the errors its log names (the errors may be why it died); with none,
// it is errors = -1 with `detail` and the log's tail, so that "did not run"
// never reads as "no errors". Used by this pass and by the bridge's
// (KernelBench samples: the candidate worker under the tool).
SanitizerReport sanitizerReportOfRun(std::string_view tool, std::string_view log, bool answered,
    std::string_view detail);

// Runs `request` (coverage + correctness only) under each of its options'
// sanitize tools with `runnerPath` (normally /proc/self/exe). A tool that
// cannot be run is a report with errors = -1 and the reason as first_report.
std::vector<SanitizerReport> runSanitizerPass(const RerunRequest& request, const std::string& runnerPath,
    double timeoutS);

} // namespace kwb::gpu
