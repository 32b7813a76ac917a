#include "views/scale_sweep_view.h"

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>
#include <map>

#include "export/paper_preset.h"
#include "workbench/workload_analysis.h"

namespace kwb::ui {

double LogAxis::map(double v) const
{
    const double t = (std::log10(std::max(v, 1e-300)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return a + t * (b - a);
}

std::vector<double> LogAxis::decades() const
{
    std::vector<double> out;
    for (double d = std::pow(10.0, std::ceil(std::log10(lo) - 1e-9)); d <= hi * (1 + 1e-9); d *= 10) out.push_back(d);
    return out;
}

ScaleSweepData loadScaleSweepData(const QString& manifestPath, const std::vector<WorkloadSummary>& ours)
{
    ScaleSweepData d;
    d.manifestPath = manifestPath;
    for (const auto& w : ours) d.ours.push_back({w.name, w.addressableFraction});
    if (manifestPath.isEmpty()) {
        d.error = QObject::tr("no scale sweep (datasets/scale_sweep/manifest.json) beside the project");
        return d;
    }
    auto m = readScaleSweepManifest(manifestPath.toStdString());
    if (!m.isOk()) {
        d.error = QString::fromStdString(m.status().toString());
        return d;
    }
    d.device = QString::fromStdString(m->device);
    WorkloadAnalysisRequest req;
    req.traces = scaleSweepTraces(*m, manifestPath.toStdString());
    auto a = analyseWorkloads(req);
    if (!a.isOk()) {
        d.error = QString::fromStdString(a.status().toString());
        return d;
    }
    std::vector<const WorkloadBreakdown*> bs;
    for (const auto& w : a->workloads) {
        bs.push_back(w.breakdown.get());
        if (!w.ok()) d.error += QString::fromStdString(w.status.toString()) + QLatin1Char('\n');
    }
    d.points = scaleSweepPoints(*m, manifestPath.toStdString(), bs);
    return d;
}

namespace {

QString paramsText(double p)
{
    return p >= 1e9 ? QStringLiteral("%1B").arg(p / 1e9, 0, 'g', 3) : QStringLiteral("%1M").arg(p / 1e6, 0, 'g', 3);
}

QString family(const ScaleSweepPoint& p)
{
    const auto n = QString::fromStdString(p.entry.name);
    return n.section(QLatin1Char('_'), 0, 0);
}

void marker(QPainter& p, QPointF c, double r, bool training, bool filled, const QColor& color, double lw)
{
    p.setPen(QPen(color, lw));
    p.setBrush(filled ? QBrush(color) : QBrush(Qt::white));
    if (!training) {
        p.drawEllipse(c, r, r);
    } else {
        QPainterPath tri;
        tri.moveTo(c.x(), c.y() - r * 1.15);
        tri.lineTo(c.x() + r * 1.1, c.y() + r * 0.8);
        tri.lineTo(c.x() - r * 1.1, c.y() + r * 0.8);
        tri.closeSubpath();
        p.drawPath(tri);
    }
}

} // namespace

void paintScaleSweep(QPainter& p, const QRectF& rect, const ScaleSweepData& d, const FigureStyle& style)
{
    p.save();
    p.fillRect(rect, style.background);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF fm(style.font);
    const double em = fm.height();
    if (d.points.empty()) {
        p.setFont(style.font);
        p.setPen(style.foreground);
        p.drawText(rect, Qt::AlignCenter | Qt::TextWordWrap, d.error.isEmpty() ? QObject::tr("No scale sweep") : d.error);
        p.restore();
        return;
    }
    const bool strip = !d.ours.empty();
    const double legendH = 3.8 * em; // up to three legend lines
    QRectF plot(rect.left() + 3.6 * em, rect.top() + 0.6 * em, rect.width() - 4.2 * em - (strip ? 3.2 * em : 0),
        rect.height() - 3.2 * em - legendH);
    double lo = 1e30, hi = 0;
    for (const auto& pt : d.points) {
        lo = std::min(lo, double(pt.entry.params));
        hi = std::max(hi, double(pt.entry.params));
    }
    LogAxis x{std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi))), plot.left(), plot.right()};
    auto y = [&](double f) { return plot.bottom() - f * plot.height(); };

