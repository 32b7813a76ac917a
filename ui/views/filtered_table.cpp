#include "views/filtered_table.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QTableView>
#include <QTimer>

#include "models/record_filter_proxy.h"

namespace kwb::ui {

void setupFilteredTable(QTableView* view, QSortFilterProxyModel* proxy, QLineEdit* search, const QString& placeholder)
{
    view->setModel(proxy);
    view->setSortingEnabled(true);
    // Start unsorted: sorting 100k rows is the user's choice, not a load cost.
    view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    if (!search) return;
    search->setClearButtonEnabled(true);
    search->setPlaceholderText(placeholder.isEmpty() ? QObject::tr("Search…") : placeholder);
    auto* debounce = new QTimer(search);
    debounce->setSingleShot(true);
    debounce->setInterval(150);
    QObject::connect(search, &QLineEdit::textChanged, debounce, qOverload<>(&QTimer::start));
    QObject::connect(debounce, &QTimer::timeout, proxy, [proxy, search] {
        if (auto* records = qobject_cast<RecordFilterProxy*>(proxy)) records->setSearchText(search->text());
        else proxy->setFilterFixedString(search->text());
    });
}

} // namespace kwb::ui
