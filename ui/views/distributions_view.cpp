#include "views/distributions_view.h"

#include <QAreaSeries>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QHeaderView>
#include <QLineSeries>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "project/project_loader.h"

#include <cmath>

#include "charts/workload_charts.h"
#include "models/group_stats_model.h"

namespace kwb::ui {

namespace {

QString fmt(double v)
{
    return QString::number(v, 'g', 3);
}

} // namespace

DistributionsView::DistributionsView(QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_kindBox(new QComboBox),
      m_groupBox(new QComboBox),
      m_summary(new QLabel),
      m_hover(new QLabel),
      m_view(new QChartView),
      m_countFlagged(new QCheckBox(tr("Count error-flagged"))),
      m_filterNote(new QLabel),
      m_allRecords(new QPushButton(tr("Use all records"))),
      m_statsModel(new GroupStatsModel(this)),
      m_statsTable(new QTableView)
{
    setWindowTitle(tr("Speedup distributions"));
    for (auto k : {DistributionKind::Histogram, DistributionKind::Ecdf, DistributionKind::FastP, DistributionKind::Box})
        m_kindBox->addItem(distributionKindTitle(k), distributionKindName(k));
    m_groupBox->setEditable(true); // any top-level record field
    m_groupBox->setInsertPolicy(QComboBox::NoInsert);
    for (const char* f : {"model", "level", "problem", "status", "gpu", "run", "suite", "baseline", "flagged", "flag"})
        m_groupBox->addItem(QLatin1String(f));
    m_groupBox->addItem(tr("(no grouping)"), QString());
    m_groupBox->setItemData(m_groupBox->count() - 1, QString(), Qt::UserRole);
    m_groupBox->setCurrentText(m_groupField);
    m_hover->setMinimumWidth(300);
    // The summary wraps rather than widening the window.
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_hover->setStyleSheet(QStringLiteral("color:#333"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMouseTracking(true);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Chart")));
    bar->addWidget(m_kindBox);
    bar->addWidget(new QLabel(tr("Group by")));
    bar->addWidget(m_groupBox);
    m_countFlagged->setToolTip(tr("Records whose verification raised an error flag (the kernel cannot have done "
                                  "the work) count as not correct unless this is on."));
    bar->addWidget(m_countFlagged);
    bar->addWidget(m_summary, 1);
    auto* filterBar = new QHBoxLayout;
    m_filterNote->setStyleSheet(QStringLiteral("color:#0072B2"));
    m_filterNote->setWordWrap(true);
    filterBar->addWidget(m_filterNote, 1);
    filterBar->addWidget(m_allRecords);
    m_allRecords->setToolTip(tr("Clear the Records filters: every loaded record"));
    m_filterNote->hide();
    m_allRecords->hide();
    connect(m_allRecords, &QPushButton::clicked, this, &DistributionsView::allRecordsRequested);
    m_statsTable->setModel(m_statsModel);
    m_statsTable->setObjectName(QStringLiteral("groupStats"));
    m_statsTable->verticalHeader()->hide();
    m_statsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_statsTable->horizontalHeader()->setStretchLastSection(true);
    m_statsTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* chartPane = new QWidget;
    auto* chartLayout = new QVBoxLayout(chartPane);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_view, 1);
    chartLayout->addWidget(m_hover);
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("distributionsSplit"));
    split->addWidget(chartPane);
    split->addWidget(m_statsTable);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(filterBar);
    layout->addWidget(split, 1);

    connect(m_countFlagged, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this] {
        DistributionKind k;
        if (distributionKindFromName(m_kindBox->currentData().toString(), &k)) setKind(k);
    });
    auto applyGroupText = [this](const QString& text) {
        const QString field = text == tr("(no grouping)") ? QString() : text.trimmed();
        if (field != m_groupField) setGroupBy(field);
    };
    connect(m_groupBox, &QComboBox::textActivated, this, applyGroupText);
    // A typed field name (any record field) applies on Enter or on leaving the box:
    // with NoInsert, QComboBox itself activates only names already in its list.
    connect(m_groupBox->lineEdit(), &QLineEdit::editingFinished, this,
        [this, applyGroupText] { applyGroupText(m_groupBox->lineEdit()->text()); });
    rebuildChart();
}

QString DistributionsView::figureTitle() const
{
    return tr("Speedup distribution (%1)").arg(distributionKindTitle(m_kind));
}

QString DistributionsView::summaryText() const
{
    return m_summary->text();
}

void DistributionsView::setCountErrorFlagged(bool on)
{
    m_countFlagged->setChecked(on); // toggled() recomputes
}

QString DistributionsView::hoverText() const
{
    return m_hover->text();
}

void DistributionsView::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    recompute();
}

