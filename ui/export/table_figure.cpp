#include "export/table_figure.h"

#include <QAbstractItemModel>
#include <QBrush>
#include <QFontMetricsF>
#include <QPainter>
#include <QRectF>

#include <algorithm>

namespace kwb::ui {

namespace {

// Column -1 is the vertical header.
QString cellText(const QAbstractItemModel& m, int row, int col)
{
    const QVariant v = col < 0 ? m.headerData(row, Qt::Vertical) : m.data(m.index(row, col), Qt::DisplayRole);
    return v.toString().replace(QLatin1Char('\n'), QLatin1Char(' '));
}

Qt::Alignment cellAlignment(const QAbstractItemModel& m, int row, int col)
{
    if (col < 0) return Qt::AlignLeft | Qt::AlignVCenter;
    const QVariant a = m.data(m.index(row, col), Qt::TextAlignmentRole);
    const auto h = a.isValid() ? Qt::Alignment(a.toInt()) & Qt::AlignHorizontal_Mask : Qt::AlignLeft;
    return h | Qt::AlignVCenter;
}

QColor colorOf(const QVariant& v)
{
    if (v.userType() == QMetaType::QBrush) return v.value<QBrush>().color();
    if (v.userType() == QMetaType::QColor) return v.value<QColor>();
    return {};
}

} // namespace

int paintTableFigure(QPainter& p, const QRectF& rect, const FigureStyle& style, const QAbstractItemModel& model,
    const TableFigure& table)
{
    p.save();
    p.fillRect(rect, style.background);
    QList<int> cols = table.columns;
    if (cols.isEmpty())
        for (int c = 0; c < model.columnCount(); ++c) cols << c;
    if (!table.rowHeaderTitle.isEmpty()) cols.prepend(-1);
    auto headerText = [&](int c) {
        return c < 0 ? table.rowHeaderTitle : model.headerData(c, Qt::Horizontal).toString();
    };
    const int rows = model.rowCount();

    QFont font = style.font;
    QFont bold = font;
    bold.setBold(true);
    const double pad = 6;
    const QFontMetricsF titleFm(style.titleFont);
    double top = rect.top() + 2;
    if (!table.title.isEmpty()) {
        p.setFont(style.titleFont);
        p.setPen(style.foreground);
        const QRectF t = titleFm.boundingRect(QRectF(rect.left(), top, rect.width(), 1000),
            Qt::AlignLeft | Qt::TextWordWrap, table.title);
        p.drawText(QRectF(rect.left(), top, rect.width(), t.height()), Qt::AlignLeft | Qt::TextWordWrap, table.title);
        top += t.height() + 4;
    }

    // Column widths from the widest text among the rows shown. A table too wide
    // for the figure is set in a smaller font (down to 60%); if it still does not
    // fit, columns are left out from the right and the note names them: no cell
    // text is ever cut.
    auto widths = [&](const QFont& f, int upTo) {
        const QFontMetricsF fm(f);
        QFont hb = f;
        hb.setBold(true);
        const QFontMetricsF hfm(hb);
        QList<double> w;
        for (int c : cols) {
            double m = hfm.horizontalAdvance(headerText(c));
            for (int r = 0; r < upTo; ++r) m = std::max(m, fm.horizontalAdvance(cellText(model, r, c)));
            w << m + 2 * pad;
        }
        return w;
    };
    QStringList leftOut;
    auto noteFor = [&](int shownRows) -> QString {
        QString n = table.note;
        auto add = [&n](const QString& part) {
            if (!n.isEmpty()) n += QLatin1Char(' ');
            n += part;
        };
        if (shownRows < rows) add(QObject::tr("First %1 of %2 rows shown.").arg(shownRows).arg(rows));
        if (leftOut.size() > 4)
            add(QObject::tr("%1 columns left out for width (%2 … %3).").arg(leftOut.size()).arg(leftOut.front(), leftOut.back()));
        else if (!leftOut.isEmpty())
            add(QObject::tr("Columns left out for width: %1.").arg(leftOut.join(QStringLiteral(", "))));
        return n;
    };
    // Room for the note at its longest (every column named as left out).
    QString longHeaders;
    for (int c : cols) longHeaders = std::max(longHeaders, headerText(c), [](const QString& a, const QString& b) { return a.size() < b.size(); });
    const QFontMetricsF noteFm(style.font);
    const QString longestNote = noteFor(0) + QObject::tr(" 99 columns left out for width (%1 … %1).").arg(longHeaders);
    const double noteH = noteFm.boundingRect(QRectF(0, 0, rect.width(), 1000), Qt::TextWordWrap, longestNote).height() + 6;
    auto rowsThatFit = [&](const QFont& f) {
        const double rh = QFontMetricsF(f).height() + 4;
        int n = std::max(0, std::min(rows, static_cast<int>((rect.bottom() - top - rh - noteH - 4) / rh)));
        if (table.maxRows >= 0) n = std::min(n, table.maxRows);
        return n;
    };
    auto sum = [](const QList<double>& v) {
        double t = 0;
        for (double x : v) t += x;
        return t;
    };
    const int basePx = font.pixelSize() > 0 ? font.pixelSize() : static_cast<int>(font.pointSizeF() * kLayoutDpi / 72.0);
    const int minPx = std::max(6, static_cast<int>(basePx * 0.6));
    font.setPixelSize(basePx);
    int shown = rowsThatFit(font);
    QList<double> w = widths(font, shown);
    double total = sum(w);
    while (total > rect.width() && font.pixelSize() > minPx) {
        const double scale = std::max(0.85, rect.width() / total);
        font.setPixelSize(std::max(minPx, std::min(font.pixelSize() - 1, static_cast<int>(font.pixelSize() * scale))));
        shown = rowsThatFit(font);
        w = widths(font, shown);
        total = sum(w);
    }
    while (total > rect.width() && cols.size() > 1) {
        leftOut.prepend(headerText(cols.last()));
        cols.removeLast();
        w.removeLast();
        total = sum(w);
    }
    bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font);
    const double rowH = fm.height() + 4;

