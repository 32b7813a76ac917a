#include "views/substitution_panel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "export/paper_preset.h"

namespace kwb::ui {

namespace {

const char* kResults[] = {"kernelbench_dlrm/evaluations/substitution_h200.json",
    "kernelbench_transformer/evaluations/substitution_gpt2_h200.json"};

QString pct(double v)
{
    return QStringLiteral("%1%").arg(v * 100, 0, 'f', 1);
}

} // namespace

SubstitutionPanel::SubstitutionPanel(QWidget* parent) : QWidget(parent), m_note(new QLabel), m_table(new QTableWidget)
{
    m_note->setWordWrap(true);
    const QStringList cols{tr("workload"), tr("phase"), tr("swapped"), tr("original ms"), tr("substituted ms"),
        tr("measured saving"), tr("projected f·w·(1−1/s)"), tr("Amdahl bound"), tr("projection from")};
    m_table->setColumnCount(cols.size());
    m_table->setHorizontalHeaderLabels(cols);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_note);
    layout->addWidget(m_table, 1);
}

void SubstitutionPanel::setProjectData(const ProjectDataPtr& project)
{
    m_table->setRowCount(0);
    QStringList problems;
    int found = 0;
    for (const char* rel : kResults) {
        const QString path = paperDataPath(project->project, QLatin1String(rel));
        if (path.isEmpty()) continue;
        auto r = readSubstitutionResult(path.toStdString());
        if (!r.isOk()) {
            problems << QString::fromStdString(r.status().toString());
            continue;
        }
        ++found;
        // Without a projection of its own, the project's projection of the same trace (kwb project's numbers).
        const WorkloadSummary* traced = nullptr;
        const QString traceName = QFileInfo(QString::fromStdString(r->trace)).fileName();
        for (const auto& w : project->workloads)
            if (!traceName.isEmpty() && QFileInfo(w.source).fileName() == traceName && w.projection.available) traced = &w;
        QString swapped;
        for (const auto& s : r->swapped) swapped += (swapped.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(s);
        for (const auto& ph : r->phases) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            QStringList cells{QString::fromStdString(r->model), QString::fromStdString(ph.phase), swapped,
                QString::number(ph.originalMs, 'f', 3), QString::number(ph.substitutedMs, 'f', 3), pct(ph.measuredSaving)};
            if (!r->projections.empty()) {
                const auto& p = r->projections.back(); // the records' projection when present, else the isolated one
                cells << pct(p.expectedSaving) << (p.amdahlSaving ? pct(*p.amdahlSaving) : QStringLiteral("–"))
                      << tr("the script (%1)").arg(QString::fromStdString(p.basis));
            } else if (traced) {
                cells << pct(traced->projection.expectedSaving) << pct(traced->projection.amdahlSaving)
                      << tr("this project: %1 (f = %2)").arg(traced->name, pct(traced->projection.f));
            } else {
                cells << QStringLiteral("–") << QStringLiteral("–") << tr("no projection (load %1 with records)").arg(traceName);
            }
            for (int c = 0; c < cells.size(); ++c) m_table->setItem(row, c, new QTableWidgetItem(cells[c]));
            if (!r->checkOk) m_table->item(row, 0)->setToolTip(tr("the substituted model failed the script's check"));
        }
    }
    m_table->resizeColumnsToContents();
    QString note = found ? tr("Measured end-to-end savings of verified kernels swapped into the workload, beside the "
                              "projection: where they differ, the projection method is what to doubt.")
                         : tr("No measured substitution beside this project (scripts/measure_substitution*.py write one).");
    if (!problems.isEmpty()) note += QLatin1Char('\n') + problems.join(QLatin1Char('\n'));
    m_note->setText(note);
}

} // namespace kwb::ui