void DistributionsView::setKind(DistributionKind kind)
{
    m_kind = kind;
    const int i = m_kindBox->findData(distributionKindName(kind));
    if (i >= 0 && i != m_kindBox->currentIndex()) {
        QSignalBlocker block(m_kindBox);
        m_kindBox->setCurrentIndex(i);
    }
    rebuildChart();
    Q_EMIT settingsChanged();
}

void DistributionsView::setGroupBy(const QString& field)
{
    m_groupField = field;
    {
        QSignalBlocker block(m_groupBox);
        QSignalBlocker blockEdit(m_groupBox->lineEdit());
        m_groupBox->setCurrentText(field.isEmpty() ? tr("(no grouping)") : field);
    }
    recompute();
    Q_EMIT settingsChanged();
}

void DistributionsView::setRecordSubset(const RecordSubset& subset)
{
    if (subset.records == m_subset.records && subset.description == m_subset.description) return;
    m_subset = subset;
    const bool filtered = !m_subset.all();
    m_filterNote->setVisible(filtered);
    m_allRecords->setVisible(filtered);
    m_filterNote->setText(filterNote());
    recompute();
}

QString DistributionsView::filterNote() const
{
    if (m_subset.all()) return {};
    return tr("Records filter in effect: %1 — %2 of %3 records")
        .arg(m_subset.description)
        .arg(m_subset.records->size())
        .arg(m_data->records->records.size());
}

void DistributionsView::recompute()
{
    // Off the GUI thread: grouping 100k records takes longer than a frame.
    auto records = m_data->records;
    const QString field = m_groupField;
    const bool countFlagged = m_countFlagged->isChecked();
    auto subset = m_subset.records;
    // A subset from another load (indexes into other records) is not applied.
    if (subset && !subset->empty() && static_cast<std::size_t>(subset->back()) >= records->records.size())
        subset.reset();
    m_filterNote->setText(filterNote());
    m_statsJob.supersede(); // its groups are about to change
    m_job.start(
        [records, field, countFlagged, subset](const TaskContext&) {
            auto d = std::make_shared<std::pair<DistributionData, LogHistogram>>();
            d->first = computeDistribution(*records, field, subset.get(), kMaxDistributionGroups, countFlagged);
            d->second = computeLogHistogram(d->first);
            return d;
        },
        [this](std::shared_ptr<std::pair<DistributionData, LogHistogram>> d) {
            m_dist = std::move(d->first);
            m_hist = std::move(d->second);
            m_statsModel->setDistribution(m_dist);
            rebuildChart();
            recomputeStats();
        });
}

