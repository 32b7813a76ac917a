#include "views/records_view.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QSaveFile>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

#include "export/table_export.h"
#include "export/table_figure.h"
#include "models/record_filter_proxy.h"
#include "records/kernelbench_importer.h"
#include "models/record_table_model.h"
#include "views/cuda_highlighter.h"
#include "views/filtered_table.h"
#include "views/record_compare.h"
#include "views/rerun_panel.h"

namespace kwb::ui {

namespace {

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString num(const std::optional<double>& v, int digits = 4)
{
    return v ? QString::number(*v, 'g', digits) : QStringLiteral("–");
}

void row(QString& html, const QString& key, const QString& value)
{
    html += QLatin1String("<tr><td style='color:#555;padding-right:12px'>") + key + QLatin1String("</td><td>") +
            value + QLatin1String("</td></tr>");
}

QString statsLine(const RuntimeStats& s)
{
    QStringList parts;
    if (s.medianMs) parts << QObject::tr("median %1 ms").arg(num(s.medianMs));
    if (s.meanMs) parts << QObject::tr("mean %1 ms").arg(num(s.meanMs));
    if (s.stdMs) parts << QObject::tr("std %1").arg(num(s.stdMs));
    if (s.minMs) parts << QObject::tr("min %1").arg(num(s.minMs));
    if (s.maxMs) parts << QObject::tr("max %1").arg(num(s.maxMs));
    return parts.isEmpty() ? QStringLiteral("–") : parts.join(QLatin1String(", "));
}

QString provenanceLine(const Provenance& p)
{
    QStringList parts;
    if (!p.gpu.empty()) parts << esc(p.gpu);
    if (!p.timer.empty()) parts << QObject::tr("timer %1").arg(esc(p.timer));
    if (p.trials) parts << QObject::tr("%1 trials").arg(*p.trials);
    if (p.l2Flush) parts << (*p.l2Flush ? QObject::tr("L2 flushed") : QObject::tr("no L2 flush"));
    if (p.tolerance.atol || p.tolerance.rtol)
        parts << QObject::tr("atol %1 rtol %2").arg(num(p.tolerance.atol), num(p.tolerance.rtol));
    if (!p.precision.empty()) parts << esc(p.precision);
    if (!p.config.empty()) parts << esc(p.config);
    if (!p.source.empty()) parts << esc(p.source);
    return parts.isEmpty() ? QObject::tr("not recorded") : parts.join(QStringLiteral(" · "));
}

// "0.5039, 0.5117, 0.498 (largest 0.5117, 3 trials)": every trial's value, the worst named.
QString differencesLine(const std::vector<double>& d)
{
    QStringList values;
    for (double v : d) values << QString::number(v, 'g', 4);
    if (d.size() == 1) return values.front();
    return values.join(QLatin1String(", ")) + QObject::tr(" (largest %1, %2 trials)")
                                                  .arg(QString::number(*std::max_element(d.begin(), d.end()), 'g', 4))
                                                  .arg(d.size());
}

// What KernelBench's evaluator said about the sample (core/records/kernelbench_importer.h).
void kernelBenchRows(QString& h, const EvalRecord& r)
{
    const auto m = kwb::kernelBenchMetadata(r);
    if (!m || m->empty()) return;
    if (m->trialsTotal)
        row(h, QObject::tr("Correctness trials"),
            QObject::tr("%1 of %2 passed").arg(m->trialsPassed.value_or(0)).arg(*m->trialsTotal));
    if (!m->correctnessIssue.empty()) row(h, QObject::tr("Correctness issue"), esc(m->correctnessIssue));
    if (!m->maxDifference.empty()) row(h, QObject::tr("Max difference"), differencesLine(m->maxDifference));
    if (!m->avgDifference.empty()) row(h, QObject::tr("Avg difference"), differencesLine(m->avgDifference));
    auto pre = [](const std::string& t) -> QString { return QLatin1String("<tt>") + esc(t) + QLatin1String("</tt>"); };
    if (!m->compilationError.empty()) row(h, QObject::tr("Compilation error"), pre(m->compilationError));
    if (!m->runtimeError.empty()) row(h, QObject::tr("Runtime error"), pre(m->runtimeError));
    if (!m->otherError.empty()) row(h, QObject::tr("Error"), pre(m->otherError));
    if (!m->hardware.empty()) row(h, QObject::tr("Evaluated on"), esc(m->hardware));
    for (const auto& [k, v] : m->other)
        if (k != "device") row(h, esc(k), esc(v));
}

QString recordHtml(const EvalRecord& r, const RecordRow& rr)
{
    QString h = QLatin1String("<h3 style='margin:2px'>") + rr.id.toHtmlEscaped() + QLatin1String("</h3><table>");
    row(h, QObject::tr("Problem"), rr.problem.toHtmlEscaped() + (r.problem.suite.empty() ? QString() :
        QLatin1String(" (") + esc(r.problem.suite) + QLatin1Char(')')));
    row(h, QObject::tr("Model"), rr.model.toHtmlEscaped());
    if (!r.run.empty()) row(h, QObject::tr("Run"), esc(r.run));
    if (r.sample) row(h, QObject::tr("Sample"), QString::number(*r.sample));
    // Leaderboard rows are correct and event-timed only by the importer's reading of the list.
    const bool claimed = r.run == "leaderboard" && r.verification.flags.empty() && !r.verification.coverage;
    row(h, QObject::tr("Status"), rr.status + (r.compiled ? QObject::tr(", compiled") : QObject::tr(", not compiled")) +
        (claimed ? QObject::tr(" — claimed by the leaderboard, not verified (re-run it to check)") : QString()));
    const bool kernelBench = kwb::kernelBenchMetadata(r).has_value();
    // KernelBench's errors are listed one by one below.
    if (!r.error.empty() && !kernelBench)
        row(h, QObject::tr("Error"), QLatin1String("<tt>") + esc(r.error) + QLatin1String("</tt>"));
    row(h, QObject::tr("Speedup"), std::isnan(rr.speedup) ? QStringLiteral("–") :
        QString::number(rr.speedup, 'f', 3) + QStringLiteral("× over ") +
        (r.speedupBaseline.empty() ? QObject::tr("baseline") : esc(r.speedupBaseline)));
    row(h, QObject::tr("Kernel"), statsLine(r.candidate));
    row(h, QObject::tr("Provenance"), provenanceLine(r.candidate.provenance) +
        (claimed ? QObject::tr(" (as the leaderboard reports it)") : QString()));
    if (kernelBench) {
        h += QLatin1String("<tr><td colspan='2'><b>") + QObject::tr("KernelBench evaluation") +
             QLatin1String("</b></td></tr>");
        kernelBenchRows(h, r);
    }
    for (const auto& b : r.baselines) {
        row(h, QObject::tr("Baseline %1").arg(esc(b.name)), statsLine(b.stats));
        if (!b.stats.provenance.empty()) row(h, QString(), provenanceLine(b.stats.provenance));
    }
    if (const auto& c = r.verification.coverage) {
        QString cov = c->writtenFraction ? QString::number(100.0 * *c->writtenFraction, 'f', 2) + QLatin1String("% written")
                                         : QObject::tr("written fraction unknown");
        if (c->writtenElements && c->totalElements)
            cov += QObject::tr(" (%1 of %2 elements)").arg(*c->writtenElements).arg(*c->totalElements);
        if (!c->firstUnwritten.empty()) {
            QStringList idx;
            for (auto i : c->firstUnwritten) idx << QString::number(i);
            cov += QObject::tr("; first unwritten: %1").arg(idx.join(QLatin1String(", ")));
        }
        if (c->grid.rows > 0) cov += QObject::tr("; grid %1×%2").arg(c->grid.rows).arg(c->grid.cols);
        row(h, QObject::tr("Coverage"), cov);
    }
    h += QLatin1String("</table>");
    if (!r.verification.flags.empty()) {
        h += QLatin1String("<h4 style='margin:4px 2px'>") + QObject::tr("Flags") + QLatin1String("</h4><ul style='margin:0'>");
        for (const auto& f : r.verification.flags) {
            const bool error = f.severity == "error";
            h += QLatin1String("<li><b style='color:") + (error ? QLatin1String("#D55E00") : QLatin1String("#B07800")) +
                 QLatin1String("'>") + esc(f.code) + QLatin1String("</b> (") +
                 (f.severity.empty() ? QObject::tr("warning") : esc(f.severity)) + QLatin1String("): ") +
                 esc(f.reason) + QLatin1String("</li>");
        }
        h += QLatin1String("</ul>");
    } else {
        h += QLatin1String("<p style='color:#555'>") + QObject::tr("No flags.") + QLatin1String("</p>");
    }
    return h;
}

// Relative source paths are written relative to wherever the evaluation ran
// (often the repository root): try the working directory, then the project
// folder and its ancestors.
// The kernel's text, or "" when the record has none or its file is not found here.
QString sourceIfAny(const EvalRecord& r, const QString& projectDir)
{
    if (!r.source.code.empty()) return QString::fromStdString(r.source.code);
    if (r.source.path.empty()) return {};
    const QString path = QString::fromStdString(r.source.path);
    QStringList candidates{path};
    if (QFileInfo(path).isRelative()) {
        QDir dir(projectDir);
        for (int up = 0; up < 4; ++up) {
            candidates << dir.filePath(path);
            if (!dir.cdUp()) break;
        }
    }
    for (const auto& c : candidates) {
        QFile f(c);
        if (f.open(QIODevice::ReadOnly)) return QString::fromUtf8(f.read(2 << 20));
    }
    return {};
}

QString sourceText(const EvalRecord& r, const QString& projectDir)
{
    const QString text = sourceIfAny(r, projectDir);
    if (!text.isEmpty()) return text;
    if (r.source.path.empty()) return QObject::tr("// This record carries no kernel source.");
    return QObject::tr("// Kernel source: %1 (not found on this machine)").arg(QString::fromStdString(r.source.path));
}

} // namespace

RecordsView::RecordsView(QWidget* parent)
    : FigureView(parent),
      m_data(std::make_shared<ProjectData>()),
      m_model(new RecordTableModel(this)),
      m_proxy(new RecordFilterProxy(this)),
      m_table(new QTableView),
      m_search(new QLineEdit),
      m_modelBox(new QComboBox),
      m_levelBox(new QComboBox),
      m_problemBox(new QComboBox),
      m_statusBox(new QComboBox),
      m_flagBox(new QComboBox),
      m_count(new QLabel),
      m_pickNote(new QLabel),
      m_showAll(new QPushButton(tr("Show all"))),
      m_detail(new QTextBrowser),
      m_source(new QPlainTextEdit)
{
    setWindowTitle(tr("Records"));
    m_proxy->setSourceModel(m_model);
    setupFilteredTable(m_table, m_proxy, m_search, tr("Search id, model, problem, flags, errors…"));
    m_table->setColumnWidth(RecordTableModel::Id, 170);
    m_table->setColumnWidth(RecordTableModel::Model, 150);
    m_table->setColumnWidth(RecordTableModel::Level, 50);
    m_table->setColumnWidth(RecordTableModel::Problem, 230);
    m_table->setColumnWidth(RecordTableModel::Flags, 220);

    auto* filters = new QHBoxLayout;
    filters->addWidget(m_search, 2);
    for (QComboBox* box : {m_modelBox, m_levelBox, m_problemBox, m_statusBox, m_flagBox}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
        filters->addWidget(box, 1);
        connect(box, &QComboBox::currentIndexChanged, this, &RecordsView::applyFilterFromControls);
    }
    m_problemBox->setMinimumContentsLength(14);
    filters->addWidget(m_count);
    auto* pickBar = new QHBoxLayout;
    pickBar->addWidget(m_pickNote, 1);
    pickBar->addWidget(m_showAll);
    m_pickNote->setStyleSheet(QStringLiteral("color:#0072B2"));
    m_pickNote->hide();
    m_showAll->hide();
    connect(m_showAll, &QPushButton::clicked, this, &RecordsView::clearPicked);

    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new CudaHighlighter(m_source->document());
    m_detail->setOpenLinks(false);
    auto* detailTabs = new QTabWidget;
    m_detailTabs = detailTabs;
    detailTabs->addTab(m_detail, tr("Details"));
    detailTabs->addTab(m_source, tr("Kernel source"));
    m_compare = new QTextBrowser;
    m_compare->setObjectName(QStringLiteral("compare"));
    m_compare->setOpenLinks(false);
    m_compare->setHtml(tr("<p>Select two rows (Ctrl+click) and choose <b>Compare</b> from the table's context menu "
                          "(Ctrl+D) to see them side by side.</p>"));
    detailTabs->addTab(m_compare, tr("Compare"));

    // Copy rows as TSV (Ctrl+C) or Markdown; the table's context menu lists both.
    auto* copyTsv = new QAction(tr("Copy Rows (TSV)"), m_table);
    copyTsv->setShortcut(QKeySequence::Copy);
    copyTsv->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyTsv, &QAction::triggered, this, [this] { copySelectedRows(false); });
    auto* copyMd = new QAction(tr("Copy Rows (Markdown)"), m_table);
    connect(copyMd, &QAction::triggered, this, [this] { copySelectedRows(true); });
    // Two selected rows: side by side (timings, flags, coverage, source diff) in the Compare tab.
    auto* compare = new QAction(tr("Compare the Two Selected Records"), m_table);
    compare->setShortcut(QKeySequence(tr("Ctrl+D")));
    compare->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(compare, &QAction::triggered, this, [this] {
        QString reason;
        if (!compareSelected(&reason)) Q_EMIT statusMessage(reason);
    });
    m_table->addAction(copyTsv);
    m_table->addAction(copyMd);
    m_table->addAction(compare);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);

    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("recordsSplit")); // saved with the window layout
    split->addWidget(m_table);
    split->addWidget(detailTabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(filters);
    layout->addLayout(pickBar);
    layout->addWidget(split, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            const int rec = current.isValid() ? current.data(RecordTableModel::RecordIndexRole).toInt() : -1;
            showDetail(rec);
            if (rec >= 0) Q_EMIT recordSelected(rec);
        });
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &RecordsView::updateCount);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &RecordsView::updateCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RecordsView::updateCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RecordsView::updateCount);
    connect(m_proxy, &RecordFilterProxy::filterApplied, this, &RecordsView::updateCount);
    // A filter that hides the shown record must not leave its details behind.
    connect(m_proxy, &RecordFilterProxy::filterApplied, this, &RecordsView::syncDetailWithTable);
    connect(m_proxy, &RecordFilterProxy::filterApplied, this, &FigureView::settingsChanged);
    // The charts, statistics, pivot and projection follow the filters (not chart picks).
    connect(m_proxy, &RecordFilterProxy::filterApplied, this, [this] {
        if (m_proxy->isFiltering()) return;
        if (m_proxy->filter() == m_emittedFilter && m_emittedFor == m_data.get()) return;
        m_emittedFilter = m_proxy->filter();
        m_emittedFor = m_data.get();
        Q_EMIT filterSubsetChanged(m_proxy->filteredSubset());
    });
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RecordsView::syncDetailWithTable);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RecordsView::syncDetailWithTable);
    fillCombo(m_modelBox, tr("All models"), {});
    fillCombo(m_levelBox, tr("All levels"), {});
    fillCombo(m_problemBox, tr("All problems"), {});
    fillCombo(m_statusBox, tr("Any status"), {});
    fillCombo(m_flagBox, tr("Flagged or not"), {});
    showDetail(-1);
    updateCount();
}

