#include "views/claims_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "views/scale_sweep_view.h"

namespace kwb::ui {

QColor claimVerdictColor(ClaimVerdict v, const FigureStyle& style)
{
    // Okabe-Ito: holds blue-green, smaller sky blue, lost orange, suspect yellow-brown, failed vermillion.
    switch (v) {
    case ClaimVerdict::Holds: return QColor(0x00, 0x9E, 0x73);
    case ClaimVerdict::Shrank: return QColor(0x56, 0xB4, 0xE9);
    case ClaimVerdict::Lost: return QColor(0xE6, 0x9F, 0x00);
    case ClaimVerdict::Suspect: return QColor(0xCC, 0x79, 0xA7);
    case ClaimVerdict::Failed: return QColor(0xD5, 0x5E, 0x00);
    case ClaimVerdict::NotReMeasured: return style.grid.darker(130);
    case ClaimVerdict::NotAClaim: return QColor(0x99, 0x99, 0x99);
    }
    return style.foreground;
}

ClaimsPlot layoutClaimsPlot(const QRectF& rect, const std::vector<ClaimPoint>& points, const FigureStyle& style)
{
    ClaimsPlot l;
    const double em = QFontMetricsF(style.font).height();
    double lo = 1e30, hi = 0;
    for (const auto& p : points)
        for (auto v : {p.claimed, p.reMeasured})
            if (v && *v > 0) {
                lo = std::min(lo, *v);
                hi = std::max(hi, *v);
            }
    if (hi <= 0) lo = 0.1, hi = 10;
    l.lo = std::pow(10.0, std::floor(std::log10(lo)));
    l.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (l.hi / l.lo < 100) l.hi = l.lo * 100;
    // Room for the y tick labels and title at the left, the legend at the right.
    const QFontMetricsF fm(style.font);
    double legendW = fm.horizontalAdvance(QObject::tr("dashed: as claimed"));
    for (int v = 0; v < kClaimVerdictCount; ++v)
        legendW = std::max(legendW, fm.horizontalAdvance(QStringLiteral("%1 (%2)")
                                                             .arg(QString::fromUtf8(claimVerdictTitle(static_cast<ClaimVerdict>(v)).data()))
                                                             .arg(points.size())));
    legendW += 2.2 * em;
    l.left = fm.horizontalAdvance(QStringLiteral("1000×")) + 0.4 * em;
    const double side = std::min(rect.width() - l.left - 1.6 * em - legendW, rect.height() - 3.4 * em);
    l.plot = QRectF(rect.left() + l.left + 1.5 * em, rect.top() + 0.6 * em, std::max(10.0, side), std::max(10.0, side));
    const LogAxis x{l.lo, l.hi, l.plot.left(), l.plot.right()};
    const LogAxis y{l.lo, l.hi, l.plot.bottom(), l.plot.top()};
    for (const auto& p : points) {
        if (p.claimed && p.reMeasured) l.positions.emplace_back(x.map(*p.claimed), y.map(*p.reMeasured));
        else l.positions.emplace_back(std::nan(""), std::nan(""));
    }
    return l;
}

void paintClaimsScatter(QPainter& p, const QRectF& rect, const std::vector<ClaimPoint>& points, const FigureStyle& style,
    int highlighted)
{
    p.save();
    p.fillRect(rect, style.background);
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(style.font);
    const QFontMetricsF fm(style.font);
    const double em = fm.height();
    const ClaimsPlot l = layoutClaimsPlot(rect, points, style);
    const LogAxis x{l.lo, l.hi, l.plot.left(), l.plot.right()};
    const LogAxis y{l.lo, l.hi, l.plot.bottom(), l.plot.top()};
    // Grid at decades, the speedup = 1 lines, the diagonal (the claim reproduced).
    p.setPen(QPen(style.grid, style.lineWidth * 0.6));
    for (double d : x.decades()) {
        p.drawLine(QPointF(x.map(d), l.plot.top()), QPointF(x.map(d), l.plot.bottom()));
        p.drawLine(QPointF(l.plot.left(), y.map(d)), QPointF(l.plot.right(), y.map(d)));
    }
    p.setPen(QPen(QColor(0x88, 0x88, 0x88), style.lineWidth * 0.8, Qt::DashLine));
    p.drawLine(QPointF(l.plot.left(), l.plot.bottom()), QPointF(l.plot.right(), l.plot.top()));
    p.setPen(QPen(QColor(0xAA, 0xAA, 0xAA), style.lineWidth * 0.6, Qt::DotLine));
    p.drawLine(QPointF(x.map(1), l.plot.top()), QPointF(x.map(1), l.plot.bottom()));
    p.drawLine(QPointF(l.plot.left(), y.map(1)), QPointF(l.plot.right(), y.map(1)));
    p.setPen(QPen(style.foreground, style.lineWidth * 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.plot);
    auto tick = [](double d) { return d >= 1 ? QStringLiteral("%1×").arg(d, 0, 'g', 4) : QStringLiteral("%1×").arg(d, 0, 'g', 2); };
    for (double d : x.decades()) {
        p.drawText(QRectF(x.map(d) - 2 * em, l.plot.bottom() + 0.2 * em, 4 * em, em), Qt::AlignCenter, tick(d));
        p.drawText(QRectF(l.plot.left() - l.left - 0.2 * em, y.map(d) - em / 2, l.left, em), Qt::AlignRight | Qt::AlignVCenter, tick(d));
    }
    p.setFont(style.titleFont);
    p.drawText(QRectF(l.plot.left(), l.plot.bottom() + 1.2 * em, l.plot.width(), 1.2 * em), Qt::AlignCenter,
        QObject::tr("claimed speedup"));
    p.save();
    p.translate(rect.left() + 0.1 * em, l.plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-l.plot.height() / 2, 0, l.plot.height(), 1.2 * em), Qt::AlignCenter, QObject::tr("re-measured speedup"));
    p.restore();
    p.setFont(style.font);
    // Points: failed ones first so the surviving ones stay visible on top.
    const double r = std::max(2.0, 0.27 * em);
    std::vector<std::size_t> order(points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return static_cast<int>(points[a].verdict) > static_cast<int>(points[b].verdict);
    });
    int counts[kClaimVerdictCount] = {};
    for (std::size_t i : order) {
        const QPointF c = l.positions[i];
        if (std::isnan(c.x())) continue;
        ++counts[static_cast<int>(points[i].verdict)];
        const QColor col = claimVerdictColor(points[i].verdict, style);
        p.setPen(QPen(col.darker(140), style.lineWidth * 0.5));
        QColor fill = col;
        fill.setAlpha(200);
        p.setBrush(fill);
        p.drawEllipse(c, r, r);
    }
    if (highlighted >= 0 && highlighted < static_cast<int>(points.size()) && !std::isnan(l.positions[static_cast<std::size_t>(highlighted)].x())) {
        p.setPen(QPen(style.foreground, style.lineWidth * 1.2));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(l.positions[static_cast<std::size_t>(highlighted)], r * 2.2, r * 2.2);
    }
    // Legend at the right: verdicts with their counts.
    double ly = l.plot.top() + 0.5 * em;
    const double lx = l.plot.right() + 1.0 * em;
    for (int v = 0; v < kClaimVerdictCount; ++v) {
        if (v == static_cast<int>(ClaimVerdict::NotReMeasured)) continue;
        const QColor col = claimVerdictColor(static_cast<ClaimVerdict>(v), style);
        p.setPen(QPen(col.darker(140), style.lineWidth * 0.5));
        p.setBrush(col);
        p.drawEllipse(QPointF(lx + r, ly - 0.3 * em), r, r);
        p.setPen(style.foreground);
        p.drawText(QPointF(lx + 3 * r, ly), QStringLiteral("%1 (%2)")
                                                 .arg(QString::fromUtf8(claimVerdictTitle(static_cast<ClaimVerdict>(v)).data()))
                                                 .arg(counts[v]));
        ly += 1.3 * em;
    }
    p.setPen(QColor(0x66, 0x66, 0x66));
    p.drawText(QPointF(lx, ly + 0.4 * em), QObject::tr("dashed: as claimed"));
    p.restore();
}

