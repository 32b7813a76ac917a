#pragma once
// Reader of Nsight Systems SQLite exports (`nsys export --type sqlite`).
// nsys has changed its schema across versions, so the reader probes which
// tables and columns exist instead of assuming one version:
// - CUPTI_ACTIVITY_KIND_KERNEL (required): start, end, deviceId, streamId,
//   correlationId, grid/block dims; the name from demangledName, shortName,
//   mangledName or name, joined through StringIds when it is an id.
// - CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET (optional): named "Memcpy HtoD",
//   "Memset" and so on from copyKind.
// - CUPTI_ACTIVITY_KIND_RUNTIME and NVTX_EVENTS (optional): NVTX ranges
//   become annotations, runtime calls link kernels (by correlationId) to the
//   innermost range open on the launching thread (torch.autograd.emit_nvtx
//   names ranges after operators).
// - TARGET_INFO_GPU (optional): device properties.
// Missing optional tables are noted in the report; a missing kernel table or
// a file that is not SQLite is an error naming the file and the reason.
#include <string>

#include "base/progress.h"
#include "base/status.h"
#include "traces/trace.h"

namespace kwb {

// `name` overrides the workload name taken from the file name.
Result<TracePtr> readNsysSqlite(const std::string& path, const TaskContext& ctx = {}, const std::string& name = {});

} // namespace kwb
