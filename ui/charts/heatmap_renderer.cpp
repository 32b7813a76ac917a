#include "charts/heatmap_renderer.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace kwb::ui {

int heatmapIndex(float fraction)
{
    if (!std::isfinite(fraction)) return 0;
    return static_cast<int>(std::lround(std::clamp(fraction, 0.0f, 1.0f) * 255.0f));
}

qint64 HeatmapData::tileElements() const
{
    const qint64 tiles = static_cast<qint64>(rows) * cols;
    if (totalElements < 0 || tiles <= 0) return -1;
    return (totalElements + tiles - 1) / tiles;
}

HeatmapData makeHeatmap(const CoverageGrid& grid, const std::optional<Coverage>& coverage, const QString& title)
{
    HeatmapData d;
    d.title = title;
    if (grid.rows <= 0 || grid.cols <= 0 || grid.rows > kMaxHeatmapSide || grid.cols > kMaxHeatmapSide) return d;
    const std::size_t n = static_cast<std::size_t>(grid.rows) * static_cast<std::size_t>(grid.cols);
    if (grid.writtenFraction.size() < n) return d;
    d.rows = grid.rows;
    d.cols = grid.cols;
    d.values.assign(grid.writtenFraction.begin(), grid.writtenFraction.begin() + static_cast<std::ptrdiff_t>(n));
    d.image = QImage(d.cols, d.rows, QImage::Format_Indexed8);
    d.image.setColorTable(viridisTable());
    for (int r = 0; r < d.rows; ++r) {
        uchar* line = d.image.scanLine(r);
        const float* v = d.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(d.cols);
        for (int c = 0; c < d.cols; ++c) line[c] = static_cast<uchar>(heatmapIndex(v[c]));
    }
    if (coverage) {
        if (coverage->totalElements) d.totalElements = *coverage->totalElements;
        if (coverage->writtenFraction) d.writtenFraction = *coverage->writtenFraction;
    }
    return d;
}

std::optional<TileInfo> tileInfo(const HeatmapData& data, int row, int col)
{
    if (row < 0 || col < 0 || row >= data.rows || col >= data.cols) return std::nullopt;
    TileInfo t;
    t.row = row;
    t.col = col;
    t.writtenFraction = data.values[static_cast<std::size_t>(row) * static_cast<std::size_t>(data.cols) +
                                    static_cast<std::size_t>(col)];
    const qint64 per = data.tileElements();
    if (per > 0) {
        const qint64 index = static_cast<qint64>(row) * data.cols + col;
        t.firstElement = std::min(index * per, data.totalElements);
        t.endElement = std::min((index + 1) * per, data.totalElements);
    }
    return t;
}

QString describeTile(const TileInfo& t)
{
    QString s = QObject::tr("tile (row %1, col %2)").arg(t.row).arg(t.col);
    if (t.firstElement >= 0)
        s += QObject::tr(", elements [%1, %2)").arg(t.firstElement).arg(t.endElement);
    s += QObject::tr(", written %1%").arg(100.0 * t.writtenFraction, 0, 'f', 2);
    return s;
}

namespace {

// Small crops are enlarged with nearest-neighbour before drawing, so PDF and
// SVG viewers (which smooth embedded images) still show sharp tiles.
void drawCells(QPainter& p, const QRectF& plot, const HeatmapData& d, const QRectF& visible)
{
    QRect crop = visible.toAlignedRect().intersected(QRect(0, 0, d.cols, d.rows));
    if (crop.isEmpty()) return;
    QImage img = d.image.copy(crop);
    double k = 1;
    const int side = std::max(crop.width(), crop.height());
    if (side < 512) {
        k = std::ceil(512.0 / side);
        img = img.scaled(static_cast<int>(crop.width() * k), static_cast<int>(crop.height() * k),
            Qt::IgnoreAspectRatio, Qt::FastTransformation);
    }
    const QRectF src((visible.x() - crop.x()) * k, (visible.y() - crop.y()) * k, visible.width() * k,
        visible.height() * k);
    p.save();
    p.setClipRect(plot);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(plot, img, src);
    // Tile borders while tiles are large enough to tell apart.
    const double cw = plot.width() / visible.width();
    const double ch = plot.height() / visible.height();
    if (cw >= 6 && ch >= 6) {
        QPen pen(QColor(255, 255, 255, 160));
        pen.setWidthF(std::min(cw, ch) > 30 ? 1.0 : 0.5);
        p.setPen(pen);
        for (int c = static_cast<int>(std::ceil(visible.left())); c <= visible.right(); ++c) {
            const double x = plot.left() + (c - visible.left()) * cw;
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        }
        for (int r = static_cast<int>(std::ceil(visible.top())); r <= visible.bottom(); ++r) {
            const double y = plot.top() + (r - visible.top()) * ch;
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        }
    }
    p.restore();
}

} // namespace

