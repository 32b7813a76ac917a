#pragma once
// Builds the speedup-distribution charts (Qt Charts) from DistributionData:
// the same builder serves the screen and every export format.
#include <QString>

#include "charts/distribution_data.h"
#include "charts/figure_style.h"

class QChart;
class QAbstractSeries;

namespace kwb::ui {

enum class DistributionKind { Histogram, Ecdf, FastP, Box };

QString distributionKindName(DistributionKind kind); // "histogram", "ecdf", "fastp", "box"
bool distributionKindFromName(const QString& name, DistributionKind* kind);
QString distributionKindTitle(DistributionKind kind);

// Every data series carries its group index in the dynamic property
// kGroupProperty (reference lines carry -1), for hover and click handling.
inline constexpr const char* kGroupProperty = "kwbGroup";

// `histogram` is used for DistributionKind::Histogram (compute it once with
// computeLogHistogram). `plotWidthPx` bounds the points per series
// (decimation per pixel column). The caller owns the chart.
QChart* buildDistributionChart(const DistributionData& data, const LogHistogram& histogram, DistributionKind kind,
    const FigureStyle& style, int plotWidthPx);

// The fast_p chart's p range: up to the 95th percentile of speedups, at least 2.
double fastPAxisMax(const DistributionData& data);

} // namespace kwb::ui
