#include "models/record_table_model.h"

#include <QBrush>
#include <QColor>

namespace kwb::ui {

RecordTableModel::RecordTableModel(QObject* parent)
    : QAbstractTableModel(parent), m_data(std::make_shared<ProjectData>())
{
}

void RecordTableModel::setData(ProjectDataPtr data)
{
    beginResetModel();
    m_data = data ? std::move(data) : std::make_shared<ProjectData>();
    endResetModel();
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
        case Speedup: return formatNumber(r.speedup, 3);
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
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Level || index.column() == Speedup || index.column() == CandidateMs ||
            index.column() == BaselineMs)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Flags && r.severity >= 3) return QBrush(QColor(0xD5, 0x5E, 0x00));
        return {};
    case RawValueRole: return rawValue(r, index.column());
    case RecordIndexRole: return index.row();
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
