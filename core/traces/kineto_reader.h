#pragma once
// Streaming reader of PyTorch profiler (Kineto) Chrome-trace JSON, plain or
// gzip. The document is never held whole: plain files are mapped and scanned
// in place (pages behind the scan are released), gzip is inflated in chunks
// (base/byte_stream.h), and events are scanned one by one with the
// format-agnostic scanner of base/json_scanner.h; this file holds only the
// Kineto semantics. Memory stays near the size of the resulting tables: one
// unit (an event, or a skipped value) is buffered at most, and no more than
// KWB_MAX_TRACE_UNIT_MB of it (docs/reliability.md lists every limit).
//
// Accepted as real PyTorch versions write it: "traceEvents" anywhere in the
// top-level object (or a bare event array), integer, fractional or exponent
// µs timestamps, old ("Kernel", "Operator", "Runtime") and new ("kernel",
// "cpu_op", "cuda_runtime") categories, integer or string pid/tid, integers
// beyond int64 (read as unknown), invalid UTF-8 and raw control characters in
// strings (kept as bytes), a gzip file with zero padding after its data.
// Malformed JSON anywhere (skipped values included: NaN, a missing colon or
// comma, a leading zero) or a truncated file fails with the byte offset and
// line:column; an event that is well-formed JSON but unusable (a kernel
// without "dur", a "ts" that is not a number, a time outside ±4e15 µs, a
// non-object in traceEvents) is counted in the report and skipped, with its
// position and member.
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
