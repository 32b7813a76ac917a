#include "views/pivot_view.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "export/table_figure.h"

namespace kwb::ui {

PivotView::PivotView(QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_model(new PivotModel(this)),
      m_table(new QTableView),
      m_summary(new QLabel),
      m_filterNote(new QLabel),
      m_allRecords(new QPushButton(tr("Use all records"))),
      m_countFlagged(new QCheckBox(tr("Count error-flagged")))
{
    setWindowTitle(tr("Problem × model"));
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("pivotTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(150);
    // Model names are never cut: each column is as wide as its name or its cells.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setResizeContentsPrecision(100); // sized from 100 rows, not every row
    m_table->verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_filterNote->setStyleSheet(QStringLiteral("color:#0072B2"));
    m_filterNote->setWordWrap(true);
    m_filterNote->hide();
    m_allRecords->hide();
    m_countFlagged->setToolTip(tr("Records whose verification raised an error flag count as not correct unless this is on."));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(m_countFlagged);
    auto* filterBar = new QHBoxLayout;
    filterBar->addWidget(m_filterNote, 1);
    filterBar->addWidget(m_allRecords);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(filterBar);
    layout->addWidget(m_table, 1);

    connect(m_allRecords, &QPushButton::clicked, this, &PivotView::allRecordsRequested);
    connect(m_countFlagged, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& i) {
        QString what;
        const QSet<int> recs = cellRecords(i.row(), i.column(), &what);
        if (!recs.isEmpty()) Q_EMIT recordsPicked(recs, what);
    });
    recompute();
}

QString PivotView::figureTitle() const
{
    return tr("Best and median speedup per problem and model");
}

void PivotView::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    recompute();
}

void PivotView::setRecordSubset(const RecordSubset& subset)
{
    if (subset.records == m_subset.records && subset.description == m_subset.description) return;
    m_subset = subset;
    recompute();
}

void PivotView::setCountErrorFlagged(bool on)
{
    m_countFlagged->setChecked(on);
}

QString PivotView::filterNote() const
{
    if (m_subset.all()) return {};
    return tr("Records filter in effect: %1 — %2 of %3 records")
        .arg(m_subset.description)
        .arg(m_subset.records->size())
        .arg(m_data->records->records.size());
}

void PivotView::recompute()
{
    auto project = m_data;
    auto subset = m_subset.records;
    if (subset && !subset->empty() && static_cast<std::size_t>(subset->back()) >= project->rows->size()) subset.reset();
    const bool countFlagged = m_countFlagged->isChecked();
    m_filterNote->setText(filterNote());
    m_filterNote->setVisible(!m_subset.all());
    m_allRecords->setVisible(!m_subset.all());
    m_job.start([project, subset, countFlagged](const TaskContext&) {
        return std::make_shared<PivotData>(computePivot(*project, subset.get(), countFlagged));
    }, [this](std::shared_ptr<PivotData> pivot) {
        m_model->setPivot(std::move(*pivot));
        const PivotData& p = m_model->pivot();
        m_summary->setText(p.records == 0
                ? tr("No records to tabulate.")
                : tr("%1 problems × %2 models over %3 records. Each cell: best × · median × of its correct, timed "
                     "records · correct of all. Blue: faster than the baseline, orange: slower, grey: nothing "
                     "correct. Click a cell to list its records.")
                          .arg(p.problems.size())
                          .arg(p.models.size())
                          .arg(p.records)
                + (p.reVerified == 0 ? QString()
                                     : tr(" %1 of the records were re-run by kwb verify: their correctness is the "
                                          "re-run's, their speedups the ones they claimed (Claimed vs verified "
                                          "sets the re-measured ones beside them).")
                                           .arg(p.reVerified)));
    });
}

QSet<int> PivotView::cellRecords(int problem, int model, QString* description) const
{
    QSet<int> out;
    const PivotCell* c = m_model->pivot().cell(problem, model);
    if (!c) return out;
    for (int i : c->records) out.insert(i);
    if (description)
        *description = tr("the pivot cell %1 × %2").arg(m_model->pivot().problems[problem], m_model->pivot().models[model]);
    return out;
}

void PivotView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    TableFigure t;
    t.title = figureTitle();
    t.rowHeaderTitle = tr("Problem");
    t.note = tr("Cell: best × · median × of the correct, timed records · correct of all records (%1).")
                 .arg(m_countFlagged->isChecked() ? tr("error-flagged records counted as correct")
                                                  : tr("error-flagged records counted as not correct"));
    if (!m_subset.all()) t.note += QLatin1Char(' ') + filterNote() + QLatin1Char('.');
    paintTableFigure(painter, rect, style, *m_model, t);
}

} // namespace kwb::ui
