#pragma once
// Filtering and sorting of the record table on raw values: model, level,
// problem, status, flags, free-text search, and an explicit set of records
// (what a click in a chart picked). Large tables evaluate the filter on the
// thread pool and apply it in one step (filterApplied), and sort through the
// source model's off-thread sort, so the GUI thread never walks 100k rows
// with string matching or comparisons.
#include "jobs/job_tracker.h"
#include <QSet>
#include <QSortFilterProxyModel>

#include <memory>
#include <vector>

#include "project/project_data.h"

namespace kwb::ui {

class RecordTableModel;

// The records the Records filters pass, for the views that follow them
// (distributions, statistics, pivot, projection): indexes into the record set,
// ascending, and the filter in words. Chart picks are not part of it.
struct RecordSubset {
    std::shared_ptr<const std::vector<int>> records; // null: every record
    QString description;                             // "model = gpt-4o · search “relu”"
    bool all() const { return !records; }
};

// The filter in words ("" when it passes everything).
QString describeFilter(const RecordFilter& filter);

class RecordFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RecordFilterProxy(QObject* parent = nullptr);

    void setFilter(const RecordFilter& filter);
    const RecordFilter& filter() const { return m_filter; }
    void setSearchText(const QString& text);
    // Only these records (indexes into the record set).
    void setPickedRecords(const QSet<int>& records);
    void clearPickedRecords();
    bool hasPickedRecords() const { return m_pickActive; }
    // A filter is being evaluated off the GUI thread.
    bool isFiltering() const { return m_filtering; }
    // What the filter (without chart picks) passes; all() when no filter is set.
    RecordSubset filteredSubset() const;

    // Sorting goes to the source model (RecordTableModel::sortRows).
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Whether a record passes a filter; pure, any thread.
    static bool accepts(const RecordRow& row, int recordIndex, const RecordFilter& filter, const QStringList& words,
        const QSet<int>* picked);

Q_SIGNALS:
    void filterApplied();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    void refilter();
    RecordTableModel* table() const;

    RecordFilter m_filter;
    QStringList m_words; // lower-case search words
    QSet<int> m_picked;
    bool m_pickActive = false;
    bool m_filtering = false;
    JobTracker m_jobs; // the background filter of large tables
    // Precomputed verdict per record, valid for m_acceptedFor only.
    std::vector<std::uint8_t> m_accepted;
    const ProjectData* m_acceptedFor = nullptr;
};

} // namespace kwb::ui
