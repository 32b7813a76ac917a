#include "views/workloads_view.h"
#include "views/substitution_panel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPieSeries>
#include <QPieSlice>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "charts/workload_charts.h"
#include "models/raw_value_proxy.h"
#include "project/project_loader.h"
#include "models/top_kernels_model.h"
#include "views/filtered_table.h"

namespace kwb::ui {

namespace {

// Small multiples on screen: the same painter path as the exported figure.
class PieGrid final : public QWidget {
public:
    explicit PieGrid(const ProjectDataPtr* source) : m_source(source) { setMinimumHeight(200); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        paintWorkloadPies(p, QRectF(rect()), (*m_source)->workloads, FigureStyle::screen());
    }

private:
    const ProjectDataPtr* m_source;
};

QString pct(double v)
{
    return QString::number(100.0 * v, 'f', 1) + QLatin1Char('%');
}

} // namespace

WorkloadsView::WorkloadsView(QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_workloadBox(new QComboBox),
      m_header(new QLabel),
      m_pie(new QChartView),
      m_projection(new QLabel),
      m_tabs(new QTabWidget),
      m_grid(new PieGrid(&m_data)),
      m_topModel(new TopKernelsModel(this)),
      m_topProxy(new RawValueProxy(this)),
      m_topTable(new QTableView),
      m_topSearch(new QLineEdit),
      m_filterNote(new QLabel),
      m_allRecords(new QPushButton(tr("Use all records")))
{
    setWindowTitle(tr("Workloads"));
    m_pie->setRenderHint(QPainter::Antialiasing);
    m_pie->setMinimumSize(320, 240);
    m_projection->setWordWrap(true);
    m_projection->setTextFormat(Qt::RichText);
    m_projection->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_projection->setMinimumWidth(260);
    m_header->setWordWrap(true);
    m_topProxy->setSourceModel(m_topModel);
    setupFilteredTable(m_topTable, m_topProxy, m_topSearch, tr("Filter kernels, families, categories…"));
    m_topTable->setColumnWidth(TopKernelsModel::Kernel, 380);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Workload")));
    bar->addWidget(m_workloadBox, 1);
    auto* top = new QSplitter;
    top->addWidget(m_pie);
    top->addWidget(m_projection);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* kernels = new QWidget;
    auto* kl = new QVBoxLayout(kernels);
    kl->setContentsMargins(0, 0, 0, 0);
    kl->addWidget(m_topSearch);
    kl->addWidget(m_topTable, 1);
    m_tabs->addTab(m_grid, tr("All workloads"));
    m_tabs->addTab(kernels, tr("Top kernels"));
    auto* substitution = new SubstitutionPanel; // measured vs projected (the substitution runs)
    substitution->setObjectName(QStringLiteral("substitutionPanel"));
    m_tabs->addTab(substitution, tr("Measured vs projected"));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(m_tabs);
    m_filterNote->setStyleSheet(QStringLiteral("color:#0072B2"));
    m_filterNote->setWordWrap(true);
    m_filterNote->hide();
    m_allRecords->hide();
    connect(m_allRecords, &QPushButton::clicked, this, &WorkloadsView::allRecordsRequested);
    auto* filterBar = new QHBoxLayout;
    filterBar->addWidget(m_filterNote, 1);
    filterBar->addWidget(m_allRecords);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(filterBar);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);
    connect(m_workloadBox, &QComboBox::currentIndexChanged, this, &WorkloadsView::showWorkload);
    setProjectData(m_data);
}

QString WorkloadsView::figureTitle() const
{
    return tr("GPU time by kernel category per workload");
}

void WorkloadsView::setRecordSubset(const RecordSubset& subset)
{
    if (subset.records == m_subset.records && subset.description == m_subset.description) return;
    m_subset = subset;
    reproject();
}

QString WorkloadsView::filterNote() const
{
    if (m_subset.all()) return {};
    return tr("Records filter in effect: %1 — the projection's w and s come from %2 of %3 records")
        .arg(m_subset.description)
        .arg(m_subset.records->size())
        .arg(m_data->records->records.size());
}

const ProjectionSummary& WorkloadsView::projectionOf(int index) const
{
    const auto i = static_cast<std::size_t>(index);
    if (!m_subset.all() && i < m_subsetProjections.size()) return m_subsetProjections[i];
    return m_data->workloads[i].projection;
}

void WorkloadsView::reproject()
{
    m_subsetProjections.clear();
    m_filterNote->setVisible(!m_subset.all());
    m_allRecords->setVisible(!m_subset.all());
    m_filterNote->setText(filterNote());
    auto subset = m_subset.records;
    if (m_subset.all() || m_data->workloads.empty() ||
        (!subset->empty() && static_cast<std::size_t>(subset->back()) >= m_data->records->records.size())) {
        m_projectionJob.supersede();
        showWorkload(m_workloadBox->currentIndex());
        return;
    }
    auto project = m_data;
    m_projectionJob.start([project, subset](const TaskContext&) {
        return std::make_shared<std::vector<ProjectionSummary>>(projectRecordSubset(*project, subset.get()));
    }, [this, project](std::shared_ptr<std::vector<ProjectionSummary>> p) {
        if (project != m_data) return;
        m_subsetProjections = std::move(*p);
        showWorkload(m_workloadBox->currentIndex());
    });
}

void WorkloadsView::setProjectData(ProjectDataPtr next)
{
    if (auto* sub = findChild<SubstitutionPanel*>(QStringLiteral("substitutionPanel"))) sub->setProjectData(next);
    // A reload keeps the workload the user chose, when it is still there.
    const QString chosen = currentWorkloadName();
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    m_subsetProjections.clear();
    {
        QSignalBlocker block(m_workloadBox);
        m_workloadBox->clear();
        for (const auto& w : m_data->workloads)
            m_workloadBox->addItem(w.name + QStringLiteral(" — addressable ") + pct(w.addressableFraction));
    }
    m_grid->update();
    if (m_data->workloads.empty()) {
        m_header->setText(m_data->tracesSupported
                ? tr("No profiler traces loaded. Open Kineto (.json, .json.gz) or Nsight Systems SQLite traces, "
                     "or a folder of them.")
                : tr("This build does not read profiler traces (core/traces is not part of it)."));
        QChart* old = m_pie->chart();
        m_pie->setChart(new QChart);
        delete old;
        m_projection->clear();
        m_topModel->setData(m_data);
        return;
    }
    int index = 0;
    for (std::size_t i = 0; i < m_data->workloads.size(); ++i)
        if (m_data->workloads[i].name == chosen) index = static_cast<int>(i);
    {
        QSignalBlocker block(m_workloadBox);
        m_workloadBox->setCurrentIndex(index);
    }
    showWorkload(index);
    reproject();
}

QString WorkloadsView::currentWorkloadName() const
{
    const int i = m_workloadBox->currentIndex();
    if (i < 0 || static_cast<std::size_t>(i) >= m_data->workloads.size()) return {};
    return m_data->workloads[static_cast<std::size_t>(i)].name;
}

void WorkloadsView::selectWorkload(int index)
{
    m_workloadBox->setCurrentIndex(index);
}

void WorkloadsView::showWorkload(int index)
{
    if (index < 0 || static_cast<std::size_t>(index) >= m_data->workloads.size()) return;
    const WorkloadSummary& w = m_data->workloads[static_cast<std::size_t>(index)];
    m_topModel->setData(m_data, index);
    const FigureStyle style = FigureStyle::screen();
    QChart* chart = buildWorkloadPie(w, categoryColors(m_data->workloads), style, true);
    for (auto* series : chart->series()) {
        auto* pie = qobject_cast<QPieSeries*>(series);
        if (!pie) continue;
        connect(pie, &QPieSeries::hovered, this, [](QPieSlice* slice, bool state) { slice->setLabelVisible(state); });
    }
    QChart* old = m_pie->chart();
    m_pie->setChart(chart);
    delete old;
    m_header->setText(tr("%1: %2 GPU activities, %3 ms GPU time (%4 ms busy) in a %5 ms profiled span%6. "
                         "Addressable: %7 of GPU kernel time, %8 of the span.")
                          .arg(w.name)
                          .arg(w.kernelCount)
                          .arg(w.gpuKernelUs / 1000.0, 0, 'f', 2)
                          .arg(w.busyUs / 1000.0, 0, 'f', 2)
                          .arg(w.spanUs / 1000.0, 0, 'f', 2)
                          .arg(w.device.isEmpty() ? QString() : QLatin1String(" on ") + w.device)
                          .arg(pct(w.addressableFraction), pct(w.addressableSpanFraction)));

    const ProjectionSummary& in = projectionOf(index);
    QString h = QLatin1String("<h3>") + tr("End-to-end projection") + QLatin1String("</h3><table>");
    auto row = [&h](const QString& k, const QString& v) {
        h += QLatin1String("<tr><td style='padding-right:10px'>") + k + QLatin1String("</td><td><b>") + v +
             QLatin1String("</b></td></tr>");
    };
    row(tr("f, addressable fraction"), pct(w.addressableFraction));
    if (!in.available || in.correctTimed == 0) {
        h += QLatin1String("</table><p>") +
             tr("No correct, timed evaluation records are loaded, so the win rate w and the median speedup s "
                "are unknown. Load records to project the end-to-end gain.") +
             QLatin1String("</p>");
    } else {
        row(tr("w, win rate"), pct(in.w) + tr(" (%1 of %2)").arg(in.wins).arg(in.correctTimed));
        row(tr("s, median speedup of %1").arg(in.basis), QString::number(in.s, 'f', 3) + QLatin1Char('x'));
        row(tr("expected saving f·w·(1−1/s), pooled"), pct(in.expectedSaving));
        row(tr("Amdahl bound, every addressable kernel at s"),
            pct(in.amdahlSaving) + QLatin1String(" (") + QString::number(in.amdahlSpeedup, 'f', 3) + QLatin1String("x)"));
        for (const auto& fam : in.families)
            row(tr("· %1 (%2 of GPU time)").arg(fam.family, pct(fam.fraction)), pct(fam.saving));
        if (!in.families.empty())
            row(tr("Σ over families (each its own w, s)"), pct(in.familySavingSum));
        h += QLatin1String("</table><p style='color:#555'>");
        // The pooled headline and the per-family sum differ whenever the families' w and s differ.
        if (!in.families.empty())
            h += tr("Quote the sum over families: each family's own win rate and speedup on its own share of GPU "
                    "time. The pooled figure applies all matched records' w and s to the whole f. ");
        h += tr("Records matched by %1: %2 records, %3 problems (<tt>kwb project</tt> computes the same).")
                 .arg(in.matching)
                 .arg(in.records)
                 .arg(in.problems);
        if (!m_subset.all()) h += QLatin1Char(' ') + filterNote().toHtmlEscaped() + QLatin1Char('.');
        if (in.errorFlagged > 0)
            h += tr(" Left out of w and s: %1 correct, timed records with an error flag (their kernels cannot "
                    "have done the work).")
                     .arg(in.errorFlagged);
        h += QLatin1String("</p>");
    }
    m_projection->setText(h);
}

QString WorkloadsView::projectionText() const
{
    return m_projection->text();
}

void WorkloadsView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    const int i = m_workloadBox->currentIndex();
    if (i < 0 || static_cast<std::size_t>(i) >= m_data->workloads.size()) {
        paintWorkloadPies(painter, rect, m_data->workloads, style);
        return;
    }
    paintWorkloadPie(painter, rect, m_data->workloads[static_cast<std::size_t>(i)], categoryColors(m_data->workloads), style);
}

} // namespace kwb::ui
