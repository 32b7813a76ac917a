#include "export/table_export.h"

#include <QAbstractItemModel>
#include <QStringList>

namespace kwb::ui {

namespace {

QString cell(const QString& text, TableTextFormat format)
{
    switch (format) {
    case TableTextFormat::Tsv: {
        QString t = text;
        return t.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
    }
    case TableTextFormat::Markdown: {
        QString t = text;
        return t.replace(QLatin1Char('|'), QLatin1String("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
    }
    case TableTextFormat::Csv:
        if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
            return text;
        return QLatin1Char('"') + QString(text).replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
    }
    return text;
}

QString line(const QStringList& cells, TableTextFormat format)
{
    switch (format) {
    case TableTextFormat::Tsv: return cells.join(QLatin1Char('\t'));
    case TableTextFormat::Markdown: return QLatin1String("| ") + cells.join(QLatin1String(" | ")) + QLatin1String(" |");
    case TableTextFormat::Csv: return cells.join(QLatin1Char(','));
    }
    return {};
}

} // namespace

QString tableText(const QAbstractItemModel& model, TableTextFormat format, const QList<int>& rows)
{
    const int columns = model.columnCount();
    QStringList out;
    QStringList header;
    for (int c = 0; c < columns; ++c)
        header << cell(model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString(), format);
    out << line(header, format);
    if (format == TableTextFormat::Markdown) {
        QStringList rule;
        for (int c = 0; c < columns; ++c) rule << QStringLiteral("---");
        out << line(rule, format);
    }
    QList<int> which = rows;
    if (which.isEmpty())
        for (int r = 0; r < model.rowCount(); ++r) which << r;
    for (int r : which) {
        QStringList cells;
        for (int c = 0; c < columns; ++c) cells << cell(model.index(r, c).data(Qt::DisplayRole).toString(), format);
        out << line(cells, format);
    }
    return out.join(format == TableTextFormat::Csv ? QLatin1String("\r\n") : QLatin1String("\n")) +
           (format == TableTextFormat::Csv ? QLatin1String("\r\n") : QLatin1String("\n"));
}

} // namespace kwb::ui
