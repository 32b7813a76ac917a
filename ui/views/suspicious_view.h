#pragma once
// Suspicious speedups: every flagged record with its reasons, ranked, and the
// live re-run panel for the selected one.
#include "views/figure_view.h"

class QLabel;
class QLineEdit;
class QTableView;
class QTextBrowser;

namespace kwb::ui {

class RawValueProxy;
class RerunPanel;
class RerunService;
class SuspiciousModel;

class SuspiciousView : public FigureView {
    Q_OBJECT
public:
    SuspiciousView(RerunService* service, QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("suspicious"); }
    void setProjectData(ProjectDataPtr data) override;
    // The figure: each listed record's claimed speedup on a log axis, coloured by
    // severity, against the 10x review threshold, labelled in full (not a screenshot).
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    SuspiciousModel* model() const { return m_model; }
    RerunPanel* rerunPanel() const { return m_panel; }
    QTableView* table() const { return m_table; }
    void selectRow(int row);

Q_SIGNALS:
    void recordActivated(int recordIndex);
    void liveCoverage(const kwb::Coverage& coverage, const QString& title);

private:
    void showSelected();

    ProjectDataPtr m_data;
    SuspiciousModel* m_model;
    RawValueProxy* m_proxy;
    QTableView* m_table;
    QLineEdit* m_search;
    QLabel* m_summary;
    QTextBrowser* m_reasons;
    RerunPanel* m_panel;
};

} // namespace kwb::ui
