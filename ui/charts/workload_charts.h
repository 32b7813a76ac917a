#pragma once
// Pies of GPU time by kernel category, per workload: addressable categories
// (kernels a generated kernel could replace) are pulled out of the pie and
// drawn in warm colours; vendor-library categories stay in, in cool colours.
#include <QColor>
#include <QMap>
#include <QString>

#include "charts/figure_style.h"
#include "project/project_data.h"

class QChart;
class QPainter;

namespace kwb::ui {

// One colour per category over all workloads, so small multiples agree.
QMap<QString, QColor> categoryColors(const std::vector<WorkloadSummary>& workloads);

// Slices under `minShare` are merged into "other (addressable)" and "other".
QChart* buildWorkloadPie(const WorkloadSummary& w, const QMap<QString, QColor>& colors, const FigureStyle& style,
    bool legend, double minShare = 0.01);

// One workload's pie with its legend, as on screen, under its whole title
// (drawn by the painter and wrapped: Qt Charts elides a title that does not fit).
void paintWorkloadPie(QPainter& painter, const QRectF& rect, const WorkloadSummary& w,
    const QMap<QString, QColor>& colors, const FigureStyle& style);

// Small multiples: every workload's pie in a grid, one shared legend below.
// Every pie has the same size: titles sit in a band as tall as the tallest one,
// so a title that wraps does not shrink its pie (area must not read as magnitude).
void paintWorkloadPies(QPainter& painter, const QRectF& rect, const std::vector<WorkloadSummary>& workloads,
    const FigureStyle& style);

// Renders a chart into a painter: the chart is laid out at rect's size in
// layout pixels and painted through its scene. Takes ownership of the chart.
void paintChart(QPainter& painter, const QRectF& rect, QChart* chart);

} // namespace kwb::ui
