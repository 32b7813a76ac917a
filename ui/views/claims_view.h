#pragma once
// Claimed against verified (issue 13 item 5): a scatter of each record's
// claimed speedup against the one its re-run measured (log axes, the
// diagonal, colour by verdict; a click selects the record in the Records
// view) and per-model tables of how many claims survive. The analysis is
// core/analysis/claims (also behind `kwb summary`'s claims table).
#include <QPointF>

#include <vector>

#include "analysis/claims.h"
#include "views/figure_view.h"

class QLabel;
class QTableWidget;

namespace kwb::ui {

// Where each point is drawn in a rect: shared by painting and hit testing.
struct ClaimsPlot {
    QRectF plot;
    double lo = 0.1, hi = 100;
    double left = 0; // width of the y tick labels
    std::vector<QPointF> positions; // per point; NaN when not drawn (no re-measured speedup)
};
ClaimsPlot layoutClaimsPlot(const QRectF& rect, const std::vector<ClaimPoint>& points, const FigureStyle& style);
void paintClaimsScatter(QPainter& painter, const QRectF& rect, const std::vector<ClaimPoint>& points,
    const FigureStyle& style, int highlighted = -1);
QColor claimVerdictColor(ClaimVerdict v, const FigureStyle& style);

class ClaimsView : public FigureView {
    Q_OBJECT
public:
    explicit ClaimsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("claims"); }
    void setProjectData(ProjectDataPtr data) override;
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    const std::vector<ClaimPoint>& points() const { return m_points; }
    QTableWidget* tallyTable() const { return m_tallies; }
    // The point under a position of the plot widget, or -1.
    int pointAt(const QPointF& pos) const;
    QWidget* canvas() const { return m_canvas; }
    void activatePoint(int point); // as a click does

Q_SIGNALS:
    void recordActivated(int recordIndex);

private:
    void fill();

    ProjectDataPtr m_data;
    std::vector<ClaimPoint> m_points;
    QWidget* m_canvas;
    QLabel* m_summary;
    QTableWidget* m_tallies;
    int m_highlighted = -1;
};

} // namespace kwb::ui
