#pragma once
// Workloads from profiler traces: a pie of GPU time by category for the
// selected workload (addressable slices pulled out), small multiples of all
// workloads, the top kernels, and the end-to-end projection with its inputs.
#include "jobs/job_tracker.h"
#include "models/record_filter_proxy.h"
#include "views/figure_view.h"

class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTableView;

namespace kwb::ui {

class TopKernelsModel;
class RawValueProxy;

class WorkloadsView : public FigureView {
    Q_OBJECT
public:
    explicit WorkloadsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("workloads"); }
    void setProjectData(ProjectDataPtr data) override;
    // The figure: the chart on screen, the selected workload's pie with its
    // legend and its whole title (paintWorkloadPies draws all of them).
    void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const override;
    QString figureTitle() const override;

    void selectWorkload(int index);
    QString currentWorkloadName() const; // "" when none
    int workloadCount() const { return static_cast<int>(m_data->workloads.size()); }
    TopKernelsModel* topKernels() const { return m_topModel; }
    QString projectionText() const;
    bool isBusy() const override { return m_projectionJob.isRunning(); }
    // The projection's w and s over the records the Records filters pass, with a note.
    void setRecordSubset(const RecordSubset& subset);
    QString filterNote() const;

Q_SIGNALS:
    void allRecordsRequested();

private:
    void showWorkload(int index);
    void reproject();
    const ProjectionSummary& projectionOf(int index) const;

    ProjectDataPtr m_data;
    QComboBox* m_workloadBox;
    QLabel* m_header;
    QChartView* m_pie;
    QLabel* m_projection;
    QTabWidget* m_tabs;
    QWidget* m_grid;
    TopKernelsModel* m_topModel;
    RawValueProxy* m_topProxy;
    QTableView* m_topTable;
    QLineEdit* m_topSearch;
    RecordSubset m_subset;
    std::vector<ProjectionSummary> m_subsetProjections; // parallel to workloads; empty: the load's
    JobTracker m_projectionJob;
    QLabel* m_filterNote;
    QPushButton* m_allRecords;
};

} // namespace kwb::ui
