#pragma once
// The statistics table under the distributions: per group, the numbers a paper
// reports with their uncertainty — correctness, median speedup and win rate
// with 95% bootstrap intervals, fast_1 and pass@k — exactly as core computes
// them for `kwb summary` (DistributionGroup::stats). Read-only.
#include <QAbstractTableModel>

#include "charts/distribution_data.h"

namespace kwb::ui {

class GroupStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Group, Records, Correct, Median, MedianCi, WinRate, WinRateCi, FastP1, PassK, ColumnCount };
    enum Role { RawValueRole = Qt::UserRole + 1 }; // numbers as double (NaN when missing)

    explicit GroupStatsModel(QObject* parent = nullptr);
    void setDistribution(const DistributionData& data);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "[0.91, 1.07]" or "–".
    static QString intervalText(const std::optional<ConfidenceInterval>& ci, bool percent);
    // "pass@1 0.42 · pass@5 0.77" over the k the summary holds.
    static QString passAtKText(const GroupSummary& s);

private:
    struct Row {
        QString name;
        GroupSummary stats;
    };
    std::vector<Row> m_rows;
};

} // namespace kwb::ui