QRectF paintHeatmap(QPainter& p, const QRectF& rect, const HeatmapData& d, QRectF visible, const FigureStyle& style)
{
    p.save();
    p.fillRect(rect, style.background);
    p.setPen(style.foreground);
    const QFontMetricsF fm(style.font);
    const QFontMetricsF tfm(style.titleFont);
    double top = rect.top() + 2;
    if (!d.title.isEmpty()) {
        p.setFont(style.titleFont);
        p.drawText(QRectF(rect.left(), top, rect.width(), tfm.height()), Qt::AlignHCenter | Qt::AlignVCenter,
            tfm.elidedText(d.title, Qt::ElideMiddle, rect.width()));
        top += tfm.height() + 4;
    }
    p.setFont(style.font);
    if (d.isNull()) {
        p.drawText(rect, Qt::AlignCenter, QObject::tr("No coverage grid"));
        p.restore();
        return {};
    }
    if (visible.isNull() || visible.isEmpty()) visible = QRectF(0, 0, d.cols, d.rows);

    const double legendW = 10 + 6 + fm.horizontalAdvance(QStringLiteral("100%"));
    const double rowLabelW = fm.horizontalAdvance(QString::number(d.rows - 1)) + 6;
    const double colLabelH = fm.height() + 4;
    const double axisTitleH = fm.height() + 2;
    QRectF plot(rect.left() + axisTitleH + rowLabelW, top, rect.width() - axisTitleH - rowLabelW - legendW - 12,
        rect.bottom() - top - colLabelH - axisTitleH - 2);
    if (plot.width() < 10 || plot.height() < 10) {
        p.restore();
        return {};
    }
    drawCells(p, plot, d, visible);
    QPen frame(style.foreground);
    frame.setWidthF(std::max(0.5, style.lineWidth * 0.6));
    p.setPen(frame);
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);

    // Labels of the first and last visible row and column.
    const int r0 = std::clamp(static_cast<int>(std::floor(visible.top())), 0, d.rows - 1);
    const int r1 = std::clamp(static_cast<int>(std::ceil(visible.bottom())) - 1, 0, d.rows - 1);
    const int c0 = std::clamp(static_cast<int>(std::floor(visible.left())), 0, d.cols - 1);
    const int c1 = std::clamp(static_cast<int>(std::ceil(visible.right())) - 1, 0, d.cols - 1);
    const double ch = plot.height() / visible.height();
    const double cw = plot.width() / visible.width();
    auto rowY = [&](int r) { return plot.top() + (r + 0.5 - visible.top()) * ch; };
    auto colX = [&](int c) { return plot.left() + (c + 0.5 - visible.left()) * cw; };
    const double lh = fm.height();
    p.drawText(QRectF(plot.left() - rowLabelW - 2, rowY(r0) - lh / 2, rowLabelW, lh), Qt::AlignRight | Qt::AlignVCenter,
        QString::number(r0));
    if (r1 != r0)
        p.drawText(QRectF(plot.left() - rowLabelW - 2, rowY(r1) - lh / 2, rowLabelW, lh),
            Qt::AlignRight | Qt::AlignVCenter, QString::number(r1));
    const double cl = 60;
    p.drawText(QRectF(colX(c0) - cl / 2, plot.bottom() + 2, cl, lh), Qt::AlignHCenter | Qt::AlignTop,
        QString::number(c0));
    if (c1 != c0)
        p.drawText(QRectF(colX(c1) - cl / 2, plot.bottom() + 2, cl, lh), Qt::AlignHCenter | Qt::AlignTop,
            QString::number(c1));
    p.drawText(QRectF(plot.left(), plot.bottom() + colLabelH, plot.width(), axisTitleH), Qt::AlignHCenter | Qt::AlignTop,
        QObject::tr("tile column"));
    p.save();
    p.translate(rect.left() + 1, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), axisTitleH), Qt::AlignHCenter | Qt::AlignTop,
        QObject::tr("tile row"));
    p.restore();

    // Colour legend: written fraction 0% (bottom) to 100% (top).
    const QRectF bar(plot.right() + 8, plot.top(), 10, plot.height());
    QImage ramp(1, 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i) ramp.setPixel(0, 255 - i, viridisTable()[i]);
    p.drawImage(bar, ramp);
    p.drawRect(bar);
    for (int pct : {0, 50, 100}) {
        const double y = bar.bottom() - bar.height() * pct / 100.0;
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
        p.drawText(QRectF(bar.right() + 5, y - lh / 2, legendW, lh), Qt::AlignLeft | Qt::AlignVCenter,
            QString::number(pct) + QLatin1Char('%'));
    }
    p.restore();
    return plot;
}

} // namespace kwb::ui