    // The paper's references: GEMM + attention 80-86% (band), addressable 8.9-58.2% (bracketed range).
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0xE6, 0xE6, 0xE6));
    p.drawRect(QRectF(QPointF(plot.left(), y(kPaperVendorShareHigh)), QPointF(plot.right(), y(kPaperVendorShareLow))));
    QColor rangeColor = style.color(2);
    rangeColor.setAlpha(40);
    p.setBrush(rangeColor);
    p.drawRect(QRectF(QPointF(plot.left(), y(kPaperAddressableHigh)), QPointF(plot.right(), y(kPaperAddressableLow))));
    // Grid and axes.
    p.setFont(style.font);
    p.setPen(QPen(style.grid, style.lineWidth * 0.6));
    for (double f = 0; f <= 1.0001; f += 0.2) p.drawLine(QPointF(plot.left(), y(f)), QPointF(plot.right(), y(f)));
    for (double dcd : x.decades()) p.drawLine(QPointF(x.map(dcd), plot.top()), QPointF(x.map(dcd), plot.bottom()));
    p.setPen(QPen(style.foreground, style.lineWidth * 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    for (double f = 0; f <= 1.0001; f += 0.2)
        p.drawText(QRectF(rect.left(), y(f) - em / 2, 3.3 * em, em), Qt::AlignRight | Qt::AlignVCenter,
            QStringLiteral("%1%").arg(std::lround(f * 100)));
    for (double dcd : x.decades())
        p.drawText(QRectF(x.map(dcd) - 2 * em, plot.bottom() + 0.2 * em, 4 * em, em), Qt::AlignCenter, paramsText(dcd));
    p.setFont(style.titleFont);
    p.drawText(QRectF(plot.left(), plot.bottom() + 1.2 * em, plot.width(), em * 1.2), Qt::AlignCenter,
        QObject::tr("parameters (log scale)"));
    p.save();
    p.translate(rect.left() + 0.1 * em, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), em * 1.2), Qt::AlignCenter, QObject::tr("share of GPU time"));
    p.restore();

    // Families joined by phase, smallest first: does the share move with scale?
    const QColor inferColor = style.color(0);
    const QColor trainColor = style.color(1);
    std::map<std::pair<QString, bool>, std::vector<const ScaleSweepPoint*>> families;
    for (const auto& pt : d.points) families[{family(pt), pt.training}].push_back(&pt);
    for (auto& [key, pts] : families) {
        std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->entry.params < b->entry.params; });
        const QColor c = key.second ? trainColor : inferColor;
        for (int series = 0; series < 2; ++series) {
            QPen pen(c, style.lineWidth * 0.7, series ? Qt::DashLine : Qt::SolidLine);
            p.setPen(pen);
            for (std::size_t i = 1; i < pts.size(); ++i) {
                const double f0 = series ? pts[i - 1]->vendorShare : pts[i - 1]->addressableFraction;
                const double f1 = series ? pts[i]->vendorShare : pts[i]->addressableFraction;
                p.drawLine(QPointF(x.map(pts[i - 1]->entry.params), y(f0)), QPointF(x.map(pts[i]->entry.params), y(f1)));
            }
        }
    }
    const double r = std::max(2.0, 0.28 * em);
    for (const auto& pt : d.points) {
        const QColor c = pt.training ? trainColor : inferColor;
        const double px = x.map(pt.entry.params);
        marker(p, QPointF(px, y(pt.vendorShare)), r, pt.training, false, c, style.lineWidth * 0.8);
        marker(p, QPointF(px, y(pt.addressableFraction)), r, pt.training, true, c, style.lineWidth * 0.8);
    }
    // Family labels at each inference line's right end.
    p.setFont(style.font);
    for (auto& [key, pts] : families) {
        if (key.second || pts.empty()) continue;
        const auto* last = pts.back();
        p.setPen(QColor(0x44, 0x44, 0x44));
        p.drawText(QPointF(x.map(last->entry.params) + r + 2, y(last->addressableFraction) + em * 0.3), key.first);
    }

    // The project's own workloads: a strip at the right, at their addressable fraction.
    if (strip) {
        const double sx = plot.right() + 1.4 * em;
        p.setPen(QPen(style.foreground, style.lineWidth * 0.6));
        p.drawLine(QPointF(sx, plot.top()), QPointF(sx, plot.bottom()));
        const QColor oc = style.color(3);
        for (const auto& o : d.ours) {
            const QPointF c(sx, y(o.addressable));
            QPainterPath dia;
            dia.moveTo(c.x(), c.y() - r * 1.2);
            dia.lineTo(c.x() + r * 1.2, c.y());
            dia.lineTo(c.x(), c.y() + r * 1.2);
            dia.lineTo(c.x() - r * 1.2, c.y());
            dia.closeSubpath();
            p.setPen(QPen(oc.darker(130), style.lineWidth * 0.6));
            p.setBrush(oc);
            p.drawPath(dia);
        }
        p.setPen(style.foreground);
        p.save();
        p.translate(sx + 1.0 * em, plot.center().y());
        p.rotate(90);
        p.drawText(QRectF(-plot.height() / 2, -em, plot.height(), em * 1.2), Qt::AlignCenter,
            QObject::tr("our %1 workloads (addressable)").arg(d.ours.size()));
        p.restore();
    }

    // Legend, wrapped to the figure's width: the series, then the paper's references.
    p.setFont(style.font);
    double lx = plot.left();
    double ly = plot.bottom() + 2.6 * em + 0.9 * em;
    auto room = [&](double w) {
        if (lx + w > rect.right() && lx > plot.left()) {
            lx = plot.left();
            ly += 1.2 * em;
        }
    };
    auto entry = [&](const QString& text, bool training, bool filled, const QColor& c) {
        room(2.6 * r + fm.horizontalAdvance(text));
        marker(p, QPointF(lx + r, ly - em * 0.3), r, training, filled, c, style.lineWidth * 0.8);
        p.setPen(style.foreground);
        p.drawText(QPointF(lx + 2.6 * r, ly), text);
        lx += 2.6 * r + fm.horizontalAdvance(text) + em;
    };
    auto swatch = [&](const QString& text, const QColor& c) {
        room(1.6 * em + fm.horizontalAdvance(text));
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        p.drawRect(QRectF(lx, ly - 0.75 * em, 1.2 * em, 0.8 * em));
        p.setPen(style.foreground);
        p.drawText(QPointF(lx + 1.6 * em, ly), text);
        lx += 1.6 * em + fm.horizontalAdvance(text) + em;
    };
    entry(QObject::tr("addressable, inference"), false, true, inferColor);
    entry(QObject::tr("training"), true, true, trainColor);
    entry(QObject::tr("hollow: GEMM + attention"), false, false, inferColor);
    swatch(QObject::tr("paper: GEMM + attention 80–86%"), QColor(0xD6, 0xD6, 0xD6));
    QColor band = style.color(2);
    band.setAlpha(40);
    swatch(QObject::tr("paper: addressable 8.9–58.2%"), band);
    p.restore();
}

