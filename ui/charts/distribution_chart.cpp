#include "charts/distribution_chart.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QScatterSeries>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegendMarker>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QFontMetricsF>

#include <cmath>

#include "charts/decimation.h"

namespace kwb::ui {

namespace {

void styleAxis(QAbstractAxis* axis, const FigureStyle& style, const QString& title)
{
    axis->setLabelsFont(style.font);
    axis->setTitleFont(style.font);
    axis->setTitleText(title);
    axis->setLabelsColor(style.foreground);
    axis->setTitleBrush(style.foreground);
    QPen grid(style.grid);
    grid.setWidthF(std::max(0.5, style.lineWidth * 0.5));
    axis->setGridLinePen(grid);
    QPen line(style.foreground);
    line.setWidthF(std::max(0.5, style.lineWidth * 0.6));
    axis->setLinePen(line);
    if (auto* log = qobject_cast<QLogValueAxis*>(axis)) {
        log->setMinorTickCount(-1);
        QPen minor(style.grid.lighter(108));
        minor.setWidthF(std::max(0.3, style.lineWidth * 0.3));
        log->setMinorGridLinePen(minor);
    }
}

QChart* makeChart(const FigureStyle& style)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(style.background);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setTitleFont(style.titleFont);
    chart->setTitleBrush(style.foreground);
    chart->legend()->setFont(style.font);
    chart->legend()->setLabelColor(style.foreground);
    chart->legend()->setAlignment(Qt::AlignTop);
    return chart;
}

QLogValueAxis* logAxis(double lo, double hi)
{
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setLabelFormat(QStringLiteral("%g"));
    // Whole decades when the range allows, so ticks land on 0.1, 1, 10.
    double a = std::pow(10.0, std::floor(std::log10(lo)));
    double b = std::pow(10.0, std::ceil(std::log10(hi)));
    if (b / a < 10.0 + 1e-9) {
        a = lo / 1.25;
        b = hi * 1.25;
    }
    axis->setRange(a, b);
    return axis;
}

QPen seriesPen(const QColor& c, const FigureStyle& style)
{
    QPen pen(c);
    pen.setWidthF(style.lineWidth);
    pen.setCapStyle(Qt::FlatCap);
    pen.setJoinStyle(Qt::MiterJoin);
    return pen;
}

void addReferenceLine(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, double x0, double y0, double y1,
    const FigureStyle& style)
{
    auto* line = new QLineSeries;
    line->append(x0, y0);
    line->append(x0, y1);
    QPen pen(QColor(0x66, 0x66, 0x66));
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(std::max(0.75, style.lineWidth * 0.75));
    line->setPen(pen);
    line->setProperty(kGroupProperty, -1);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    for (auto* m : chart->legend()->markers(line)) m->setVisible(false);
}

// A legend that does not fit in one row above the plot goes to the right,
// one entry per line, so labels are not cut to "s...".
void finishLegend(QChart* chart, const DistributionData& data, const FigureStyle& style, int widthPx)
{
    chart->legend()->setVisible(data.groups.size() > 1);
    const QFontMetricsF fm(style.font);
    double needed = 0;
    for (const auto& g : data.groups) needed += fm.horizontalAdvance(g.name + QStringLiteral(" (n=0000)")) + 2.5 * fm.height();
    if (needed > 0.95 * widthPx) chart->legend()->setAlignment(Qt::AlignRight);
}

QChart* emptyChart(const FigureStyle& style)
{
    QChart* chart = makeChart(style);
    chart->setTitle(QObject::tr("No correct, timed records to show"));
    chart->legend()->setVisible(false);
    return chart;
}

// One outline per group, each normalised to the group's own correct, timed
// records (share per bin): overlaid translucent count histograms hid small
// groups under large ones and mixed their colours into look-alikes. Outlines in
// the colour-blind-safe palette, dashed from the fifth group on, n in the legend.
QChart* histogramChart(const DistributionData& data, const LogHistogram& h, const FigureStyle& style, int widthPx)
{
    QChart* chart = makeChart(style);
    auto* x = logAxis(h.edges.front(), h.edges.back());
    auto* y = new QValueAxis;
    y->setRange(0, std::max(0.05, h.maxShare * 1.08));
    y->setLabelFormat(QStringLiteral("%.2f"));
    y->applyNiceNumbers();
    styleAxis(x, style, QObject::tr("Speedup over baseline (log scale)"));
    styleAxis(y, style, QObject::tr("Share of the group's correct, timed records"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    const std::size_t bins = h.edges.size() - 1;
    const bool single = data.groups.size() == 1;
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        const auto& grp = data.groups[g];
        if (grp.speedups.empty()) continue;
        QList<QPointF> pts;
        pts.append(QPointF(h.edges[0], 0));
        for (std::size_t b = 0; b < bins; ++b) {
            const double v = h.share(data, g, b);
            pts.append(QPointF(h.edges[b], v));
            pts.append(QPointF(h.edges[b + 1], v));
        }
        pts.append(QPointF(h.edges[bins], 0));
        const QColor c = style.color(static_cast<int>(g));
        QPen pen = seriesPen(c, style);
        if (g >= 4) pen.setDashPattern({4.0, 2.0});
        const QString name = grp.name + QStringLiteral(" (n=%1)").arg(grp.speedups.size());
        QAbstractSeries* series = nullptr;
        if (single) {
            // One group: a filled histogram reads best.
            auto* upper = new QLineSeries;
            upper->append(pts);
            auto* area = new QAreaSeries(upper);
            QColor fill = c;
            fill.setAlphaF(0.6);
            area->setBrush(fill);
            area->setPen(pen);
            area->setName(name);
            series = area;
        } else {
            auto* line = new QLineSeries;
            line->append(pts);
            line->setPen(pen);
            line->setName(name);
            series = line;
        }
        series->setProperty(kGroupProperty, static_cast<int>(g));
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    if (h.edges.front() < 1.0 && h.edges.back() > 1.0) addReferenceLine(chart, x, y, 1.0, 0, y->max(), style);
    finishLegend(chart, data, style, widthPx);
    chart->legend()->setVisible(true);
    return chart;
}

QChart* ecdfChart(const DistributionData& data, const FigureStyle& style, int plotWidthPx)
{
    QChart* chart = makeChart(style);
    auto* x = logAxis(data.minSpeedup, data.maxSpeedup);
    auto* y = new QValueAxis;
    y->setRange(0, 1);
    y->setTickCount(6);
    y->setLabelFormat(QStringLiteral("%.1f"));
    styleAxis(x, style, QObject::tr("Speedup over baseline (log scale)"));
    styleAxis(y, style, QObject::tr("Share of correct records ≤ x"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        const auto& s = data.groups[g].speedups;
        if (s.empty()) continue;
        QList<QPointF> pts;
        pts.reserve(static_cast<qsizetype>(2 * s.size()));
        const double n = static_cast<double>(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            pts.append(QPointF(s[i], i / n));
            pts.append(QPointF(s[i], (i + 1) / n));
        }
        auto* line = new QLineSeries;
        line->replace(decimatePerColumn(pts, x->min(), x->max(), plotWidthPx, true));
        line->setName(data.groups[g].name);
        line->setPen(seriesPen(style.color(static_cast<int>(g)), style));
        line->setProperty(kGroupProperty, static_cast<int>(g));
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
    }
    if (x->min() < 1.0 && x->max() > 1.0) addReferenceLine(chart, x, y, 1.0, 0, 1, style);
    finishLegend(chart, data, style, plotWidthPx);
    return chart;
}

QChart* fastPChart(const DistributionData& data, const FigureStyle& style, int plotWidthPx)
{
    QChart* chart = makeChart(style);
    const double pMax = fastPAxisMax(data);
    auto* x = new QValueAxis;
    x->setRange(0, pMax);
    x->setLabelFormat(QStringLiteral("%g"));
    x->applyNiceNumbers();
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%.1f"));
    double yMax = 0;
    for (const auto& g : data.groups) yMax = std::max(yMax, g.fastP.atZero);
    y->setRange(0, std::max(0.1, std::min(1.0, yMax * 1.1)));
    y->applyNiceNumbers();
    styleAxis(x, style, QObject::tr("Speedup threshold p"));
    styleAxis(y, style, QObject::tr("fast_p"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        const FastPCurve& c = data.groups[g].fastP;
        QList<QPointF> pts;
        double prev = c.atZero;
        pts.append(QPointF(0, prev));
        for (std::size_t i = 0; i < c.breakpoints.size(); ++i) {
            const double b = c.breakpoints[i];
            if (b > x->max()) break;
            pts.append(QPointF(b, prev));
            pts.append(QPointF(b, c.valueAfter[i]));
            prev = c.valueAfter[i];
        }
        pts.append(QPointF(x->max(), c.evaluate(x->max())));
        auto* line = new QLineSeries;
        line->replace(decimatePerColumn(pts, 0, x->max(), plotWidthPx, false));
        line->setName(data.groups[g].name);
        line->setPen(seriesPen(style.color(static_cast<int>(g)), style));
        line->setProperty(kGroupProperty, static_cast<int>(g));
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
    }
    if (x->max() > 1.0) addReferenceLine(chart, x, y, 1.0, 0, y->max(), style);
    finishLegend(chart, data, style, plotWidthPx);
    return chart;
}

QChart* boxChart(const DistributionData& data, const FigureStyle& style)
{
    QChart* chart = makeChart(style);
    auto* x = new QBarCategoryAxis;
    auto* y = logAxis(data.minSpeedup, data.maxSpeedup);
    styleAxis(x, style, data.groupField.isEmpty() ? QString() : data.groupField);
    styleAxis(y, style, QObject::tr("Speedup (log scale)"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    auto* series = new QBoxPlotSeries;
    series->setProperty(kGroupProperty, 0);
    QStringList categories;
    // Outliers as points over their box: the claims a box plot exists to show.
    auto* outliers = new QScatterSeries;
    outliers->setName(QObject::tr("outliers"));
    outliers->setMarkerSize(std::max(4.0, 3.0 * style.lineWidth));
    outliers->setColor(style.foreground);
    outliers->setBorderColor(style.foreground);
    for (std::size_t g = 0; g < data.groups.size(); ++g) {
        const auto& grp = data.groups[g];
        if (grp.speedups.empty()) continue;
        for (double v : grp.outliers) outliers->append(static_cast<double>(categories.size()), v);
        auto* set = new QBoxSet(grp.whiskerLow, grp.q1, grp.median, grp.q3, grp.whiskerHigh, grp.name);
        QColor fill = style.color(static_cast<int>(g));
        QPen pen(fill);
        pen.setWidthF(style.lineWidth);
        set->setPen(pen);
        fill.setAlphaF(0.6);
        set->setBrush(fill);
        set->setProperty(kGroupProperty, static_cast<int>(g));
        series->append(set);
        // n per box: a box of 3 records looks as sure as one of 300.
        categories << grp.name + QStringLiteral(" (n=%1)").arg(grp.speedups.size());
    }
    x->append(categories);
    series->setBoxWidth(0.6);
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->addSeries(outliers);
    outliers->attachAxis(x);
    outliers->attachAxis(y);
    chart->legend()->setVisible(false);
    return chart;
}

} // namespace

QString distributionKindName(DistributionKind kind)
{
    switch (kind) {
    case DistributionKind::Histogram: return QStringLiteral("histogram");
    case DistributionKind::Ecdf: return QStringLiteral("ecdf");
    case DistributionKind::FastP: return QStringLiteral("fastp");
    case DistributionKind::Box: return QStringLiteral("box");
    }
    return {};
}

bool distributionKindFromName(const QString& name, DistributionKind* kind)
{
    for (auto k : {DistributionKind::Histogram, DistributionKind::Ecdf, DistributionKind::FastP, DistributionKind::Box})
        if (distributionKindName(k) == name) {
            *kind = k;
            return true;
        }
    return false;
}

QString distributionKindTitle(DistributionKind kind)
{
    switch (kind) {
    case DistributionKind::Histogram: return QObject::tr("Histogram (log axis)");
    case DistributionKind::Ecdf: return QObject::tr("ECDF");
    case DistributionKind::FastP: return QObject::tr("fast_p over p");
    case DistributionKind::Box: return QObject::tr("Box per group");
    }
    return {};
}

double fastPAxisMax(const DistributionData& data)
{
    std::vector<double> all;
    for (const auto& g : data.groups) all.insert(all.end(), g.speedups.begin(), g.speedups.end());
    const double q = quantile(all, 0.95).value_or(2.0);
    return std::max(2.0, std::ceil(q * 1.1 * 2.0) / 2.0);
}

QChart* buildDistributionChart(const DistributionData& data, const LogHistogram& histogram, DistributionKind kind,
    const FigureStyle& style, int plotWidthPx)
{
    if (data.empty()) return emptyChart(style);
    switch (kind) {
    case DistributionKind::Histogram:
        if (histogram.edges.size() < 2) return emptyChart(style);
        return histogramChart(data, histogram, style, plotWidthPx);
    case DistributionKind::Ecdf: return ecdfChart(data, style, plotWidthPx);
    case DistributionKind::FastP: return fastPChart(data, style, plotWidthPx);
    case DistributionKind::Box: return boxChart(data, style);
    }
    return emptyChart(style);
}

} // namespace kwb::ui
