#pragma once
// Problem × model: the best and median speedup and the correct count of every
// problem for every model, over the records the Records filters pass. A click
// on a cell lists its records.
#include <QSet>

#include "jobs/job_tracker.h"
#include "models/pivot_model.h"
#include "models/record_filter_proxy.h"
#include "views/figure_view.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QTableView;

namespace kwb::ui {

class PivotView : public FigureView {
    Q_OBJECT
public:
    explicit PivotView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("pivot"); }
    void setProjectData(ProjectDataPtr data) override;
    bool isBusy() const override { return m_job.isRunning(); }
    QString figureTitle() const override;
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;

    void setRecordSubset(const RecordSubset& subset);
    QString filterNote() const;
    void setCountErrorFlagged(bool on);
    PivotModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // The records of a cell and what to call them (also what a click emits).
    QSet<int> cellRecords(int problem, int model, QString* description) const;

Q_SIGNALS:
    void recordsPicked(const QSet<int>& records, const QString& description);
    void allRecordsRequested();

private:
    void recompute();

    ProjectDataPtr m_data;
    RecordSubset m_subset;
    PivotModel* m_model;
    QTableView* m_table;
    QLabel* m_summary;
    QLabel* m_filterNote;
    QPushButton* m_allRecords;
    QCheckBox* m_countFlagged;
    JobTracker m_job;
};

} // namespace kwb::ui
