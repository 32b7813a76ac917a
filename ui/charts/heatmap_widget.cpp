#include "charts/heatmap_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <cmath>

namespace kwb::ui {

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(200, 150);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void HeatmapWidget::setHeatmap(HeatmapData heatmap)
{
    m_data = std::move(heatmap);
    resetZoom();
}

void HeatmapWidget::resetZoom()
{
    m_visible = QRectF(0, 0, std::max(1, m_data.cols), std::max(1, m_data.rows));
    update();
}

void HeatmapWidget::setVisibleCells(const QRectF& cells)
{
    m_visible = cells;
    clampVisible();
    update();
}

void HeatmapWidget::clampVisible()
{
    const double w = std::max(1, m_data.cols);
    const double h = std::max(1, m_data.rows);
    // At most the whole grid, at least a quarter of a tile.
    double vw = std::clamp(m_visible.width(), std::min(0.25, w), w);
    double vh = std::clamp(m_visible.height(), std::min(0.25, h), h);
    double x = std::clamp(m_visible.x(), 0.0, w - vw);
    double y = std::clamp(m_visible.y(), 0.0, h - vh);
    m_visible = QRectF(x, y, vw, vh);
}

void HeatmapWidget::zoomBy(double factor, QPointF anchor)
{
    if (m_data.isNull() || factor <= 0) return;
    const QRectF v = m_visible;
    const double nw = v.width() / factor;
    const double nh = v.height() / factor;
    const double fx = (anchor.x() - v.x()) / v.width();
    const double fy = (anchor.y() - v.y()) / v.height();
    m_visible = QRectF(anchor.x() - fx * nw, anchor.y() - fy * nh, nw, nh);
    clampVisible();
    update();
}

QPointF HeatmapWidget::cellAt(QPointF pos) const
{
    if (m_plot.isEmpty()) return {-1, -1};
    return {m_visible.x() + (pos.x() - m_plot.x()) / m_plot.width() * m_visible.width(),
        m_visible.y() + (pos.y() - m_plot.y()) / m_plot.height() * m_visible.height()};
}

std::optional<TileInfo> HeatmapWidget::tileAt(QPointF pos) const
{
    if (!m_plot.contains(pos)) return std::nullopt;
    const QPointF c = cellAt(pos);
    return tileInfo(m_data, static_cast<int>(std::floor(c.y())), static_cast<int>(std::floor(c.x())));
}

void HeatmapWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const FigureStyle style = FigureStyle::screen();
    m_plot = paintHeatmap(p, QRectF(rect()), m_data, m_visible, style);
}

void HeatmapWidget::wheelEvent(QWheelEvent* event)
{
    if (m_data.isNull() || m_plot.isEmpty()) return;
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.25, steps), cellAt(event->position()));
    event->accept();
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_plot.contains(event->position())) {
        m_dragging = true;
        m_dragStart = event->position();
        m_dragVisible = m_visible;
        setCursor(Qt::ClosedHandCursor);
    }
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragging && !m_plot.isEmpty()) {
        const QPointF d = event->position() - m_dragStart;
        m_visible = m_dragVisible.translated(-d.x() / m_plot.width() * m_dragVisible.width(),
            -d.y() / m_plot.height() * m_dragVisible.height());
        clampVisible();
        update();
    }
    if (auto t = tileAt(event->position())) {
        const QString text = describeTile(*t);
        setToolTip(text);
        Q_EMIT hoverText(text);
    } else {
        setToolTip({});
        Q_EMIT hoverText({});
    }
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent*)
{
    m_dragging = false;
    unsetCursor();
}

void HeatmapWidget::mouseDoubleClickEvent(QMouseEvent*)
{
    resetZoom();
}

void HeatmapWidget::leaveEvent(QEvent*)
{
    Q_EMIT hoverText({});
}

} // namespace kwb::ui
