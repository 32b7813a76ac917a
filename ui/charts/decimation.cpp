#include "charts/decimation.h"

#include <cmath>

namespace kwb::ui {

QList<QPointF> decimatePerColumn(const QList<QPointF>& points, double xMin, double xMax, int columns, bool logX)
{
    if (columns <= 0 || points.size() <= 4 * columns) return points;
    if (logX && (xMin <= 0 || xMax <= 0)) return points;
    const double lo = logX ? std::log10(xMin) : xMin;
    const double hi = logX ? std::log10(xMax) : xMax;
    const double span = hi > lo ? hi - lo : 1.0;
    QList<QPointF> out;
    out.reserve(4 * columns + 4);
    qsizetype i = 0;
    const qsizetype n = points.size();
    while (i < n) {
        if (logX && points[i].x() <= 0) {
            ++i;
            continue;
        }
        const auto columnOf = [&](double x) {
            const double v = logX ? std::log10(x) : x;
            return static_cast<long long>(std::floor((v - lo) / span * columns));
        };
        const long long col = columnOf(points[i].x());
        qsizetype first = i;
        qsizetype minI = i;
        qsizetype maxI = i;
        qsizetype j = i + 1;
        while (j < n && columnOf(points[j].x()) == col) {
            if (points[j].y() < points[minI].y()) minI = j;
            if (points[j].y() > points[maxI].y()) maxI = j;
            ++j;
        }
        const qsizetype last = j - 1;
        // Emit in x order, without duplicates.
        qsizetype picks[4] = {first, std::min(minI, maxI), std::max(minI, maxI), last};
        qsizetype prev = -1;
        for (qsizetype p : picks) {
            if (p != prev && p >= first) {
                if (p > prev) out.push_back(points[p]);
                prev = std::max(prev, p);
            }
        }
        i = j;
    }
    return out;
}

} // namespace kwb::ui