QString RecordsView::selectedRowsText(bool markdown) const
{
    QList<int> rows;
    for (const QModelIndex& i : m_table->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end());
    if (rows.isEmpty()) return {};
    return tableText(*m_proxy, markdown ? TableTextFormat::Markdown : TableTextFormat::Tsv, rows);
}

void RecordsView::copySelectedRows(bool markdown) const
{
    const QString text = selectedRowsText(markdown);
    if (!text.isEmpty()) QGuiApplication::clipboard()->setText(text);
}

bool RecordsView::exportCsv(const QString& path, QString* error) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        *error = path + QLatin1String(": ") + f.errorString();
        return false;
    }
    f.write(tableText(*m_proxy, TableTextFormat::Csv).toUtf8());
    if (!f.commit()) {
        *error = path + QLatin1String(": ") + f.errorString();
        return false;
    }
    return true;
}

void RecordsView::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void RecordsView::attachRerun(RerunService* service)
{
    if (m_rerunPanel || !service) return;
    m_rerunPanel = new RerunPanel(service);
    m_rerunPanel->setProjectData(m_data);
    m_rerunPanel->setRecord(m_shownRecord);
    m_detailTabs->addTab(m_rerunPanel, tr("Live re-run"));
}

bool RecordsView::rerunSelected(QString* reason)
{
    if (!m_rerunPanel) {
        *reason = tr("this view has no re-run panel");
        return false;
    }
    if (m_shownRecord < 0) {
        *reason = tr("no record is selected");
        return false;
    }
    m_detailTabs->setCurrentWidget(m_rerunPanel);
    m_rerunPanel->setRecord(m_shownRecord);
    if (!m_rerunPanel->rerunEnabled()) {
        *reason = m_rerunPanel->stateText();
        return false;
    }
    m_rerunPanel->rerun();
    if (!m_rerunPanel->isRunning()) {
        *reason = m_rerunPanel->resultText();
        return false;
    }
    return true;
}