    QPen rule(style.foreground);
    rule.setWidthF(std::max(0.75, style.lineWidth * 0.6));
    QPen thin(style.foreground);
    thin.setWidthF(std::max(0.5, style.lineWidth * 0.35));
    const double left = rect.left();
    const double right = left + std::min(total, rect.width());
    p.setPen(rule);
    p.drawLine(QPointF(left, top), QPointF(right, top));
    // Header.
    p.setFont(bold);
    p.setPen(style.foreground);
    double x = left;
    for (int i = 0; i < cols.size(); ++i) {
        const Qt::Alignment a = rows > 0 ? cellAlignment(model, 0, cols[i]) : Qt::AlignLeft | Qt::AlignVCenter;
        p.drawText(QRectF(x + pad, top, w[i] - 2 * pad, rowH), a, headerText(cols[i]));
        x += w[i];
    }
    top += rowH;
    p.setPen(thin);
    p.drawLine(QPointF(left, top), QPointF(right, top));
    // Rows.
    p.setFont(font);
    for (int r = 0; r < shown; ++r) {
        x = left;
        for (int i = 0; i < cols.size(); ++i) {
            const QModelIndex idx = model.index(r, std::max(0, cols[i]));
            const QColor bg = cols[i] < 0 ? QColor() : colorOf(model.data(idx, Qt::BackgroundRole));
            if (bg.isValid()) p.fillRect(QRectF(x, top, w[i], rowH), bg);
            const QColor fg = cols[i] < 0 ? QColor() : colorOf(model.data(idx, Qt::ForegroundRole));
            p.setPen(fg.isValid() ? fg : style.foreground);
            p.drawText(QRectF(x + pad, top, w[i] - 2 * pad, rowH), cellAlignment(model, r, cols[i]), cellText(model, r, cols[i]));
            x += w[i];
        }
        top += rowH;
    }
    p.setPen(rule);
    p.drawLine(QPointF(left, top), QPointF(right, top));
    const QString note = noteFor(shown);
    if (!note.isEmpty()) {
        p.setFont(style.font);
        p.setPen(style.foreground);
        p.drawText(QRectF(left, top + 4, rect.width(), noteH), Qt::AlignLeft | Qt::TextWordWrap, note);
    }
    p.restore();
    return shown;
}

} // namespace kwb::ui
