#include "models/record_filter_proxy.h"

#include "models/record_table_model.h"

namespace kwb::ui {

RecordFilterProxy::RecordFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RecordTableModel::RawValueRole);
}

const RecordTableModel* RecordFilterProxy::table() const
{
    return qobject_cast<const RecordTableModel*>(sourceModel());
}

void RecordFilterProxy::setFilter(const RecordFilter& filter)
{
    if (filter == m_filter) return;
    m_filter = filter;
    m_searchLower = filter.search.trimmed().toLower();
    invalidateFilter();
}

void RecordFilterProxy::setSearchText(const QString& text)
{
    RecordFilter f = m_filter;
    f.search = text;
    setFilter(f);
}

void RecordFilterProxy::setPickedRecords(const QSet<int>& records)
{
    m_picked = records;
    m_pickActive = true;
    invalidateFilter();
}

void RecordFilterProxy::clearPickedRecords()
{
    if (!m_pickActive) return;
    m_picked.clear();
    m_pickActive = false;
    invalidateFilter();
}

bool RecordFilterProxy::acceptsRecord(int sourceRow) const
{
    const RecordTableModel* t = table();
    if (!t) return true;
    if (m_pickActive && !m_picked.contains(sourceRow)) return false;
    const RecordRow& r = t->row(sourceRow);
    if (!m_filter.model.isEmpty() && r.model != m_filter.model) return false;
    if (!m_filter.level.isEmpty() && QString::number(r.level) != m_filter.level) return false;
    if (!m_filter.problem.isEmpty() && r.problem != m_filter.problem) return false;
    if (!m_filter.status.isEmpty() && r.status != m_filter.status) return false;
    if (!m_filter.flag.isEmpty()) {
        if (m_filter.flag == QLatin1String("flagged")) {
            if (r.flagCount == 0) return false;
        } else if (m_filter.flag == QLatin1String("unflagged")) {
            if (r.flagCount != 0) return false;
        } else if (!r.flags.split(QLatin1String(", ")).contains(m_filter.flag)) {
            return false;
        }
    }
    if (!m_searchLower.isEmpty()) {
        // Every word must occur somewhere in the row.
        for (const auto& word : QStringView(m_searchLower).split(QLatin1Char(' '), Qt::SkipEmptyParts))
            if (!r.haystack.contains(word)) return false;
    }
    return true;
}

bool RecordFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    return !sourceParent.isValid() && acceptsRecord(sourceRow);
}

bool RecordFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const RecordTableModel* t = table();
    if (!t) return QSortFilterProxyModel::lessThan(left, right);
    const QVariant a = RecordTableModel::rawValue(t->row(left.row()), left.column());
    const QVariant b = RecordTableModel::rawValue(t->row(right.row()), right.column());
    if (a.typeId() == QMetaType::Double) {
        const double x = a.toDouble();
        const double y = b.toDouble();
        // Missing values sort after every number in ascending order.
        if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
        if (x != y) return x < y;
        return left.row() < right.row();
    }
    const int c = QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive);
    if (c != 0) return c < 0;
    return left.row() < right.row();
}

} // namespace kwb::ui
