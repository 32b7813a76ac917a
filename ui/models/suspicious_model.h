#pragma once
// Every flagged record with its reasons, ranked: worst severity first, then
// more flags, then larger claimed speedup (the claims a reviewer checks first).
#include <QAbstractTableModel>

#include "project/project_data.h"

namespace kwb::ui {

class SuspiciousModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Record, Model, Problem, Speedup, Severity, Reasons, ColumnCount };
    enum Role { RawValueRole = Qt::UserRole + 1, RecordIndexRole };

    explicit SuspiciousModel(QObject* parent = nullptr);
    void setData(ProjectDataPtr next);

    int recordIndex(int row) const { return m_data->suspicious[static_cast<std::size_t>(row)]; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The ranking, as record indexes; exposed for tests and `kwb figures`.
    static std::vector<int> rank(const ProjectData& data);

private:
    QVariant rawValue(int row, int column) const;
    const QString& reasons(int row) const { return m_data->suspiciousReasons[static_cast<std::size_t>(row)]; }
    ProjectDataPtr m_data; // ranking and reasons come with the data (indexRecords)
};

} // namespace kwb::ui