namespace {

class Canvas final : public QWidget {
public:
    explicit Canvas(const ScaleSweepView* view) : m_view(view) { setMinimumSize(420, 300); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        m_view->paintFigure(p, QRectF(rect()), FigureStyle::screen());
    }

private:
    const ScaleSweepView* m_view;
};

} // namespace

ScaleSweepView::ScaleSweepView(QWidget* parent)
    : FigureView(parent),
      m_sweep(std::make_shared<ScaleSweepData>()),
      m_watcher(new QFutureWatcher<std::shared_ptr<const ScaleSweepData>>(this)),
      m_header(new QLabel),
      m_table(new QTableWidget)
{
    setWindowTitle(tr("Scale sweep"));
    m_canvas = new Canvas(this);
    m_header->setWordWrap(true);
    m_table->setColumnCount(7);
    m_table->setHorizontalHeaderLabels({tr("workload"), tr("domain"), tr("parameters"), tr("phase"),
        tr("batch × seq"), tr("GEMM + attention"), tr("addressable")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSortingEnabled(true);
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("scaleSweepSplit"));
    split->addWidget(m_canvas);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);
    connect(m_watcher, &QFutureWatcherBase::finished, this, [this] {
        m_sweep = m_watcher->result();
        showSweep();
    });
    showSweep();
}

