#pragma once
// The problem × model pivot: one row per problem, one column per model; each
// cell holds the best and the median speedup of the correct, timed records and
// how many of the cell's records are correct. Correct means what the
// distributions count: an error-flagged "correct" record is not correct unless
// countErrorFlagged. Built off the GUI thread from the records the Records
// filters pass; the model is read-only.
#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <optional>
#include <vector>

#include "project/project_data.h"

namespace kwb::ui {

struct PivotCell {
    std::vector<int> records; // indexes into the record set
    std::size_t correct = 0;
    std::size_t timed = 0;    // correct and with a speedup
    std::optional<double> best;
    std::optional<double> median; // core's median (analysis/statistics.h)
};

struct PivotData {
    QStringList problems; // rows, sorted
    QStringList models;   // columns, sorted
    std::vector<std::vector<PivotCell>> cells; // [problem][model]
    std::size_t records = 0;
    // Of them, re-run by kwb verify (verification.rerun): their speedups here are still the
    // ones they claimed; the claims view sets the re-measured ones beside them.
    std::size_t reVerified = 0;
    const PivotCell* cell(int problem, int model) const;
};

// Text order with digit runs compared as numbers (L1/2 before L1/10), as a reader scans a suite.
bool naturalLess(const QString& a, const QString& b);

// `subset` null: every record.
PivotData computePivot(const ProjectData& data, const std::vector<int>* subset, bool countErrorFlagged);

class PivotModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        RawValueRole = Qt::UserRole + 1, // best speedup (NaN: none)
        MedianRole,                      // median speedup (NaN: none)
        CorrectRole,                     // correct records in the cell
        RecordCountRole,                 // records in the cell
    };

    explicit PivotModel(QObject* parent = nullptr);
    void setPivot(PivotData pivot);
    const PivotData& pivot() const { return m_pivot; }

    // "1.42× · 0.98× · 3/5": best, median, correct of records; "" for an empty cell.
    static QString cellText(const PivotCell& c);
    // Blue above 1× (log scale, saturating at 10×), orange below, grey when nothing is correct.
    static QColor cellColor(const PivotCell& c);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    PivotData m_pivot;
};

} // namespace kwb::ui
