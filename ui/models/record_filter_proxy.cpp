#include "models/record_filter_proxy.h"

#include <QtConcurrent/QtConcurrentRun>

#include "project/project_loader.h"

#include "models/record_table_model.h"

namespace kwb::ui {

RecordFilterProxy::RecordFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RecordTableModel::RawValueRole);
}

RecordTableModel* RecordFilterProxy::table() const
{
    return qobject_cast<RecordTableModel*>(sourceModel());
}

bool RecordFilterProxy::accepts(const RecordRow& r, int recordIndex, const RecordFilter& f, const QStringList& words,
    const QSet<int>* picked)
{
    if (picked && !picked->contains(recordIndex)) return false;
    if (!f.model.isEmpty() && r.model != f.model) return false;
    if (!f.level.isEmpty() && QString::number(r.level) != f.level) return false;
    if (!f.problem.isEmpty() && r.problem != f.problem) return false;
    if (!f.status.isEmpty() && r.status != f.status) return false;
    if (!f.flag.isEmpty()) {
        if (f.flag == QLatin1String("flagged")) {
            if (r.flagCount == 0) return false;
        } else if (f.flag == QLatin1String("unflagged")) {
            if (r.flagCount != 0) return false;
        } else if (!r.flags.split(QLatin1String(", ")).contains(f.flag)) {
            return false;
        }
    }
    // Every word must occur somewhere in the row.
    for (const auto& w : words)
        if (!r.haystack.contains(w)) return false;
    return true;
}

void RecordFilterProxy::setFilter(const RecordFilter& filter)
{
    if (filter == m_filter) return;
    m_filter = filter;
    m_words = filter.search.trimmed().toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    refilter();
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
    refilter();
}

void RecordFilterProxy::clearPickedRecords()
{
    if (!m_pickActive) return;
    m_picked.clear();
    m_pickActive = false;
    refilter();
}

void RecordFilterProxy::refilter()
{
    RecordTableModel* t = table();
    if (!t || t->rowCount() < RecordTableModel::kAsyncRows) {
        m_jobs.supersede(); // a running filter's answer is stale now
        m_accepted.clear();
        m_acceptedFor = nullptr;
        m_filtering = false;
        // One layout change instead of a removal signal per filtered-out row.
        invalidate();
        Q_EMIT filterApplied();
        return;
    }
    m_filtering = true;
    ProjectDataPtr data = t->projectData();
    const RecordFilter filter = m_filter;
    const QStringList words = m_words;
    const std::optional<QSet<int>> picked = m_pickActive ? std::optional(m_picked) : std::nullopt;
    m_jobs.start([data, filter, words, picked](const TaskContext&) {
        const auto& rows = *data->rows;
        std::vector<std::uint8_t> accepted(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
            accepted[i] = accepts(rows[i], static_cast<int>(i), filter, words, picked ? &*picked : nullptr) ? 1 : 0;
        return accepted;
    }, [this, data](std::vector<std::uint8_t> accepted) { // dropped when a newer filter started
        m_filtering = false;
        RecordTableModel* current = table();
        if (!current || current->projectData() != data) {
            refilter();
            return;
        }
        m_accepted = std::move(accepted);
        m_acceptedFor = data.get();
        invalidate();
        Q_EMIT filterApplied();
    });
}

bool RecordFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (sourceParent.isValid()) return false;
    const RecordTableModel* t = table();
    if (!t) return true;
    const int rec = t->recordIndex(sourceRow);
    if (m_acceptedFor == t->projectData().get() && static_cast<std::size_t>(rec) < m_accepted.size())
        return m_accepted[static_cast<std::size_t>(rec)] != 0;
    return accepts(t->row(sourceRow), rec, m_filter, m_words, m_pickActive ? &m_picked : nullptr);
}

QString describeFilter(const RecordFilter& f)
{
    QStringList parts;
    if (!f.model.isEmpty()) parts << QObject::tr("model = %1").arg(f.model);
    if (!f.level.isEmpty()) parts << QObject::tr("level = %1").arg(f.level);
    if (!f.problem.isEmpty()) parts << QObject::tr("problem = %1").arg(f.problem);
    if (!f.status.isEmpty()) parts << QObject::tr("status = %1").arg(f.status);
    if (!f.flag.isEmpty()) parts << QObject::tr("flags: %1").arg(f.flag);
    if (!f.search.trimmed().isEmpty()) parts << QObject::tr("search “%1”").arg(f.search.trimmed());
    return parts.join(QStringLiteral(" · "));
}

RecordSubset RecordFilterProxy::filteredSubset() const
{
    RecordSubset out;
    const RecordTableModel* t = table();
    if (!t || m_filter == RecordFilter{}) return out;
    const auto& rows = *t->projectData()->rows;
    auto records = std::make_shared<std::vector<int>>();
    const bool precomputed = m_acceptedFor == t->projectData().get() && m_accepted.size() == rows.size();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const bool pass = precomputed ? m_accepted[i] != 0 && !m_pickActive
                                      : accepts(rows[i], static_cast<int>(i), m_filter, m_words, nullptr);
        // With a pick active the precomputed verdicts include it: evaluate the filter alone.
        if (precomputed && m_pickActive) {
            if (accepts(rows[i], static_cast<int>(i), m_filter, m_words, nullptr)) records->push_back(static_cast<int>(i));
            continue;
        }
        if (pass) records->push_back(static_cast<int>(i));
    }
    out.records = std::move(records);
    out.description = describeFilter(m_filter);
    return out;
}

void RecordFilterProxy::sort(int column, Qt::SortOrder order)
{
    if (RecordTableModel* t = table()) {
        t->sortRows(column, order);
        return;
    }
    QSortFilterProxyModel::sort(column, order);
}

} // namespace kwb::ui
