#pragma once
// A table model drawn as a figure, as papers typeset tables: a title, rules
// above and below the header and at the end (booktabs), numbers right-aligned,
// cell backgrounds kept (the pivot's colours). Drawn with the painter in the
// figure's font, so PDF and SVG get vector text, not a screenshot of widgets.
// Text is never cut: a table wider than the figure is set in a smaller font,
// and rows that do not fit are counted in the note below the table.
#include <QList>
#include <QString>

#include "charts/figure_style.h"

class QAbstractItemModel;
class QPainter;
class QRectF;

namespace kwb::ui {

struct TableFigure {
    QString title;
    QString note;        // below the table (what it shows, the filter in effect)
    QList<int> columns;  // model columns, in order; empty: all
    int maxRows = -1;    // -1: as many as fit
    QString rowHeaderTitle; // non-empty: the vertical header is drawn as a first column of that name
};

// Returns the number of model rows drawn.
int paintTableFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style,
    const QAbstractItemModel& model, const TableFigure& table);

} // namespace kwb::ui
