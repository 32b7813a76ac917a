#include "models/top_kernels_model.h"

namespace kwb::ui {

TopKernelsModel::TopKernelsModel(QObject* parent) : QAbstractTableModel(parent), m_data(std::make_shared<ProjectData>())
{
}

void TopKernelsModel::setData(ProjectDataPtr data, int workload)
{
    beginResetModel();
    m_data = data ? std::move(data) : std::make_shared<ProjectData>();
    m_rows.clear();
    for (std::size_t w = 0; w < m_data->workloads.size(); ++w) {
        if (workload >= 0 && static_cast<std::size_t>(workload) != w) continue;
        for (const auto& k : m_data->workloads[w].topKernels) m_rows.push_back({&m_data->workloads[w], &k});
    }
    endResetModel();
}

int TopKernelsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TopKernelsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TopKernelsModel::rawValue(const Row& r, int column) const
{
    switch (column) {
    case Workload: return r.workload->name;
    case Kernel: return r.kernel->name;
    case Family: return r.kernel->family;
    case Category: return r.kernel->category;
    case Addressable: return r.kernel->addressable ? 1.0 : 0.0;
    case TotalUs: return r.kernel->us;
    case Count: return static_cast<double>(r.kernel->count);
    case MeanUs: return r.kernel->meanUs;
    case Share: return r.kernel->share;
    default: return {};
    }
}

QVariant TopKernelsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Addressable: return r.kernel->addressable ? tr("yes") : tr("no");
        case TotalUs: return QString::number(r.kernel->us, 'f', 1);
        case Count: return QString::number(r.kernel->count);
        case MeanUs: return QString::number(r.kernel->meanUs, 'f', 2);
        case Share: return QString(QString::number(100.0 * r.kernel->share, 'f', 1) + QLatin1Char('%'));
        default: return rawValue(r, index.column());
        }
    case Qt::ToolTipRole:
        if (index.column() == Kernel) return r.kernel->name;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= TotalUs) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case RawValueRole: return rawValue(r, index.column());
    default: return {};
    }
}

QVariant TopKernelsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Workload: return tr("Workload");
    case Kernel: return tr("Kernel");
    case Family: return tr("Family");
    case Category: return tr("Category");
    case Addressable: return tr("Addressable");
    case TotalUs: return tr("Total µs");
    case Count: return tr("Calls");
    case MeanUs: return tr("Mean µs");
    case Share: return tr("Share of GPU time");
    default: return {};
    }
}

} // namespace kwb::ui
