#include "charts/workload_charts.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QLegendMarker>
#include <QCoreApplication>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QLegend>
#include <QPainter>
#include <QPieSeries>
#include <QPieSlice>

#include <cmath>
#include <memory>

namespace kwb::ui {

namespace {

// Warm hues for addressable categories, cool and neutral ones for libraries.
const QList<QColor>& warmColors()
{
    static const QList<QColor> c{QColor(0xE6, 0x9F, 0x00), QColor(0xD5, 0x5E, 0x00), QColor(0xCC, 0x79, 0xA7),
        QColor(0xF0, 0xE4, 0x42), QColor(0x99, 0x4F, 0x00), QColor(0xF5, 0xC7, 0x66), QColor(0xE8, 0x9E, 0x80),
        QColor(0x88, 0x2E, 0x72), QColor(0xE3, 0xB5, 0xCF), QColor(0xC8, 0xB4, 0x00), QColor(0xFF, 0xD8, 0xB0)};
    return c;
}

const QList<QColor>& coolColors()
{
    static const QList<QColor> c{QColor(0x00, 0x72, 0xB2), QColor(0x56, 0xB4, 0xE9), QColor(0x00, 0x9E, 0x73),
        QColor(0x33, 0x33, 0x33), QColor(0x80, 0xB8, 0xD8), QColor(0x66, 0xC4, 0xAB), QColor(0x99, 0x99, 0x99)};
    return c;
}

const QString kOtherAddressable = QStringLiteral("other (addressable)");
const QString kOther = QStringLiteral("other");

} // namespace

void paintChart(QPainter& painter, const QRectF& rect, QChart* chart)
{
    QGraphicsScene scene;
    scene.addItem(chart); // the scene owns and deletes it
    chart->setGeometry(QRectF(QPointF(0, 0), rect.size()));
    // Charts lay out in posted events; flush the chart's and the scene's own
    // (not the whole queue: this also runs inside widgets' paint events).
    QCoreApplication::sendPostedEvents(chart, 0);
    chart->layout()->activate();
    QCoreApplication::sendPostedEvents(chart, 0);
    QCoreApplication::sendPostedEvents(&scene, 0);
    scene.setSceneRect(QRectF(QPointF(0, 0), rect.size()));
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    scene.render(&painter, rect, QRectF(QPointF(0, 0), rect.size()), Qt::IgnoreAspectRatio);
    painter.restore();
}

QMap<QString, QColor> categoryColors(const std::vector<WorkloadSummary>& workloads)
{
    // Rank categories by their total share across workloads, so the largest get the strongest colours.
    QMap<QString, double> addressable;
    QMap<QString, double> library;
    for (const auto& w : workloads)
        for (const auto& c : w.categories) (c.addressable ? addressable : library)[c.category] += c.share;
    auto assign = [](const QMap<QString, double>& cats, const QList<QColor>& colors, QMap<QString, QColor>& out) {
        QList<QPair<double, QString>> order;
        for (auto it = cats.begin(); it != cats.end(); ++it) order.append({-it.value(), it.key()});
        std::sort(order.begin(), order.end());
        for (qsizetype i = 0; i < order.size(); ++i) out[order[i].second] = colors[i % colors.size()];
    };
    QMap<QString, QColor> out;
    assign(addressable, warmColors(), out);
    assign(library, coolColors(), out);
    out[kOtherAddressable] = QColor(0xF2, 0xD0, 0x9A);
    out[kOther] = QColor(0xBB, 0xBB, 0xBB);
    return out;
}

QChart* buildWorkloadPie(const WorkloadSummary& w, const QMap<QString, QColor>& colors, const FigureStyle& style,
    bool legend, double minShare)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(style.background);
    chart->setMargins(QMargins(0, 0, 0, 0));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setTitleFont(legend ? style.titleFont : style.font);
    chart->setTitleBrush(style.foreground);
    // Small multiples (no legend) keep the title short enough for narrow cells: Qt Charts
    // elides a title line that does not fit, so a long name breaks after its last '_'.
    QString name = w.name.toHtmlEscaped();
    if (!legend && name.size() > 11) {
        const int cut = name.lastIndexOf(QLatin1Char('_'));
        if (cut > 0) name = name.left(cut + 1) + QLatin1String("<br>") + name.mid(cut + 1);
    }
    chart->setTitle(name + QLatin1String("<br>") +
                    (legend ? QObject::tr("addressable %1%") : QObject::tr("%1% addr."))
                        .arg(100.0 * w.addressableFraction, 0, 'f', 1));
    chart->legend()->setVisible(legend);
    chart->legend()->setFont(style.font);
    chart->legend()->setAlignment(Qt::AlignRight);