ScaleSweepView::~ScaleSweepView()
{
    m_watcher->waitForFinished();
}

bool ScaleSweepView::isBusy() const
{
    return m_watcher->isRunning();
}

void ScaleSweepView::setProjectData(ProjectDataPtr next)
{
    const QString manifest = paperDataPath(next->project, QStringLiteral("scale_sweep/manifest.json"));
    const std::vector<WorkloadSummary> ours = next->workloads;
    m_watcher->waitForFinished();
    m_watcher->setFuture(QtConcurrent::run([manifest, ours] {
        return std::shared_ptr<const ScaleSweepData>(std::make_shared<ScaleSweepData>(loadScaleSweepData(manifest, ours)));
    }));
}

QString ScaleSweepView::figureTitle() const
{
    return tr("Addressable fraction against model scale");
}

void ScaleSweepView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    paintScaleSweep(painter, rect, *m_sweep, style);
}

void ScaleSweepView::showSweep()
{
    const auto& d = *m_sweep;
    if (d.points.empty()) {
        m_header->setText(d.error.isEmpty() ? tr("Loading the scale sweep…") : d.error);
    } else {
        int infer = 0, inferAbove = 0;
        for (const auto& pt : d.points)
            if (!pt.training && pt.entry.domain == "transformer") {
                ++infer;
                inferAbove += pt.vendorShare >= kPaperVendorShareLow;
            }
        m_header->setText(tr("%1 captures from %2 (%3). Transformer inference reaching the paper's 80–86% GEMM + "
                             "attention share: %4 of %5.")
                              .arg(d.points.size())
                              .arg(QFileInfo(d.manifestPath).dir().dirName(), d.device)
                              .arg(inferAbove)
                              .arg(infer));
    }
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(d.points.size()));
    for (int i = 0; i < static_cast<int>(d.points.size()); ++i) {
        const auto& pt = d.points[static_cast<std::size_t>(i)];
        auto set = [&](int col, const QString& text, const QVariant& sortKey = {}) {
            auto* item = new QTableWidgetItem(text);
            if (sortKey.isValid()) item->setData(Qt::UserRole, sortKey);
            if (sortKey.isValid()) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(i, col, item);
        };
        set(0, QString::fromStdString(pt.entry.name));
        set(1, QString::fromStdString(pt.entry.domain));
        set(2, paramsText(double(pt.entry.params)), double(pt.entry.params));
        set(3, QString::fromStdString(pt.entry.phase));
        set(4, pt.entry.seq ? QStringLiteral("%1 × %2").arg(pt.entry.batch.value_or(0)).arg(*pt.entry.seq)
                            : QString::number(pt.entry.batch.value_or(0)));
        set(5, QStringLiteral("%1%").arg(pt.vendorShare * 100, 0, 'f', 1), pt.vendorShare);
        set(6, QStringLiteral("%1%").arg(pt.addressableFraction * 100, 0, 'f', 1), pt.addressableFraction);
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    m_canvas->update();
}

} // namespace kwb::ui
