#pragma once
// The record table: a thin model over a loaded project's RecordSet and the
// rows converted once at load (ProjectData::rows). Read-only.
#include "jobs/job_tracker.h"
#include <QAbstractTableModel>

#include "project/project_data.h"

namespace kwb::ui {

class RecordTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Model, Level, Problem, Status, Speedup, CandidateMs, BaselineMs, Flags, Run, ColumnCount };
    enum Role {
        RawValueRole = Qt::UserRole + 1, // numbers as double (NaN when missing), text as QString
        RecordIndexRole,                 // index into RecordSet::records
        SeverityRole,                    // 0 none .. 3 error
    };

    // Tables at least this long sort on the thread pool (sortFinished follows).
    static constexpr int kAsyncRows = 20000;

    explicit RecordTableModel(QObject* parent = nullptr);

    // Main thread. Replaces the content (model reset, record order).
    void setData(ProjectDataPtr data);
    const ProjectDataPtr& projectData() const { return m_data; }
    // Row r of the model shows record recordIndex(r) of the record set.
    int recordIndex(int r) const { return m_order.empty() ? r : m_order[static_cast<std::size_t>(r)]; }
    int displayRow(int recordIndex) const
    {
        return m_position.empty() ? recordIndex : m_position[static_cast<std::size_t>(recordIndex)];
    }
    const RecordRow& row(int r) const { return (*m_data->rows)[static_cast<std::size_t>(recordIndex(r))]; }
    const EvalRecord& record(int r) const
    {
        return m_data->records->records[static_cast<std::size_t>(recordIndex(r))];
    }

    // Orders the rows by a column's raw values (missing values last in either
    // order; ties keep record order). Large tables sort off the GUI thread and
    // apply the order as one layout change; sortFinished() follows either way.
    void sortRows(int column, Qt::SortOrder order);
    bool isSorting() const { return m_sorting; }
    // The order itself: record indexes, pure function of the rows.
    static std::vector<int> sortedOrder(const std::vector<RecordRow>& rows, int column, Qt::SortOrder order);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QVariant rawValue(const RecordRow& row, int column);
    static QString formatNumber(double v, int digits = 3);

Q_SIGNALS:
    void sortFinished();

private:
    void applyOrder(std::vector<int> order);

    ProjectDataPtr m_data;
    std::vector<int> m_order;    // display row -> record index; empty = identity
    std::vector<int> m_position; // record index -> display row
    JobTracker m_sortJob; // the background sort of large tables
    bool m_sorting = false;
};

} // namespace kwb::ui