void DistributionsView::recomputeStats()
{
    // A pool of one thread for the bootstrap: seconds of work on 100k records that
    // must not hold up the filters and sorts queued on the global pool.
    static QThreadPool* statsPool = [] {
        auto* pool = new QThreadPool;
        pool->setMaxThreadCount(1);
        return pool;
    }();
    m_statsJob.setPool(statsPool);
    auto records = m_data->records;
    auto dist = std::make_shared<DistributionData>(m_dist);
    const bool countFlagged = m_countFlagged->isChecked();
    m_statsJob.start([records, dist, countFlagged](const TaskContext& ctx) {
        return std::make_shared<std::vector<GroupSummary>>(computeGroupStats(*records, *dist, countFlagged, ctx));
    }, [this](std::shared_ptr<std::vector<GroupSummary>> stats) {
        if (stats->size() != m_dist.groups.size()) return; // cancelled
        for (std::size_t g = 0; g < stats->size(); ++g) m_dist.groups[g].stats = std::move((*stats)[g]);
        m_statsModel->setDistribution(m_dist);
        m_statsTable->resizeColumnsToContents();
    });
}

void DistributionsView::rebuildChart()
{
    const FigureStyle style = FigureStyle::screen();
    QChart* chart = buildDistributionChart(m_dist, m_hist, m_kind, style, std::max(200, m_view->width()));
    QChart* old = m_view->chart();
    m_view->setChart(chart);
    delete old;
    for (auto* s : chart->series()) connectSeries(s);
    std::size_t groups = 0;
    for (const auto& g : m_dist.groups) groups += g.speedups.empty() ? 0 : 1;
    std::size_t shown = 0;
    for (const auto& g : m_dist.groups) shown += g.allRecords.size();
    QString summary = m_subset.all()
        ? tr("%1 correct, timed records in %2 groups of all %3 records").arg(m_dist.timedRecords).arg(groups).arg(shown)
        : tr("%1 correct, timed records in %2 groups of the %3 records the Records filters pass")
              .arg(m_dist.timedRecords)
              .arg(groups)
              .arg(shown);
    if (m_dist.errorFlaggedLeftOut > 0)
        summary += tr("; %1 error-flagged counted as not correct").arg(m_dist.errorFlaggedLeftOut);
    m_summary->setText(summary);
    m_hover->setText(tr("Hover for values; click a bar, curve or box to list its records."));
}

QString DistributionsView::describeAt(int group, QPointF v) const
{
    if (group < 0 || static_cast<std::size_t>(group) >= m_dist.groups.size()) return {};
    const auto& g = m_dist.groups[static_cast<std::size_t>(group)];
    switch (m_kind) {
    case DistributionKind::Histogram: {
        const int b = m_hist.binOf(v.x());
        if (b < 0) return {};
        const double lo = m_hist.edges[static_cast<std::size_t>(b)];
        const double hi = m_hist.edges[static_cast<std::size_t>(b) + 1];
        return tr("%1: speedup %2–%3×: %4 of %5 records (%6%)")
            .arg(g.name, fmt(lo), fmt(hi))
            .arg(m_hist.counts[static_cast<std::size_t>(group)][static_cast<std::size_t>(b)])
            .arg(g.speedups.size())
            .arg(100.0 * m_hist.share(m_dist, static_cast<std::size_t>(group), static_cast<std::size_t>(b)), 0, 'f', 1);
    }
    case DistributionKind::Ecdf: {
        const auto it = std::upper_bound(g.speedups.begin(), g.speedups.end(), v.x());
        const double share = g.speedups.empty() ? 0 : double(it - g.speedups.begin()) / double(g.speedups.size());
        return tr("%1: %2% of %3 correct records have speedup ≤ %4×")
            .arg(g.name)
            .arg(100.0 * share, 0, 'f', 1)
            .arg(g.speedups.size())
            .arg(fmt(v.x()));
    }
    case DistributionKind::FastP: {
        const double p = std::max(0.0, v.x());
        return tr("%1: fast_%2 = %3 (%4 of %5 records correct and faster than %2×)")
            .arg(g.name, fmt(p))
            .arg(g.fastP.evaluate(p), 0, 'f', 3)
            .arg(m_dist.recordsFasterThan(group, p).size())
            .arg(g.allRecords.size());
    }
    case DistributionKind::Box:
        return tr("%1: n=%2, median %3× (95% CI %8), quartiles %4–%5×, whiskers %6–%7×")
            .arg(g.name)
            .arg(g.speedups.size())
            .arg(fmt(g.median), fmt(g.q1), fmt(g.q3), fmt(g.whiskerLow), fmt(g.whiskerHigh),
                GroupStatsModel::intervalText(g.stats.medianCi, false));
    }
    return {};
}

