#pragma once
// Per-pixel-column decimation: a chart never gets more points than it can
// draw. For each column keeps the first, lowest, highest and last point, so
// the drawn polyline is the same as with every point.
#include <QList>
#include <QPointF>

namespace kwb::ui {

// `points` sorted by x. Columns span [xMin, xMax] (log-spaced when logX; then
// points with x <= 0 are dropped). Returns the points unchanged when there
// are fewer than 4 per column.
QList<QPointF> decimatePerColumn(const QList<QPointF>& points, double xMin, double xMax, int columns, bool logX);

} // namespace kwb::ui
