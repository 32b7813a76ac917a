#pragma once
// `kwb figures --preset paper`: the paper's figure set (issue 16 item 5, issue
// 13 item 5) from a project and the paper datasets beside it — the speedup
// distribution per model configuration, the addressable-fraction pies, the
// scale sweep, the zero-acceptance table, the coverage heatmap of a
// partial-write kernel, and claimed against re-measured speedup — each as
// PDF, SVG and PNG at single-column (3.5 in) and double-column (7 in) width,
// through the same offscreen painters as the window's views.
#include <QString>

#include "export/figure_set.h"
#include "project/project_data.h"

namespace kwb::ui {

// A paper dataset (e.g. "zero_acceptance/zero_acceptance_levels.jsonl") beside
// the project's file, else in the checkout's datasets/; "" when neither has it.
QString paperDataPath(const Project& project, const QString& relative);

// Figure names: speedup_by_model, addressable_pies, scale_sweep, zero_acceptance,
// coverage_partial_write, claims_scatter; files NAME_single.{pdf,svg,png} and NAME_double.*.
FigureSetResult renderPaperFigures(const ProjectData& data, const QString& outDir);

// The record the partial-write heatmap shows: a record whose id or problem
// says partial_write with a grid, else heatmapRecord(); -1 when none.
int partialWriteRecord(const ProjectData& data);

} // namespace kwb::ui
