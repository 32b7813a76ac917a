#pragma once
// Interactive coverage heatmap: wheel zooms about the cursor, drag pans,
// double-click resets; hovering reports the tile, its element range and its
// written fraction (hoverText). Paints through paintHeatmap(), like exports.
#include <QWidget>

#include "charts/heatmap_renderer.h"

namespace kwb::ui {

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapWidget(QWidget* parent = nullptr);

    void setHeatmap(HeatmapData heatmap);
    const HeatmapData& heatmap() const { return m_data; }
    // Visible part of the grid (x = columns, y = rows).
    QRectF visibleCells() const { return m_visible; }
    void setVisibleCells(const QRectF& cells);
    void resetZoom();
    void zoomBy(double factor, QPointF anchorCell);
    // The tile under a widget position, if any.
    std::optional<TileInfo> tileAt(QPointF pos) const;
    // Where the last paint put the cells (widget coordinates); empty before the first paint.
    QRectF plotRect() const { return m_plot; }

    QSize sizeHint() const override { return {480, 360}; }

Q_SIGNALS:
    void hoverText(const QString& text);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QPointF cellAt(QPointF pos) const;
    void clampVisible();

    HeatmapData m_data;
    QRectF m_visible;
    mutable QRectF m_plot;
    QPointF m_dragStart;
    QRectF m_dragVisible;
    bool m_dragging = false;
};

} // namespace kwb::ui
