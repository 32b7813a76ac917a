#pragma once
// Speedup distributions per group, computed off the GUI thread from a record
// set: the input of the histogram, ECDF, fast_p and box charts.
#include <QString>
#include <QStringList>

#include <vector>

#include "analysis/statistics.h"
#include "base/progress.h"
#include "records/record_set.h"

namespace kwb::ui {

struct DistributionGroup {
    QString name;
    std::vector<double> speedups;  // correct records with a speedup > 0, ascending
    std::vector<int> recordIndex;  // parallel to speedups: index into RecordSet::records
    std::vector<int> allRecords;   // every record of the group (fast_p's denominator)
    FastPCurve fastP;
    double q1 = 0, median = 0, q3 = 0, whiskerLow = 0, whiskerHigh = 0; // box plot (1.5 IQR of log speedup)
    std::vector<double> outliers; // speedups beyond the whiskers, ascending
    // The group's statistics from core (computeGroupStats below); empty until computed.
    GroupSummary stats;
};

struct DistributionData {
    QString groupField;
    std::vector<DistributionGroup> groups; // by name
    double minSpeedup = 0; // over all groups; 0 when no speedups
    double maxSpeedup = 0;
    std::size_t timedRecords = 0;
    std::size_t errorFlaggedLeftOut = 0; // "correct" records with an error flag, counted as not correct

    bool empty() const { return timedRecords == 0; }
    // Records of a group with speedup in [lo, hi).
    std::vector<int> recordsInRange(int group, double lo, double hi) const;
    // Records of a group that count for fast_p at p (correct, speedup > p).
    std::vector<int> recordsFasterThan(int group, double p) const;
};

// Groups by a record field (recordField(): model, level, problem, status, gpu,
// flagged, or any top-level field); an empty field puts everything in one
// group. `subset` restricts to those record indexes (nullptr: all). Beyond
// maxGroups groups (one colour each in the palette), the smallest are merged
// into one "other (N groups)" group, listed last. A record whose verification
// raised an error flag (the kernel cannot have done the work) counts as not
// correct unless countErrorFlagged: it is no speedup and no fast_p win.
inline constexpr int kMaxDistributionGroups = 8;
DistributionData computeDistribution(const RecordSet& set, const QString& groupField,
    const std::vector<int>* subset = nullptr, int maxGroups = kMaxDistributionGroups, bool countErrorFlagged = false);

// Each group's statistics from core (analysis/statistics.h summarize, exactly as
// `kwb summary` computes them: 95% bootstrap intervals of the median speedup and
// win rate, fast_p, pass@k), counting records as computeDistribution did. The
// bootstrap costs seconds on 100k records: the view runs it as its own job,
// after the chart, on a pool of its own. Empty when cancelled.
std::vector<GroupSummary> computeGroupStats(const RecordSet& set, const DistributionData& data,
    bool countErrorFlagged, const kwb::TaskContext& ctx = {});

// Log-spaced histogram bins over the data's range.
struct LogHistogram {
    std::vector<double> edges;               // bins + 1, ascending
    std::vector<std::vector<int>> counts;    // [group][bin]
    int maxCount = 0;
    double maxShare = 0; // largest share of a group's records in one bin
    int binOf(double x) const; // -1 outside
    // Share of group g's correct, timed records in bin b: groups of 5 and of 500 records compare.
    double share(const DistributionData& data, std::size_t g, std::size_t b) const;
};
LogHistogram computeLogHistogram(const DistributionData& data, int bins = 30);

} // namespace kwb::ui
