#pragma once
// Sorting on the models' raw-value role (Qt::UserRole + 1 in every ui model)
// and free-text filtering over all columns, for tables other than records.
#include <QSortFilterProxyModel>

namespace kwb::ui {

class RawValueProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RawValueProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace kwb::ui