void RecordsView::fillCombo(QComboBox* combo, const QString& anyText, const QStringList& values)
{
    const QString current = combo->currentData().toString();
    combo->clear();
    combo->addItem(anyText, QString());
    for (const auto& v : values) combo->addItem(v, v);
    const int i = combo->findData(current);
    combo->setCurrentIndex(i >= 0 ? i : 0);
}

void RecordsView::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    const RecordFilter keep = filter();
    m_updating = true;
    // Drop the filter before the reset so the proxy does not re-evaluate it
    // row by row on this thread; setFilter(keep) applies it again below.
    m_proxy->clearPickedRecords();
    m_proxy->setFilter({});
    m_pickNote->hide();
    m_showAll->hide();
    m_model->setData(m_data);
    if (m_rerunPanel) m_rerunPanel->setProjectData(m_data);
    // The header keeps its sort arrow across a reload: the new rows must follow it.
    const int sortColumn = m_table->horizontalHeader()->sortIndicatorSection();
    if (sortColumn >= 0 && sortColumn < m_model->columnCount())
        m_proxy->sort(sortColumn, m_table->horizontalHeader()->sortIndicatorOrder());
    const RecordFacets& f = m_data->facets;
    fillCombo(m_modelBox, tr("All models"), f.models);
    QStringList levels;
    for (const auto& l : f.levels) levels << l;
    fillCombo(m_levelBox, tr("All levels"), levels);
    fillCombo(m_problemBox, tr("All problems"), f.problems);
    fillCombo(m_statusBox, tr("Any status"), f.statuses);
    QStringList flagItems{QStringLiteral("flagged"), QStringLiteral("unflagged")};
    flagItems += f.flagCodes;
    fillCombo(m_flagBox, tr("Flagged or not"), flagItems);
    m_updating = false;
    setFilter(keep);
    showDetail(-1);
    updateCount();
    // Start with the first row's details rather than an empty pane.
    if (m_proxy->rowCount() > 0) m_table->setCurrentIndex(m_proxy->index(0, 0));
}

