#pragma once
// Rows of a table model as text: tab-separated (pasted into spreadsheets),
// Markdown (pasted into notes and papers' drafts) or CSV (RFC 4180 quoting),
// with the header row first. The cells are the model's display text, so a
// filtered or sorted proxy exports what the user sees, in that order.
//
// Thread: the model's (GUI) thread.
#include <QList>
#include <QString>

class QAbstractItemModel;

namespace kwb::ui {

enum class TableTextFormat { Tsv, Markdown, Csv };

// rows: view rows of `model` to export; empty = every row.
QString tableText(const QAbstractItemModel& model, TableTextFormat format, const QList<int>& rows = {});

} // namespace kwb::ui
