#include "views/figure_view.h"

#include <QPainter>

namespace kwb::ui {

QString FigureView::figureTitle() const
{
    return windowTitle().isEmpty() ? viewName() : windowTitle();
}

void FigureView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    painter.save();
    painter.fillRect(rect, style.background);
    const double s = std::min(rect.width() / std::max(1, width()), rect.height() / std::max(1, height()));
    painter.translate(rect.left() + (rect.width() - width() * s) / 2, rect.top() + (rect.height() - height() * s) / 2);
    painter.scale(s, s);
    // QWidget::render is not const, but drawing does not change the view.
    const_cast<FigureView*>(this)->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.restore();
}

} // namespace kwb::ui