QSet<int> DistributionsView::pickAt(int group, QPointF v, QString* description) const
{
    QSet<int> out;
    if (group < 0 || static_cast<std::size_t>(group) >= m_dist.groups.size()) return out;
    const auto& g = m_dist.groups[static_cast<std::size_t>(group)];
    std::vector<int> picked;
    QString what;
    switch (m_kind) {
    case DistributionKind::Histogram: {
        const int b = m_hist.binOf(v.x());
        if (b < 0) return out;
        const double lo = m_hist.edges[static_cast<std::size_t>(b)];
        const double hi = m_hist.edges[static_cast<std::size_t>(b) + 1];
        picked = m_dist.recordsInRange(group, lo, hi);
        what = tr("the %1 bar %2–%3×").arg(g.name, fmt(lo), fmt(hi));
        break;
    }
    case DistributionKind::Ecdf:
        picked = m_dist.recordsInRange(group, 0, std::nextafter(v.x(), HUGE_VAL));
        what = tr("the %1 ECDF at ≤ %2×").arg(g.name, fmt(v.x()));
        break;
    case DistributionKind::FastP:
        picked = m_dist.recordsFasterThan(group, std::max(0.0, v.x()));
        what = tr("%1 fast_p at p = %2").arg(g.name, fmt(std::max(0.0, v.x())));
        break;
    case DistributionKind::Box:
        picked = g.recordIndex;
        what = tr("the %1 box").arg(g.name);
        break;
    }
    for (int i : picked) out.insert(i);
    if (description) *description = what;
    return out;
}

void DistributionsView::connectSeries(QAbstractSeries* series)
{
    const int group = series->property(kGroupProperty).toInt();
    if (group < 0) return;
    auto hover = [this, group](const QPointF& p, bool state) {
        if (!state) return;
        const QString text = describeAt(group, p);
        m_hover->setText(text);
        QToolTip::showText(QCursor::pos(), text, m_view);
    };
    auto click = [this, group](const QPointF& p) {
        QString what;
        const QSet<int> picked = pickAt(group, p, &what);
        if (!picked.isEmpty()) Q_EMIT recordsPicked(picked, what);
    };
    if (auto* area = qobject_cast<QAreaSeries*>(series)) {
        connect(area, &QAreaSeries::hovered, this, hover);
        connect(area, &QAreaSeries::clicked, this, click);
    } else if (auto* line = qobject_cast<QLineSeries*>(series)) {
        connect(line, &QLineSeries::hovered, this, hover);
        connect(line, &QLineSeries::clicked, this, click);
    } else if (auto* box = qobject_cast<QBoxPlotSeries*>(series)) {
        connect(box, &QBoxPlotSeries::hovered, this, [this](bool state, QBoxSet* set) {
            if (!state || !set) return;
            const QString text = describeAt(set->property(kGroupProperty).toInt(), {});
            m_hover->setText(text);
            QToolTip::showText(QCursor::pos(), text, m_view);
        });
        connect(box, &QBoxPlotSeries::clicked, this, [this](QBoxSet* set) {
            if (!set) return;
            QString what;
            const QSet<int> picked = pickAt(set->property(kGroupProperty).toInt(), {}, &what);
            if (!picked.isEmpty()) Q_EMIT recordsPicked(picked, what);
        });
    }
}

void DistributionsView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    paintChart(painter, rect,
        buildDistributionChart(m_dist, m_hist, m_kind, style, static_cast<int>(std::max(100.0, rect.width()))));
}

} // namespace kwb::ui