RecordFilter RecordsView::filter() const
{
    RecordFilter f;
    f.model = m_modelBox->currentData().toString();
    f.level = m_levelBox->currentData().toString();
    f.problem = m_problemBox->currentData().toString();
    f.status = m_statusBox->currentData().toString();
    f.flag = m_flagBox->currentData().toString();
    f.search = m_search->text();
    return f;
}

void RecordsView::setFilter(const RecordFilter& f)
{
    m_updating = true;
    auto pick = [](QComboBox* box, const QString& value) {
        int i = box->findData(value);
        if (i < 0 && !value.isEmpty()) {
            // Keep a filter from the project even if nothing matches it now.
            box->addItem(value, value);
            i = box->count() - 1;
        }
        box->setCurrentIndex(std::max(0, i));
    };
    pick(m_modelBox, f.model);
    pick(m_levelBox, f.level);
    pick(m_problemBox, f.problem);
    pick(m_statusBox, f.status);
    pick(m_flagBox, f.flag);
    m_search->setText(f.search);
    m_updating = false;
    m_proxy->setFilter(f);
    updateCount();
}

void RecordsView::applyFilterFromControls()
{
    if (m_updating) return;
    RecordFilter f = filter();
    f.search = m_proxy->filter().search; // the search box applies itself, debounced
    m_proxy->setFilter(f);
    updateCount();
}