    auto* series = new QPieSeries;
    series->setPieSize(0.78);
    double otherA = 0;
    double other = 0;
    // Addressable slices first, so they sit together and stand out together.
    for (int pass = 0; pass < 2; ++pass) {
        const bool wantAddressable = pass == 0;
        for (const auto& c : w.categories) {
            if (c.addressable != wantAddressable) continue;
            if (c.share < minShare) {
                (c.addressable ? otherA : other) += c.share;
                continue;
            }
            auto* s = series->append(c.category, c.share);
            s->setProperty("kwbAddressable", c.addressable);
            s->setProperty("kwbUs", c.us);
        }
        const double rest = wantAddressable ? otherA : other;
        if (rest > 0) {
            auto* s = series->append(wantAddressable ? kOtherAddressable : kOther, rest);
            s->setProperty("kwbAddressable", wantAddressable);
        }
    }
    QPen border(style.background);
    border.setWidthF(std::max(0.5, style.lineWidth * 0.6));
    for (auto* s : series->slices()) {
        s->setBrush(colors.value(s->label(), QColor(0x99, 0x99, 0x99)));
        s->setPen(border);
        const bool addressable = s->property("kwbAddressable").toBool();
        s->setExploded(addressable);
        s->setExplodeDistanceFactor(0.08);
        s->setLabelFont(style.font);
        s->setLabel(s->label() + QLatin1String(" ") + QString::number(100.0 * s->value(), 'f', 1) + QLatin1Char('%'));
        s->setLabelVisible(false);
    }
    chart->addSeries(series);
    if (legend) {
        for (auto* m : chart->legend()->markers(series)) m->setFont(style.font);
    }
    return chart;
}

namespace {

// Lets word wrap break a long identifier after '_' or '/', where names split naturally.
QString breakable(const QString& name)
{
    QString out = name;
    out.replace(QLatin1Char('_'), QStringLiteral("_\u200B"));
    out.replace(QLatin1Char('/'), QStringLiteral("/\u200B"));
    return out;
}

constexpr int kTitleFlags = Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap;

} // namespace

void paintWorkloadPie(QPainter& p, const QRectF& rect, const WorkloadSummary& w, const QMap<QString, QColor>& colors,
    const FigureStyle& style)
{
    p.save();
    p.fillRect(rect, style.background);
    const QString title = breakable(w.name) +
                          QObject::tr(" — addressable %1% of GPU kernel time").arg(100.0 * w.addressableFraction, 0, 'f', 1);
    const QFontMetricsF fm(style.titleFont);
    const QRectF box(rect.left() + 4, rect.top() + 2, rect.width() - 8, rect.height());
    const double h = fm.boundingRect(box, kTitleFlags, title).height();
    p.setFont(style.titleFont);
    p.setPen(style.foreground);
    p.drawText(QRectF(box.left(), box.top(), box.width(), h), kTitleFlags, title);
    // The legend is drawn here too: Qt Charts' legend elides labels that do not fit.
    QChart* chart = buildWorkloadPie(w, colors, style, false);
    chart->setTitle(QString());
    QList<QPair<QColor, QString>> entries;
    for (auto* series : chart->series())
        if (auto* pie = qobject_cast<QPieSeries*>(series))
            for (auto* slice : pie->slices()) entries.append({slice->brush().color(), slice->label()});
    const QFontMetricsF lfm(style.font);
    const double sw = lfm.height() * 0.8;
    double legendW = 0;
    for (const auto& e : entries) legendW = std::max(legendW, sw + 6 + lfm.horizontalAdvance(e.second));
    legendW = std::min(legendW + 8, rect.width() * 0.45);
    const QRectF body = rect.adjusted(0, h + 6, 0, 0);
    paintChart(p, QRectF(body.left(), body.top(), body.width() - legendW, body.height()), chart);
    const double lineH = lfm.height() * 1.5;
    double y = body.top() + std::max(0.0, (body.height() - lineH * static_cast<double>(entries.size())) / 2);
    p.setFont(style.font);
    for (const auto& [color, label] : entries) {
        const double x = body.right() - legendW + 4;
        p.fillRect(QRectF(x, y + (lfm.height() - sw) / 2, sw, sw), color);
        p.setPen(style.foreground);
        p.drawText(QRectF(x + sw + 6, y, legendW - sw - 10, lineH), Qt::AlignLeft | Qt::TextWordWrap, label);
        y += lineH;
    }
    p.restore();
}

