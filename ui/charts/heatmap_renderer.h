#pragma once
// Coverage heatmaps as images: a grid of written fractions becomes a
// Format_Indexed8 QImage with the viridis colour table (one pixel per tile),
// painted with nearest-neighbour scaling, a colour legend and tile labels.
// Grids up to 4096x4096 are one 16 MiB image; nothing is drawn per tile.
#include <QImage>
#include <QRectF>
#include <QString>

#include <optional>
#include <vector>

#include "charts/figure_style.h"
#include "records/eval_record.h"

class QPainter;

namespace kwb::ui {

inline constexpr int kMaxHeatmapSide = 4096;

struct HeatmapData {
    int rows = 0;
    int cols = 0;
    QImage image;              // cols x rows, Indexed8, viridis; empty when there is no grid
    std::vector<float> values; // row-major written fractions
    qint64 totalElements = -1; // of the output the grid covers; -1 unknown
    double writtenFraction = -1; // overall; -1 unknown
    QString title;

    bool isNull() const { return rows <= 0 || cols <= 0 || image.isNull(); }
    // Tile t covers elements [t*tileElements, ...) of the flattened output.
    qint64 tileElements() const;
};

struct TileInfo {
    int row = 0;
    int col = 0;
    qint64 firstElement = -1; // -1 when the output size is unknown
    qint64 endElement = -1;   // exclusive
    double writtenFraction = 0;
};

// Grids larger than kMaxHeatmapSide per side are refused (empty result).
HeatmapData makeHeatmap(const CoverageGrid& grid, const std::optional<Coverage>& coverage, const QString& title);
std::optional<TileInfo> tileInfo(const HeatmapData& data, int row, int col);
QString describeTile(const TileInfo& tile);
// Colour-table index of a written fraction.
int heatmapIndex(float fraction);

// Paints into `rect`: title, the cells in `visibleCells` (grid coordinates:
// x = column, y = row; a null rect = the whole grid), tile labels and the
// colour legend. Returns the plot area, for mapping mouse positions.
QRectF paintHeatmap(QPainter& painter, const QRectF& rect, const HeatmapData& data, QRectF visibleCells,
    const FigureStyle& style);

} // namespace kwb::ui