void RecordsView::showPicked(const QSet<int>& records, const QString& description)
{
    m_proxy->setPickedRecords(records);
    m_pickNote->setText(tr("Showing %1 records picked in %2").arg(records.size()).arg(description));
    m_pickNote->show();
    m_showAll->show();
    updateCount();
}

void RecordsView::clearPicked()
{
    m_proxy->clearPickedRecords();
    m_pickNote->hide();
    m_showAll->hide();
    updateCount();
}

void RecordsView::selectRecord(int recordIndex)
{
    if (recordIndex < 0 || recordIndex >= m_model->rowCount()) return;
    QModelIndex proxyIndex = m_proxy->mapFromSource(m_model->index(m_model->displayRow(recordIndex), 0));
    if (!proxyIndex.isValid()) {
        // Hidden by the filters: show it anyway rather than do nothing.
        clearPicked();
        setFilter({});
        proxyIndex = m_proxy->mapFromSource(m_model->index(m_model->displayRow(recordIndex), 0));
    }
    m_table->setCurrentIndex(proxyIndex);
    m_table->scrollTo(proxyIndex, QAbstractItemView::PositionAtCenter);
    showDetail(recordIndex);
}

int RecordsView::currentRecord() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? i.data(RecordTableModel::RecordIndexRole).toInt() : -1;
}

