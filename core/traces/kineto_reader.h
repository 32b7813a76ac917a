#pragma once
// Streaming reader of PyTorch profiler (Kineto) Chrome-trace JSON, plain or
// gzip. The document is never held whole: input is read (or inflated) in
// chunks of a few MB and scanned event by event with a hand-written field
// scanner, so memory stays near the size of the resulting tables.
//
// Accepted as real PyTorch versions write it: "traceEvents" anywhere in the
// top-level object (or a bare event array), integer or fractional µs
// timestamps, old ("Kernel", "Operator", "Runtime") and new ("kernel",
// "cpu_op", "cuda_runtime") categories, integer or string pid/tid, integers
// beyond int64 (read as unknown), invalid UTF-8 and raw control characters in
// strings (kept as bytes). Malformed JSON or a truncated file fails with the
// byte offset and line:column; an event that is well-formed JSON but unusable
// (say, a kernel without "dur") is counted in the report and skipped.
#include <string>
#include <string_view>

#include "base/progress.h"
#include "base/status.h"
#include "traces/trace.h"

namespace kwb {

// Reads a file; gzip is detected by its magic bytes.
// `name` overrides the workload name taken from the file name.
Result<TracePtr> readKinetoTrace(const std::string& path, const TaskContext& ctx = {}, const std::string& name = {});

// Parses bytes already in memory (plain JSON); `source` names them in errors.
Result<TracePtr> parseKinetoTrace(std::string_view json, const std::string& source, const TaskContext& ctx = {});

} // namespace kwb
