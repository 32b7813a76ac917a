#pragma once
// Sorting and filtering of the record table on raw values: model, level,
// problem, status, flags, free-text search, and an explicit set of records
// (what a click in a chart picked).
#include <QSet>
#include <QSortFilterProxyModel>

#include "project/project.h"

namespace kwb::ui {

class RecordTableModel;

class RecordFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RecordFilterProxy(QObject* parent = nullptr);

    void setFilter(const RecordFilter& filter);
    const RecordFilter& filter() const { return m_filter; }
    void setSearchText(const QString& text);
    // Only these source rows (record indexes); an empty optional shows all.
    void setPickedRecords(const QSet<int>& records);
    void clearPickedRecords();
    bool hasPickedRecords() const { return m_pickActive; }

    // Whether a record passes the filter (independent of the view).
    bool acceptsRecord(int sourceRow) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    const RecordTableModel* table() const;
    RecordFilter m_filter;
    QString m_searchLower;
    QSet<int> m_picked;
    bool m_pickActive = false;
};

} // namespace kwb::ui