void RecordsView::updateCount()
{
    if (m_proxy->isFiltering()) {
        m_count->setText(tr("filtering %1 records…").arg(m_model->rowCount()));
        return;
    }
    m_count->setText(tr("%1 of %2 records").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
}

void RecordsView::syncDetailWithTable()
{
    if (m_proxy->isFiltering()) return;
    const int current = currentRecord();
    if (current == m_shownRecord) return;
    if (current < 0 && m_shownRecord >= 0) {
        // Is the shown record still among the rows (the table lost only its cursor)?
        const QModelIndex source = m_model->index(m_model->displayRow(m_shownRecord), 0);
        if (m_proxy->mapFromSource(source).isValid()) return;
    }
    showDetail(current);
}

int RecordsView::shownRecord() const
{
    return m_shownRecord;
}

void RecordsView::showDetail(int rec)
{
    m_shownRecord = rec >= 0 && rec < m_model->rowCount() ? rec : -1;
    if (m_rerunPanel) m_rerunPanel->setRecord(m_shownRecord);
    if (rec < 0 || rec >= m_model->rowCount()) {
        m_detail->setHtml(m_model->rowCount() == 0
                ? tr("<p>No records loaded. Use <b>File → Open</b> or drop record files, traces or folders "
                     "on this window.</p>")
                : tr("<p>Select a record to see its metrics, provenance, flags and kernel source.</p>"));
        m_source->clear();
        return;
    }
    const EvalRecord& r = m_data->records->records[static_cast<std::size_t>(rec)];
    m_detail->setHtml(recordHtml(r, (*m_data->rows)[static_cast<std::size_t>(rec)]));
    m_source->setPlainText(sourceText(r, m_data->project.baseDir()));
}

bool RecordsView::compareSelected(QString* reason)
{
    QList<int> recs;
    for (const QModelIndex& i : m_table->selectionModel()->selectedRows())
        recs << i.data(RecordTableModel::RecordIndexRole).toInt();
    std::sort(recs.begin(), recs.end());
    if (recs.size() != 2) {
        *reason = tr("Select exactly two records to compare (%1 selected).").arg(recs.size());
        return false;
    }
    return compareRecords(recs[0], recs[1], reason);
}

bool RecordsView::compareRecords(int a, int b, QString* reason)
{
    const int n = m_model->rowCount();
    if (a < 0 || b < 0 || a >= n || b >= n || a == b) {
        *reason = tr("Two different records are needed to compare.");
        return false;
    }
    const auto& recs = m_data->records->records;
    const QString dir = m_data->project.baseDir();
    m_compare->setHtml(compareRecordsHtml(*m_data, a, b, sourceIfAny(recs[static_cast<std::size_t>(a)], dir),
        sourceIfAny(recs[static_cast<std::size_t>(b)], dir)));
    m_detailTabs->setCurrentWidget(m_compare);
    return true;
}

QString RecordsView::comparisonHtml() const
{
    return m_compare->toHtml();
}

QString RecordsView::figureTitle() const
{
    return tr("Evaluation records");
}

void RecordsView::paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const
{
    TableFigure t;
    t.title = figureTitle();
    // What a reader checks first on the left: a narrow figure leaves out columns from the right.
    t.columns = {RecordTableModel::Id, RecordTableModel::Problem, RecordTableModel::Model, RecordTableModel::Status,
        RecordTableModel::Speedup, RecordTableModel::Flags, RecordTableModel::CandidateMs, RecordTableModel::BaselineMs};
    const QString filter = describeFilter(m_proxy->filter());
    t.note = tr("%1 of %2 records").arg(m_proxy->rowCount()).arg(m_model->rowCount());
    if (!filter.isEmpty()) t.note += tr(", filter: %1").arg(filter);
    if (m_proxy->hasPickedRecords()) t.note += tr(", %1").arg(m_pickNote->text());
    t.note += tr(". Speedup over the baseline named in Baseline ms; [bracketed]: the record is not correct.");
    paintTableFigure(painter, rect, style, *m_proxy, t);
}

RecordSubset RecordsView::filteredSubset() const
{
    return m_proxy->filteredSubset();
}

QString RecordsView::sourceShown() const
{
    return m_source->toPlainText();
}

QString RecordsView::detailHtml() const
{
    return m_detail->toHtml();
}

} // namespace kwb::ui
