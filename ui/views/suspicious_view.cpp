#include "views/suspicious_view.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "models/raw_value_proxy.h"
#include "models/suspicious_model.h"
#include "views/filtered_table.h"
#include "views/rerun_panel.h"

namespace kwb::ui {

SuspiciousView::SuspiciousView(RerunService* service, QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_model(new SuspiciousModel(this)),
      m_proxy(new RawValueProxy(this)),
      m_table(new QTableView),
      m_search(new QLineEdit),
      m_summary(new QLabel),
      m_reasons(new QTextBrowser),
      m_panel(new RerunPanel(service))
{
    setWindowTitle(tr("Suspicious speedups"));
    m_proxy->setSourceModel(m_model);
    setupFilteredTable(m_table, m_proxy, m_search, tr("Filter by record, model, problem, flag or reason…"));
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setColumnWidth(SuspiciousModel::Rank, 40);
    m_table->setColumnWidth(SuspiciousModel::Record, 160);
    m_table->setColumnWidth(SuspiciousModel::Model, 130);
    m_table->setColumnWidth(SuspiciousModel::Problem, 200);
    m_table->setColumnWidth(SuspiciousModel::Speedup, 130);
    m_table->setColumnWidth(SuspiciousModel::Severity, 70);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_summary);
    auto* rerunBox = new QGroupBox(tr("Live re-run"));
    auto* rb = new QVBoxLayout(rerunBox);
    rb->addWidget(m_panel);
    auto* bottom = new QSplitter;
    bottom->setObjectName(QStringLiteral("suspiciousBottom")); // saved with the window layout
    bottom->addWidget(m_reasons);
    bottom->addWidget(rerunBox);
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("suspiciousSplit"));
    split->addWidget(m_table);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &SuspiciousView::showSelected);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        Q_EMIT recordActivated(index.data(SuspiciousModel::RecordIndexRole).toInt());
    });
    connect(m_panel, &RerunPanel::liveCoverage, this, &SuspiciousView::liveCoverage);
    setProjectData(m_data);
}

void SuspiciousView::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    m_model->setData(m_data);
    m_panel->setProjectData(m_data);
    const std::size_t n = static_cast<std::size_t>(m_model->rowCount());
    const std::size_t claims = m_data->unverifiedClaimCount();
    m_summary->setText(claims == 0 ? tr("%1 flagged of %2 records").arg(n).arg(m_data->rows->size())
                                   : tr("%1 flagged and %2 unverified claims above %3x, of %4 records")
                                         .arg(n - claims)
                                         .arg(claims)
                                         .arg(unverifiedClaimThreshold())
                                         .arg(m_data->rows->size()));
    if (n == 0)
        m_reasons->setHtml(tr("<p>No flagged records. Flags come from verification (<tt>kwb verify</tt>, live "
                              "re-runs) and are stored in the records' <tt>verification.flags</tt>.</p>"));
    else
        selectRow(0);
}

void SuspiciousView::selectRow(int row)
{
    const QModelIndex i = m_proxy->index(row, 0);
    if (i.isValid()) m_table->setCurrentIndex(i);
}

void SuspiciousView::showSelected()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid()) return;
    const int rec = current.data(SuspiciousModel::RecordIndexRole).toInt();
    m_panel->setRecord(rec);
    const EvalRecord& r = m_data->records->records[static_cast<std::size_t>(rec)];
    const RecordRow& row = (*m_data->rows)[static_cast<std::size_t>(rec)];
    QString h = QLatin1String("<h3 style='margin:2px'>") + row.id.toHtmlEscaped() + QStringLiteral(" — ") +
                row.problem.toHtmlEscaped() + QLatin1String("</h3><p>") + row.model.toHtmlEscaped();
    if (!std::isnan(row.speedup)) h += tr(", claimed speedup %1×").arg(row.speedup, 0, 'f', 2);
    h += QLatin1String("</p><ul>");
    if (row.unverifiedClaim)
        h += QLatin1String("<li><b>unverified_claim</b>: ") +
             tr("above the %1x threshold, and nothing has verified it: no flags, not re-run here. Re-run it live "
                "(KernelBench samples through the PyTorch bridge) before believing it.")
                 .arg(unverifiedClaimThreshold()) +
             QLatin1String("</li>");
    for (const auto& f : r.verification.flags)
        h += QLatin1String("<li><b>") + QString::fromStdString(f.code).toHtmlEscaped() + QLatin1String("</b> (") +
             QString::fromStdString(f.severity.empty() ? std::string("warning") : f.severity).toHtmlEscaped() +
             QLatin1String("): ") + QString::fromStdString(f.reason).toHtmlEscaped() + QLatin1String("</li>");
    h += QLatin1String("</ul><p style='color:#555'>") + tr("Double-click the row to open the record.") +
         QLatin1String("</p>");
    m_reasons->setHtml(h);
}

} // namespace kwb::ui