namespace {

class Canvas final : public QWidget {
public:
    explicit Canvas(ClaimsView* view) : m_view(view)
    {
        setMinimumSize(380, 300);
        setMouseTracking(true);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        m_view->paintFigure(p, QRectF(rect()), FigureStyle::screen());
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        const int i = m_view->pointAt(e->position());
        if (i >= 0) m_view->activatePoint(i);
    }
    void mouseMoveEvent(QMouseEvent* e) override
    {
        const int i = m_view->pointAt(e->position());
        if (i < 0) {
            QToolTip::hideText();
            return;
        }
        const ClaimPoint& c = m_view->points()[static_cast<std::size_t>(i)];
        QToolTip::showText(e->globalPosition().toPoint(),
            QObject::tr("%1 (%2)\nclaimed %3× on %4\nre-measured %5× on %6\n%7%8")
                .arg(QString::fromStdString(c.id), QString::fromStdString(c.model))
                .arg(c.claimed.value_or(0), 0, 'g', 3)
                .arg(QString::fromStdString(c.claimedGpu.empty() ? std::string("?") : c.claimedGpu))
                .arg(c.reMeasured.value_or(0), 0, 'g', 3)
                .arg(QString::fromStdString(c.reMeasuredGpu.empty() ? std::string("?") : c.reMeasuredGpu))
                .arg(QString::fromUtf8(claimVerdictTitle(c.verdict).data()))
                .arg(c.flags.empty() ? QString() : QStringLiteral(": ") + QString::fromStdString([&] {
                    std::string s;
                    for (const auto& f : c.flags) s += (s.empty() ? "" : ", ") + f;
                    return s;
                }())),
            this);
    }

private:
    ClaimsView* m_view;
};

} // namespace

