#pragma once
// The record table: a thin model over a loaded project's RecordSet and the
// rows converted once at load (ProjectData::rows). Read-only.
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

    explicit RecordTableModel(QObject* parent = nullptr);

    // Main thread. Replaces the content (model reset).
    void setData(ProjectDataPtr data);
    const ProjectDataPtr& projectData() const { return m_data; }
    const RecordRow& row(int r) const { return (*m_data->rows)[static_cast<std::size_t>(r)]; }
    const EvalRecord& record(int r) const { return m_data->records->records[static_cast<std::size_t>(r)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QVariant rawValue(const RecordRow& row, int column);
    static QString formatNumber(double v, int digits = 3);

private:
    ProjectDataPtr m_data;
};

} // namespace kwb::ui
