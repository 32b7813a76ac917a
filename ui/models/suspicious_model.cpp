#include "models/suspicious_model.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace kwb::ui {

namespace {

QString severityName(int s)
{
    switch (s) {
    case 3: return QStringLiteral("error");
    case 2: return QStringLiteral("warning");
    case 1: return QStringLiteral("info");
    default: return {};
    }
}

} // namespace

SuspiciousModel::SuspiciousModel(QObject* parent) : QAbstractTableModel(parent), m_data(std::make_shared<ProjectData>())
{
}

std::vector<int> SuspiciousModel::rank(const ProjectData& data)
{
    std::vector<int> order;
    const auto& rows = *data.rows;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].flagCount > 0 || rows[i].unverifiedClaim) order.push_back(static_cast<int>(i));
    // An unverified claim ranks with warnings: nothing says it is wrong, nothing says it is right.
    auto severity = [](const RecordRow& r) { return r.unverifiedClaim ? 2 : r.severity; };
    std::stable_sort(order.begin(), order.end(), [&rows, &severity](int a, int b) {
        const RecordRow& x = rows[static_cast<std::size_t>(a)];
        const RecordRow& y = rows[static_cast<std::size_t>(b)];
        if (severity(x) != severity(y)) return severity(x) > severity(y);
        if (x.flagCount != y.flagCount) return x.flagCount > y.flagCount;
        const double sx = std::isnan(x.speedup) ? -1 : x.speedup;
        const double sy = std::isnan(y.speedup) ? -1 : y.speedup;
        return sx > sy;
    });
    return order;
}

void SuspiciousModel::setData(ProjectDataPtr next)
{
    beginResetModel();
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    endResetModel();
}

int SuspiciousModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_data->suspicious.size());
}

int SuspiciousModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SuspiciousModel::rawValue(int row, int column) const
{
    const RecordRow& r = (*m_data->rows)[static_cast<std::size_t>(recordIndex(row))];
    switch (column) {
    case Rank: return static_cast<double>(row + 1);
    case Record: return r.id;
    case Model: return r.model;
    case Problem: return r.problem;
    case Speedup: return r.speedup;
    case Severity: return static_cast<double>(r.severity);
    case Reasons: return reasons(row);
    default: return {};
    }
}

QVariant SuspiciousModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const RecordRow& r = (*m_data->rows)[static_cast<std::size_t>(recordIndex(index.row()))];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Rank: return index.row() + 1;
        case Speedup: return std::isnan(r.speedup) ? QString() : QString::number(r.speedup, 'f', 2);
        case Severity: return r.unverifiedClaim ? tr("unverified") : severityName(r.severity);
        default: return rawValue(index.row(), index.column());
        }
    case Qt::ToolTipRole:
        if (index.column() == Reasons) return reasons(index.row());
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Severity && r.severity >= 3) return QBrush(QColor(0xD5, 0x5E, 0x00));
        return {};
    case RawValueRole: return rawValue(index.row(), index.column());
    case RecordIndexRole: return recordIndex(index.row());
    default: return {};
    }
}

QVariant SuspiciousModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Rank: return tr("#");
    case Record: return tr("Record");
    case Model: return tr("Model");
    case Problem: return tr("Problem");
    case Speedup: return tr("Claimed speedup");
    case Severity: return tr("Severity");
    case Reasons: return tr("Reasons");
    default: return {};
    }
}

} // namespace kwb::ui
