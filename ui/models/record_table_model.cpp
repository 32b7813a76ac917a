#include "models/record_table_model.h"

#include <QBrush>
#include <QColor>
#include <QtConcurrent/QtConcurrentRun>

#include "project/project_loader.h"

#include <algorithm>
#include <numeric>

namespace kwb::ui {

RecordTableModel::RecordTableModel(QObject* parent)
    : QAbstractTableModel(parent), m_data(std::make_shared<ProjectData>())
{
}

void RecordTableModel::setData(ProjectDataPtr next)
{
    beginResetModel();
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    m_order.clear();
    m_position.clear();
    m_sortJob.supersede(); // a sort in flight belongs to the old data
    m_sorting = false;
    endResetModel();
}

std::vector<int> RecordTableModel::sortedOrder(const std::vector<RecordRow>& rows, int column, Qt::SortOrder order)
{
    std::vector<int> idx(rows.size());
    std::iota(idx.begin(), idx.end(), 0);
    const bool ascending = order == Qt::AscendingOrder;
    const QVariant probe = rows.empty() ? QVariant() : rawValue(rows.front(), column);
    if (probe.typeId() == QMetaType::Double) {
        std::vector<double> key(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) key[i] = rawValue(rows[i], column).toDouble();
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
            const double x = key[static_cast<std::size_t>(a)];
            const double y = key[static_cast<std::size_t>(b)];
            if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
            return ascending ? x < y : y < x;
        });
    } else {
        auto text = [&rows, column](int i) -> const QString& {
            const RecordRow& r = rows[static_cast<std::size_t>(i)];
            switch (column) {
            case Model: return r.model;
            case Problem: return r.problem;
            case Status: return r.status;
            case Run: return r.run;
            default: return r.id;
            }
        };
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
            const int c = QString::compare(text(a), text(b), Qt::CaseInsensitive);
            return ascending ? c < 0 : c > 0;
        });
    }
    return idx;
}

void RecordTableModel::sortRows(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount) return;
    auto rows = m_data->rows;
    if (static_cast<int>(rows->size()) < kAsyncRows) {
        m_sortJob.supersede();
        applyOrder(sortedOrder(*rows, column, order));
        Q_EMIT sortFinished();
        return;
    }
    m_sorting = true;
    m_sortJob.start([rows, column, order](const TaskContext&) { return sortedOrder(*rows, column, order); },
        [this](std::vector<int> sorted) { // dropped when superseded, or when the data changed
            m_sorting = false;
            applyOrder(std::move(sorted));
            Q_EMIT sortFinished();
        });
}

void RecordTableModel::applyOrder(std::vector<int> order)
{
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    std::vector<int> position(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex& i : from)
        to.append(index(position[static_cast<std::size_t>(recordIndex(i.row()))], i.column()));
    m_order = std::move(order);
    m_position = std::move(position);
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int RecordTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_data->rows->size());
}

int RecordTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RecordTableModel::formatNumber(double v, int digits)
{
    return std::isnan(v) ? QString() : QString::number(v, 'f', digits);
}

QVariant RecordTableModel::rawValue(const RecordRow& row, int column)
{
    switch (column) {
    case Id: return row.id;
    case Model: return row.model;
    case Level: return row.level < 0 ? kNaN : static_cast<double>(row.level);
    case Problem: return row.problem;
    case Status: return row.status;
    case Speedup: return row.speedup;
    case CandidateMs: return row.candidateMs;
    case BaselineMs: return row.baselineMs;
    case Flags: return static_cast<double>(row.severity * 1000 + row.flagCount);
    case Run: return row.run;
    default: return {};
    }
}

QVariant RecordTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const RecordRow& r = row(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Level: return r.level < 0 ? QString() : QString::number(r.level);
        // A speedup of a kernel that is not correct is no speedup: shown in brackets, greyed.
        case Speedup:
            return r.status == QLatin1String("correct") || std::isnan(r.speedup)
                ? formatNumber(r.speedup, 3)
                : QLatin1Char('(') + formatNumber(r.speedup, 3) + QLatin1Char(')');
        case CandidateMs: return formatNumber(r.candidateMs, 4);
        case BaselineMs: return formatNumber(r.baselineMs, 4);
        case Flags: return r.flags;
        default: return rawValue(r, index.column());
        }
    case Qt::ToolTipRole:
        if (index.column() == Flags && r.flagCount > 0) {
            QStringList reasons;
            for (const auto& f : record(index.row()).verification.flags)
                reasons << QString::fromStdString(f.code) + QLatin1String(": ") + QString::fromStdString(f.reason);
            return reasons.join(QLatin1Char('\n'));
        }
        if (index.column() == Speedup && !std::isnan(r.speedup) && r.status != QLatin1String("correct"))
            return tr("%1: a speedup of an output that is not correct does not count").arg(r.status);
        if (index.column() == BaselineMs && !r.baselineName.isEmpty())
            return tr("%1, the baseline the speedup is over").arg(r.baselineName);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Level || index.column() == Speedup || index.column() == CandidateMs ||
            index.column() == BaselineMs)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Flags && r.severity >= 3) return QBrush(QColor(0xD5, 0x5E, 0x00));
        if (index.column() == Speedup && r.status != QLatin1String("correct")) return QBrush(QColor(0x99, 0x99, 0x99));
        return {};
    case RawValueRole: return rawValue(r, index.column());
    case RecordIndexRole: return recordIndex(index.row());
    case SeverityRole: return r.severity;
    default: return {};
    }
}

QVariant RecordTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Id: return tr("Record");
    case Model: return tr("Model");
    case Level: return tr("Level");
    case Problem: return tr("Problem");
    case Status: return tr("Status");
    case Speedup: return tr("Speedup");
    case CandidateMs: return tr("Kernel ms");
    case BaselineMs: return tr("Baseline ms");
    case Flags: return tr("Flags");
    case Run: return tr("Run");
    default: return {};
    }
}

} // namespace kwb::ui
