#include "views/coverage_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace kwb::ui {

namespace {

constexpr int kMaxListed = 500; // lowest coverage first; the rest are reachable from the records view
constexpr int kLiveRole = Qt::UserRole + 1;
constexpr int kRecordRole = Qt::UserRole + 2;

QString coverageSummary(const Coverage& c)
{
    QStringList parts;
    if (c.writtenFraction) parts << QObject::tr("%1% of the output written").arg(100.0 * *c.writtenFraction, 0, 'f', 2);
    if (c.writtenElements && c.totalElements)
        parts << QObject::tr("%1 of %2 elements").arg(*c.writtenElements).arg(*c.totalElements);
    if (!c.firstUnwritten.empty()) {
        QStringList idx;
        for (std::size_t i = 0; i < std::min<std::size_t>(c.firstUnwritten.size(), 8); ++i)
            idx << QString::number(c.firstUnwritten[i]);
        parts << QObject::tr("first unwritten: %1").arg(idx.join(QLatin1String(", ")));
    }
    parts << QObject::tr("grid %1 × %2 tiles").arg(c.grid.rows).arg(c.grid.cols);
    return parts.join(QStringLiteral(" · "));
}

} // namespace

CoverageView::CoverageView(QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_list(new QListWidget),
      m_heatmap(new HeatmapWidget),
      m_info(new QLabel),
      m_hover(new QLabel)
{
    setWindowTitle(tr("Coverage"));
    m_list->setUniformItemSizes(true);
    m_info->setWordWrap(true);
    m_hover->setText(tr("Wheel: zoom · drag: pan · double-click: whole grid"));
    auto* zoomIn = new QPushButton(tr("Zoom in"));
    auto* zoomOut = new QPushButton(tr("Zoom out"));
    auto* reset = new QPushButton(tr("Whole grid"));
    auto center = [this] {
        const QRectF v = m_heatmap->visibleCells();
        return v.center();
    };
    connect(zoomIn, &QPushButton::clicked, this, [this, center] { m_heatmap->zoomBy(2.0, center()); });
    connect(zoomOut, &QPushButton::clicked, this, [this, center] { m_heatmap->zoomBy(0.5, center()); });
    connect(reset, &QPushButton::clicked, m_heatmap, &HeatmapWidget::resetZoom);
    connect(m_heatmap, &HeatmapWidget::hoverText, this, [this](const QString& t) {
        m_hover->setText(t.isEmpty() ? tr("Wheel: zoom · drag: pan · double-click: whole grid") : t);
    });

    auto* tools = new QHBoxLayout;
    tools->addWidget(m_hover, 1);
    tools->addWidget(zoomIn);
    tools->addWidget(zoomOut);
    tools->addWidget(reset);
    auto* right = new QWidget;
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(m_info);
    rl->addWidget(m_heatmap, 1);
    rl->addLayout(tools);
    auto* split = new QSplitter;
    split->addWidget(m_list);
    split->addWidget(right);
    split->setStretchFactor(1, 3);
    split->setSizes({340, 700});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
    connect(m_list, &QListWidget::currentRowChanged, this, &CoverageView::showEntry);
    setProjectData(m_data);
}

QString CoverageView::figureTitle() const
{
    return m_heatmap->heatmap().title.isEmpty() ? tr("Coverage heatmap") : m_heatmap->heatmap().title;
}

int CoverageView::listedRecords() const
{
    int n = 0;
    for (int i = 0; i < m_list->count(); ++i) n += m_list->item(i)->data(kRecordRole).toInt() >= 0 ? 1 : 0;
    return n;
}

void CoverageView::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    QSignalBlocker block(m_list);
    m_list->clear();
    for (std::size_t i = 0; i < m_live.size(); ++i) {
        auto* item = new QListWidgetItem(tr("Live: %1").arg(m_live[i].first));
        item->setData(kLiveRole, static_cast<int>(i));
        item->setData(kRecordRole, -1);
        m_list->addItem(item);
    }
    const auto& rows = *m_data->rows;
    const auto& withGrid = m_data->gridRecords; // lowest coverage first
    const int listed = static_cast<int>(std::min<std::size_t>(withGrid.size(), kMaxListed));
    for (int k = 0; k < listed; ++k) {
        const int i = withGrid[static_cast<std::size_t>(k)];
        const RecordRow& r = rows[static_cast<std::size_t>(i)];
        const double f =
            m_data->records->records[static_cast<std::size_t>(i)].verification.coverage->writtenFraction.value_or(1.0);
        auto* item = new QListWidgetItem(tr("%1 · %2 · %3% written").arg(r.id, r.problem).arg(100.0 * f, 0, 'f', 1));
        item->setData(kLiveRole, -1);
        item->setData(kRecordRole, i);
        m_list->addItem(item);
    }
    if (m_list->count() == 0) {
        m_heatmap->setHeatmap({});
        m_info->setText(tr("No coverage grids: records get one from a re-run (kwb verify, or Suspicious → "
                           "Re-run live) in verification.coverage.grid."));
        return;
    }
    if (withGrid.size() > static_cast<std::size_t>(listed))
        m_info->setText(tr("%1 records have grids; the %2 with the lowest coverage are listed.")
                            .arg(withGrid.size())
                            .arg(listed));
    m_list->setCurrentRow(0);
    showEntry(0);
}

