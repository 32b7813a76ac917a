#pragma once
// The top kernels of the loaded workloads (one workload or all of them).
#include <QAbstractTableModel>

#include "project/project_data.h"

namespace kwb::ui {

class TopKernelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Workload, Kernel, Family, Category, Addressable, TotalUs, Count, MeanUs, Share, ColumnCount };
    enum Role { RawValueRole = Qt::UserRole + 1 };

    explicit TopKernelsModel(QObject* parent = nullptr);
    // workload < 0: every workload's top kernels.
    void setData(ProjectDataPtr data, int workload = -1);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        const WorkloadSummary* workload;
        const KernelShare* kernel;
    };
    QVariant rawValue(const Row& r, int column) const;
    ProjectDataPtr m_data;
    std::vector<Row> m_rows;
};

} // namespace kwb::ui
