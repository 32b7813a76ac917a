#include "models/group_stats_model.h"

#include <cmath>

namespace kwb::ui {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double fastPAt(const GroupSummary& s, double p)
{
    for (const auto& [pp, v] : s.fastP)
        if (pp == p) return v;
    return kNan;
}

} // namespace

GroupStatsModel::GroupStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void GroupStatsModel::setDistribution(const DistributionData& data)
{
    beginResetModel();
    m_rows.clear();
    for (const auto& g : data.groups) m_rows.push_back({g.name, g.stats});
    endResetModel();
}

int GroupStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GroupStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString GroupStatsModel::intervalText(const std::optional<ConfidenceInterval>& ci, bool percent)
{
    if (!ci) return QStringLiteral("–");
    auto f = [percent](double v) -> QString {
        if (percent) return QString::number(100.0 * v, 'f', 1) + QLatin1Char('%');
        return QString::number(v, 'f', 3) + QStringLiteral("×");
    };
    return QLatin1Char('[') + f(ci->low) + QStringLiteral(", ") + f(ci->high) + QLatin1Char(']');
}

QString GroupStatsModel::passAtKText(const GroupSummary& s)
{
    QStringList parts;
    for (const auto& [k, v] : s.passAtK) parts << QStringLiteral("pass@%1 %2").arg(k).arg(v, 0, 'f', 3);
    return parts.isEmpty() ? QStringLiteral("–") : parts.join(QStringLiteral(" · "));
}

QVariant GroupStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    const GroupSummary& s = r.stats;
    if (role == RawValueRole) {
        switch (index.column()) {
        case Group: return r.name;
        case Records: return static_cast<double>(s.records);
        case Correct: return s.correctnessRate;
        case Median: return s.medianSpeedup.value_or(kNan);
        case MedianCi: return s.medianCi ? s.medianCi->low : kNan;
        case WinRate: return s.winRate.value_or(kNan);
        case WinRateCi: return s.winRateCi ? s.winRateCi->low : kNan;
        case FastP1: return fastPAt(s, 1.0);
        case PassK: return s.passAtK.empty() ? kNan : s.passAtK.front().second;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Group || index.column() == PassK ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && (index.column() == MedianCi || index.column() == WinRateCi))
        return tr("95% bootstrap interval, %1 resamples with a fixed seed: the same as kwb summary")
            .arg(SummaryOptions{}.bootstrapResamples);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Group: return r.name;
    case Records: return QString::number(s.records);
    case Correct: return QStringLiteral("%1 (%2%)").arg(s.correct).arg(100.0 * s.correctnessRate, 0, 'f', 1);
    case Median: return s.medianSpeedup ? QString::number(*s.medianSpeedup, 'f', 3) + QStringLiteral("×") : QStringLiteral("–");
    case MedianCi: return intervalText(s.medianCi, false);
    case WinRate: return s.winRate ? QString::number(100.0 * *s.winRate, 'f', 1) + QLatin1Char('%') : QStringLiteral("–");
    case WinRateCi: return intervalText(s.winRateCi, true);
    case FastP1: {
        const double v = fastPAt(s, 1.0);
        return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', 3);
    }
    case PassK: return passAtKText(s);
    }
    return {};
}

QVariant GroupStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Group: return tr("Group");
    case Records: return tr("Records");
    case Correct: return tr("Correct");
    case Median: return tr("Median speedup");
    case MedianCi: return tr("95% CI");
    case WinRate: return tr("Win rate");
    case WinRateCi: return tr("95% CI");
    case FastP1: return tr("fast_1");
    case PassK: return tr("pass@k (problems with ≥ k samples)");
    }
    return {};
}

} // namespace kwb::ui
