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

    // Column widths from the widest text among the rows that can be shown; a
    // table too wide for the figure gets a smaller font rather than cut text.
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
    const int sample = std::min(rows, table.maxRows > 0 ? table.maxRows : 400);
    QList<double> w = widths(font, sample);
    double total = 0;
    for (double v : w) total += v;
    for (int i = 0; i < 6 && total > rect.width(); ++i) {
        const double scale = std::max(0.55, rect.width() / total);
        font.setPixelSize(std::max(6, static_cast<int>(font.pixelSize() > 0 ? font.pixelSize() * scale
                                                                            : font.pointSizeF() * scale * 96.0 / 72.0)));
        w = widths(font, sample);
        total = 0;
        for (double v : w) total += v;
    }
    bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font);
    const double rowH = fm.height() + 4;

    QFontMetricsF noteFm(style.font);
    auto noteFor = [&](int shown) {
        QString n = table.note;
        if (shown < rows) {
            if (!n.isEmpty()) n += QStringLiteral(" ");
            n += QObject::tr("First %1 of %2 rows shown.").arg(shown).arg(rows);
        }
        return n;
    };
    const double noteH = noteFm.boundingRect(QRectF(0, 0, rect.width(), 1000), Qt::TextWordWrap, noteFor(0)).height() + 6;
    const double available = rect.bottom() - top - rowH - noteH - 4;
    int shown = std::max(0, std::min(rows, static_cast<int>(available / rowH)));
    if (table.maxRows >= 0) shown = std::min(shown, table.maxRows);

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
