#pragma once
// Coverage heatmaps: the stored grids of records (verification.coverage.grid)
// and live re-run results. Zoom, pan, colour legend and a hover read-out
// (tile, element range, written fraction).
#include "charts/heatmap_widget.h"
#include "views/figure_view.h"

class QLabel;
class QListWidget;

namespace kwb::ui {

class CoverageView : public FigureView {
    Q_OBJECT
public:
    explicit CoverageView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("coverage"); }
    void setProjectData(ProjectDataPtr data) override;
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    // Shows a record's stored grid; false when it has none.
    bool showRecord(int recordIndex);
    // Shows a live result (from a re-run) and lists it first.
    void showLive(const Coverage& coverage, const QString& title);
    HeatmapWidget* heatmap() const { return m_heatmap; }
    int listedRecords() const;

private:
    void showEntry(int row);

    ProjectDataPtr m_data;
    QListWidget* m_list;
    HeatmapWidget* m_heatmap;
    QLabel* m_info;
    QLabel* m_hover;
    std::vector<std::pair<QString, Coverage>> m_live;
};

} // namespace kwb::ui