ClaimsView::ClaimsView(QWidget* parent)
    : FigureView(parent), m_data(std::make_shared<ProjectData>()), m_summary(new QLabel), m_tallies(new QTableWidget)
{
    setWindowTitle(tr("Claimed vs verified"));
    m_canvas = new Canvas(this);
    m_canvas->setObjectName(QStringLiteral("claimsCanvas"));
    m_summary->setWordWrap(true);
    const QStringList cols{tr("model"), tr("claims"), tr("re-measured"), tr("survive"), tr("holds"), tr("smaller win"),
        tr("no longer a win"), tr("suspect"), tr("failed"), tr("not re-measured"), tr("median re-measured / claimed")};
    m_tallies->setColumnCount(cols.size());
    m_tallies->setHorizontalHeaderLabels(cols);
    m_tallies->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tallies->verticalHeader()->hide();
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("claimsSplit"));
    split->addWidget(m_canvas);
    split->addWidget(m_tallies);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    fill();
}

void ClaimsView::setProjectData(ProjectDataPtr next)
{
    m_data = std::move(next);
    m_highlighted = -1;
    m_points = analyzeClaims(m_data->records->records);
    fill();
}

QString ClaimsView::figureTitle() const
{
    return tr("Claimed against re-measured speedup");
}

void ClaimsView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    paintClaimsScatter(painter, rect, m_points, style, m_highlighted);
}

int ClaimsView::pointAt(const QPointF& pos) const
{
    const ClaimsPlot l = layoutClaimsPlot(QRectF(m_canvas->rect()), m_points, FigureStyle::screen());
    int best = -1;
    double bestD = 8.0 * 8.0; // within 8 px
    for (std::size_t i = 0; i < l.positions.size(); ++i) {
        const QPointF d = l.positions[i] - pos;
        const double dd = d.x() * d.x() + d.y() * d.y();
        if (!std::isnan(dd) && dd < bestD) {
            bestD = dd;
            best = static_cast<int>(i);
        }
    }
    return best;
}

void ClaimsView::activatePoint(int point)
{
    if (point < 0 || point >= static_cast<int>(m_points.size())) return;
    m_highlighted = point;
    m_canvas->update();
    const ClaimPoint& c = m_points[static_cast<std::size_t>(point)];
    Q_EMIT statusMessage(tr("%1: claimed %2×, re-measured %3× — %4")
                             .arg(QString::fromStdString(c.id))
                             .arg(c.claimed.value_or(0), 0, 'g', 3)
                             .arg(c.reMeasured.value_or(0), 0, 'g', 3)
                             .arg(QString::fromUtf8(claimVerdictTitle(c.verdict).data())));
    Q_EMIT recordActivated(static_cast<int>(c.record));
}

void ClaimsView::fill()
{
    const auto tallies = tallyClaims(m_points);
    int drawn = 0;
    for (const auto& p : m_points) drawn += p.claimed && p.reMeasured;
    if (m_points.empty() || tallies.back().reMeasured == 0) {
        m_summary->setText(tr("No record with a claimed speedup has been re-run. kwb verify re-runs records and keeps "
                              "each one's claimed speedup and hardware beside what it measured."));
    } else {
        const auto& all = tallies.back();
        m_summary->setText(tr("%1 of %2 re-measured claims survive (correct, unflagged and still faster than the "
                              "baseline); %3 records drawn. Click a point to open its record.")
                               .arg(all.survived())
                               .arg(all.reMeasured)
                               .arg(drawn));
    }
    m_tallies->setRowCount(static_cast<int>(tallies.size()));
    for (int i = 0; i < static_cast<int>(tallies.size()); ++i) {
        const auto& t = tallies[static_cast<std::size_t>(i)];
        QStringList cells{QString::fromStdString(t.model), QString::number(t.claims), QString::number(t.reMeasured),
            t.reMeasured ? QStringLiteral("%1 (%2%)").arg(t.survived()).arg(std::lround(100.0 * t.survived() / t.reMeasured))
                         : QStringLiteral("–")};
        for (int v = 0; v <= static_cast<int>(ClaimVerdict::NotReMeasured); ++v) cells << QString::number(t.byVerdict[v]);
        cells << (t.medianRatio ? QString::number(*t.medianRatio, 'f', 2) : QStringLiteral("–"));
        for (int c = 0; c < cells.size(); ++c) m_tallies->setItem(i, c, new QTableWidgetItem(cells[c]));
    }
    m_tallies->resizeColumnsToContents();
    m_canvas->update();
}

} // namespace kwb::ui
