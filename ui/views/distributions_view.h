#pragma once
// Speedup distributions: histogram on a log axis, ECDF, fast_p over p, and a
// box per group; grouped by any record field. Hover shows values; a click on
// a bar, a curve or a box picks its records (recordsPicked).
#include <QFutureWatcher>
#include <QSet>

#include "charts/distribution_chart.h"
#include "jobs/job_tracker.h"
#include "models/record_filter_proxy.h"
#include "views/figure_view.h"

class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QAbstractSeries;
class QPushButton;
class QTableView;

namespace kwb::ui {

class GroupStatsModel;

class DistributionsView : public FigureView {
    Q_OBJECT
public:
    explicit DistributionsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("distributions"); }
    void setProjectData(ProjectDataPtr data) override;
    bool isBusy() const override { return m_job.isRunning() || m_statsJob.isRunning(); }
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    DistributionKind kind() const { return m_kind; }
    void setKind(DistributionKind kind);
    QString groupBy() const { return m_groupField; }
    void setGroupBy(const QString& field);
    const DistributionData& distribution() const { return m_dist; }
    QChartView* chartView() const { return m_view; }
    QString hoverText() const;
    QString summaryText() const;
    // Error-flagged "correct" records count as correct (off by default).
    void setCountErrorFlagged(bool on);
    // The Records filters: the charts and the statistics use only these records,
    // with a note saying which filter is in effect and a button back to all.
    void setRecordSubset(const RecordSubset& subset);
    const RecordSubset& recordSubset() const { return m_subset; }
    QString filterNote() const;
    GroupStatsModel* statsModel() const { return m_statsModel; }

    // What a click at a value position picks (also used by tests).
    QSet<int> pickAt(int group, QPointF value, QString* description) const;
    QString describeAt(int group, QPointF value) const;

Q_SIGNALS:
    void recordsPicked(const QSet<int>& records, const QString& description);
    // "Use all records": the window clears the Records filters.
    void allRecordsRequested();

private:
    void recompute();
    void recomputeStats();
    void rebuildChart();
    void connectSeries(QAbstractSeries* series);

    ProjectDataPtr m_data;
    DistributionData m_dist;
    LogHistogram m_hist;
    DistributionKind m_kind = DistributionKind::Histogram;
    QString m_groupField = QStringLiteral("model");
    JobTracker m_job;
    JobTracker m_statsJob; // the groups' statistics, after the chart, on their own pool
    QComboBox* m_kindBox;
    QComboBox* m_groupBox;
    QLabel* m_summary;
    QLabel* m_hover;
    QChartView* m_view;
    QCheckBox* m_countFlagged;
    RecordSubset m_subset;
    QLabel* m_filterNote;
    QPushButton* m_allRecords;
    GroupStatsModel* m_statsModel;
    QTableView* m_statsTable;
};

} // namespace kwb::ui