void CoverageView::showEntry(int row)
{
    if (row < 0 || row >= m_list->count()) return;
    const QListWidgetItem* item = m_list->item(row);
    const int live = item->data(kLiveRole).toInt();
    if (live >= 0) {
        const auto& [title, cov] = m_live[static_cast<std::size_t>(live)];
        m_heatmap->setHeatmap(makeHeatmap(cov.grid, cov, title));
        m_info->setText(tr("Live re-run: ") + coverageSummary(cov));
        return;
    }
    const int rec = item->data(kRecordRole).toInt();
    const EvalRecord& r = m_data->records->records[static_cast<std::size_t>(rec)];
    const Coverage& c = *r.verification.coverage;
    m_heatmap->setHeatmap(makeHeatmap(c.grid, c,
        tr("Coverage of %1 (%2)").arg(QString::fromStdString(r.id), QString::fromStdString(r.problem.label()))));
    if (m_heatmap->heatmap().isNull())
        m_info->setText(tr("%1: the stored grid is malformed or larger than %2 per side")
                            .arg(QString::fromStdString(r.id))
                            .arg(kMaxHeatmapSide));
    else
        m_info->setText(QString::fromStdString(r.id) + QLatin1String(": ") + coverageSummary(c));
}

bool CoverageView::showRecord(int recordIndex)
{
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->data(kRecordRole).toInt() == recordIndex) {
            m_list->setCurrentRow(i);
            return true;
        }
    }
    if (recordIndex < 0 || static_cast<std::size_t>(recordIndex) >= m_data->rows->size() ||
        !(*m_data->rows)[static_cast<std::size_t>(recordIndex)].hasGrid)
        return false;
    // Not among the listed ones: add it.
    const RecordRow& r = (*m_data->rows)[static_cast<std::size_t>(recordIndex)];
    auto* item = new QListWidgetItem(tr("%1 · %2").arg(r.id, r.problem));
    item->setData(kLiveRole, -1);
    item->setData(kRecordRole, recordIndex);
    m_list->insertItem(static_cast<int>(m_live.size()), item);
    m_list->setCurrentItem(item);
    return true;
}

void CoverageView::showLive(const Coverage& coverage, const QString& title)
{
    m_live.insert(m_live.begin(), {title, coverage});
    setProjectData(ProjectDataPtr(m_data));
    m_list->setCurrentRow(0);
}

void CoverageView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    paintHeatmap(painter, rect, m_heatmap->heatmap(), m_heatmap->visibleCells(), style);
}

} // namespace kwb::ui
