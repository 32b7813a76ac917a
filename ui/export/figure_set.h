#pragma once
// The standard figure set of a project, rendered headless by `kwb figures`:
// speedup distributions (histogram, ECDF, fast_p, box), the addressable-
// fraction pies of every workload, and a coverage heatmap; each as PDF, SVG
// and PNG. Needs a QApplication (Qt Charts); touches no window.
#include <QString>
#include <QStringList>

#include "export/figure_preset.h"
#include "project/project_data.h"

namespace kwb::ui {

struct FigureSetResult {
    QStringList written; // files
    QStringList skipped; // "figure: reason" for figures the project has no data for
    QStringList errors;  // "file: reason"
};

// `heatmapRecordId`: the record whose grid the heatmap shows; empty = heatmapRecord().
FigureSetResult renderStandardFigures(const ProjectData& data, const FigurePreset& preset, const QString& outDir,
    const QString& heatmapRecordId = {});

// The record whose coverage grid the heatmap figure shows by default: the
// highest-ranked flagged record whose grid has both written and unwritten
// tiles (the picture shows where), else the highest-ranked flagged record with
// a grid, else any record with a grid; -1 when none.
int heatmapRecord(const ProjectData& data);

} // namespace kwb::ui
