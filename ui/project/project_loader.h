#pragma once
// Loads everything a project lists: records, traces (with their breakdowns
// under the project's rule table) and problem suites. Synchronous: the window
// runs it through QtConcurrent, `kwb figures` and screenshots call it directly.
//
// Thread: any (touches no widgets). Never fails as a whole: missing folders,
// unreadable files and bad records become messages in ProjectData::messages,
// each naming the file and the reason; what loads is shown.
#include "base/progress.h"
#include "project/project_data.h"

namespace kwb::ui {

// `previous` (optional): the data shown now. Record files and traces it
// already read, unchanged on disk and under the same rules, are taken from it
// instead of being read again (adding or removing one input).
ProjectDataPtr loadProjectData(const Project& project, const TaskContext& ctx = {}, ProjectDataPtr previous = {});

// The projections of every workload over only these records (indexes into
// data.records; null: all), as the load computes them (core's projectWorkload,
// the project's rule table): the Workloads view follows the Records filters.
// Empty when the rule table cannot be read. Thread: any.
std::vector<ProjectionSummary> projectRecordSubset(const ProjectData& data, const std::vector<int>* subset);

// Background work yields the CPU to the GUI thread: on Linux the calling
// (pool) thread gets nice +10. Call at the start of thread-pool tasks only.
void lowerCurrentThreadPriority();

// Whether this build reads profiler traces (core/traces is part of it).
bool buildHasTraces();

} // namespace kwb::ui