void paintWorkloadPies(QPainter& p, const QRectF& rect, const std::vector<WorkloadSummary>& workloads,
    const FigureStyle& style)
{
    p.save();
    p.fillRect(rect, style.background);
    p.setFont(style.font);
    p.setPen(style.foreground);
    if (workloads.empty()) {
        p.drawText(rect, Qt::AlignCenter, QObject::tr("No profiler traces loaded"));
        p.restore();
        return;
    }
    const auto colors = categoryColors(workloads);

    // Shared legend: addressable categories, then library ones, in rows.
    QStringList cats;
    QStringList addrCats;
    for (const auto& w : workloads)
        for (const auto& c : w.categories) {
            if (c.share < 0.01) continue;
            QStringList& target = c.addressable ? addrCats : cats;
            if (!target.contains(c.category)) target << c.category;
        }
    const QStringList legendItems = addrCats + cats;
    const QFontMetricsF fm(style.font);
    const double sw = fm.height() * 0.8;
    double x = rect.left() + 4;
    double rows = 1;
    for (const auto& c : legendItems) {
        const double itemW = sw + 4 + fm.horizontalAdvance(c) + 10;
        if (x + itemW > rect.right() && x > rect.left() + 4) {
            x = rect.left() + 4;
            ++rows;
        }
        x += itemW;
    }
    const QString note = QObject::tr("Exploded, warm slices: addressable (framework, Triton) kernels; cool slices: "
                                     "vendor libraries. Percent: addressable share of GPU kernel time.");
    // Narrower than the figure: SVG viewers may substitute a wider font.
    const double noteWidth = (rect.width() - 8) * 0.9;
    const double noteH =
        fm.boundingRect(QRectF(0, 0, noteWidth, 1000), Qt::TextWordWrap | Qt::AlignLeft, note).height();
    const double legendH = rows * (fm.height() + 2) + noteH + 6;
    const QRectF grid(rect.left(), rect.top(), rect.width(), rect.height() - legendH);

    // Grid of cells close to square.
    const int n = static_cast<int>(workloads.size());
    int bestCols = 1;
    double bestSide = 0;
    for (int cols = 1; cols <= n; ++cols) {
        const int r = (n + cols - 1) / cols;
        const double side = std::min(grid.width() / cols, grid.height() / r);
        if (side > bestSide) {
            bestSide = side;
            bestCols = cols;
        }
    }
    const int cols = bestCols;
    const int gridRows = (n + cols - 1) / cols;
    const double cw = grid.width() / cols;
    const double ch = grid.height() / gridRows;
    // Titles in a band as tall as the tallest (wrapped) title: every pie gets the same square.
    auto cellTitle = [](const WorkloadSummary& w) -> QString {
        return breakable(w.name) + QLatin1Char('\n') +
               QObject::tr("%1% addr.").arg(100.0 * w.addressableFraction, 0, 'f', 1);
    };
    double band = 0;
    for (const auto& w : workloads)
        band = std::max(band, fm.boundingRect(QRectF(0, 0, cw - 4, 1000), kTitleFlags, cellTitle(w)).height());
    band = std::min(band, ch * 0.45);
    for (int i = 0; i < n; ++i) {
        const QRectF cell(grid.left() + (i % cols) * cw, grid.top() + (i / cols) * ch, cw, ch);
        const WorkloadSummary& w = workloads[static_cast<std::size_t>(i)];
        p.setFont(style.font);
        p.setPen(style.foreground);
        p.drawText(QRectF(cell.left() + 2, cell.top() + 2, cw - 4, band), kTitleFlags, cellTitle(w));
        QChart* chart = buildWorkloadPie(w, colors, style, false);
        chart->setTitle(QString());
        paintChart(p, QRectF(cell.left() + 2, cell.top() + 2 + band, cw - 4, ch - band - 4), chart);
    }

    // Legend.
    p.setFont(style.font);
    p.setPen(style.foreground);
    double y = grid.bottom() + 4;
    p.drawText(QRectF(rect.left() + 4, y, noteWidth, noteH), Qt::AlignLeft | Qt::TextWordWrap, note);
    y += noteH + 2;
    x = rect.left() + 4;
    for (const auto& c : legendItems) {
        const double itemW = sw + 4 + fm.horizontalAdvance(c) + 10;
        if (x + itemW > rect.right() && x > rect.left() + 4) {
            x = rect.left() + 4;
            y += fm.height() + 2;
        }
        p.fillRect(QRectF(x, y + (fm.height() - sw) / 2, sw, sw), colors.value(c));
        p.drawText(QRectF(x + sw + 4, y, itemW, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, c);
        x += itemW;
    }
    p.restore();
}

} // namespace kwb::ui
