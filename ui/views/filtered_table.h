#pragma once
// The one helper that wires a table view, its sort/filter proxy and a search
// box: raw-value sorting, fixed row heights (large tables stay fast), row
// selection, and a debounced search that filters through the proxy.
#include <QString>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace kwb::ui {

void setupFilteredTable(QTableView* view, QSortFilterProxyModel* proxy, QLineEdit* search,
    const QString& placeholder = {});

} // namespace kwb::ui
