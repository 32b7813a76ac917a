#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>
#include <QTimer>

#include <functional>
#include <utility>

#include "charts/figure_style.h"
#include "project/input_classifier.h"
#include "project/project_loader.h"
#include "resources_init.h"
#include "views/coverage_view.h"
#include "views/distributions_view.h"
#include "views/exploit_matrix_view.h"
#include "views/pivot_view.h"
#include "views/records_view.h"
#include "views/rerun_panel.h"
#include "views/rerun_service.h"
#include "views/suspicious_view.h"
#include "views/claims_view.h"
#include "views/scale_sweep_view.h"
#include "views/zero_acceptance_view.h"
#include "views/workloads_view.h"

namespace kwb::ui {

Q_LOGGING_CATEGORY(lcTiming, "kwb.ui.timing", QtInfoMsg)

namespace {

constexpr int kMaxRecent = 10;
const QString kRecentKey = QStringLiteral("recentFiles");

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_data(std::make_shared<ProjectData>()),
      m_loadJob(new JobTracker(this)),
      m_tabs(new QTabWidget),
      m_records(new RecordsView),
      m_distributions(new DistributionsView),
      m_pivot(new PivotView),
      m_workloads(new WorkloadsView),
      m_coverage(new CoverageView),
      m_rerun(new RerunService(this)),
      m_statusText(new QLabel),
      m_progress(new QProgressBar),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_log(new QPlainTextEdit)
{
    initKwbResources();
    m_suspicious = new SuspiciousView(m_rerun);
    m_records->attachRerun(m_rerun);
    m_views = {m_records, m_distributions, m_pivot, m_workloads, m_coverage, m_suspicious};
    // The paper's views (issues 13 and 16): claimed vs verified, zero acceptance, the scale sweep.
    auto* claims = new ClaimsView;
    m_views << claims << new ZeroAcceptanceView << new ScaleSweepView << new ExploitMatrixView;
    connect(claims, &ClaimsView::recordActivated, this, [this](int rec) {
        showView(QStringLiteral("records"));
        m_records->selectRecord(rec);
    });
    for (FigureView* v : m_views) m_tabs->addTab(v, v->windowTitle());
    setCentralWidget(m_tabs);
    setAcceptDrops(true);
    setWindowIcon(QIcon(QStringLiteral(":/kwb/icons/kernel-workbench.svg")));

    m_log->setObjectName(QStringLiteral("messagesLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    auto* dock = new QDockWidget(tr("Messages"), this);
    dock->setObjectName(QStringLiteral("messages"));
    dock->setWidget(m_log);
    dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    resizeDocks({dock}, {90}, Qt::Vertical);
    dock->hide();

    m_progress->setMaximumWidth(240);
    m_progress->hide();
    m_cancel->hide();
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoad);
    // Progress reaches the GUI at most ten times a second, however often the loader reports.
    connect(m_loadJob, &JobTracker::progress, this, &MainWindow::showProgress);

    connect(m_distributions, &DistributionsView::recordsPicked, this, [this](const QSet<int>& recs, const QString& what) {
        m_records->showPicked(recs, what);
        showView(QStringLiteral("records"));
    });
    connect(m_pivot, &PivotView::recordsPicked, this, [this](const QSet<int>& recs, const QString& what) {
        m_records->showPicked(recs, what);
        showView(QStringLiteral("records"));
    });
    // The charts, statistics, pivot and projection follow the Records filters; each says
    // which filter is in effect and has a button back to all records.
    connect(m_records, &RecordsView::filterSubsetChanged, this, [this](const RecordSubset& subset) {
        m_distributions->setRecordSubset(subset);
        m_pivot->setRecordSubset(subset);
        m_workloads->setRecordSubset(subset);
    });
    connect(m_distributions, &DistributionsView::allRecordsRequested, this, [this] { m_records->setFilter({}); });
    connect(m_pivot, &PivotView::allRecordsRequested, this, [this] { m_records->setFilter({}); });
    connect(m_workloads, &WorkloadsView::allRecordsRequested, this, [this] { m_records->setFilter({}); });
    connect(m_suspicious, &SuspiciousView::recordActivated, this, [this](int rec) {
        showView(QStringLiteral("records"));
        m_records->selectRecord(rec);
    });
    connect(m_suspicious, &SuspiciousView::liveCoverage, this, [this](const Coverage& c, const QString& title) {
        m_coverage->showLive(c, title);
    });
    connect(m_records->rerunPanel(), &RerunPanel::liveCoverage, this, [this](const Coverage& c, const QString& title) {
        m_coverage->showLive(c, title);
    });
    for (FigureView* v : m_views) {
        connect(v, &FigureView::statusMessage, this, [this](const QString& m) { statusBar()->showMessage(m, 5000); });
        connect(v, &FigureView::settingsChanged, this, &MainWindow::updateTitle);
    }

    buildMenus();
    m_rerun->probe();
    updateStatus();
    updateTitle();
    resize(1280, 820);
    restoreLayout();
}

MainWindow::~MainWindow()
{
    m_loadJob->supersede();
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Files…"), QKeySequence::Open, this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open records, traces or a project"), QString(),
            tr("Workbench inputs (*.json *.jsonl *.gz *.sqlite);;All files (*)"));
        if (!paths.isEmpty()) openPaths(paths);
    });
    file->addAction(tr("Open &Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a folder of records, traces or problems"));
        if (!dir.isEmpty()) openPaths({dir});
    });
    file->addAction(tr("Open &Project…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
            tr("Kernel Workbench projects (*.kwbproject.json *.json)"));
        if (!path.isEmpty()) openProjectFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Save Project"), QKeySequence::Save, this, [this] { save(); });
    file->addAction(tr("Save Project &As…"), QKeySequence::SaveAs, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save project as"),
            QStringLiteral("untitled.kwbproject.json"), tr("Kernel Workbench projects (*.kwbproject.json)"));
        QString error;
        if (!path.isEmpty() && !saveProjectAs(path, &error)) QMessageBox::warning(this, tr("Save project"), error);
    });
    m_removeMenu = file->addMenu(tr("Re&move Input"));
    rebuildRemoveMenu();
    file->addSeparator();
    file->addAction(tr("&Export Figure…"), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportDialog);
    file->addAction(tr("Export Records &Table (CSV)…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the filtered records table"),
            QStringLiteral("records.csv"), tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !m_records->exportCsv(path, &error)) QMessageBox::warning(this, tr("Export table"), error);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    int tab = 0;
    for (FigureView* v : m_views) {
        const QString name = v->viewName();
        // Ctrl+1, Ctrl+2, ... switch tabs in order.
        view->addAction(v->windowTitle(), QKeySequence(QStringLiteral("Ctrl+%1").arg(++tab)), this,
            [this, name] { showView(name); });
    }
    view->addAction(tr("&Find in Records"), QKeySequence::Find, this, [this] {
        showView(QStringLiteral("records"));
        m_records->focusSearch();
    });
    view->addSeparator();
    QMenu* presets = view->addMenu(tr("Figure &Preset"));
    m_presetGroup = new QActionGroup(this);
    for (const auto& p : figurePresets()) {
        QAction* a = presets->addAction(p.name + QLatin1String(" (") + QString::number(p.widthIn) +
                                        QLatin1String(" in, ") + QString::number(p.fontPt) + QLatin1String(" pt)"));
        a->setData(p.name);
        a->setToolTip(p.description);
        a->setCheckable(true);
        m_presetGroup->addAction(a);
    }
    setFigurePreset(QStringLiteral("single-column"));
    QAction* serif = view->addAction(tr("&Serif Figure Font (for LaTeX papers)"));
    serif->setCheckable(true);
    serif->setChecked(QSettings().value(QStringLiteral("figures/serif"), false).toBool());
    FigureStyle::setSerif(serif->isChecked());
    connect(serif, &QAction::toggled, this, [this](bool on) {
        FigureStyle::setSerif(on);
        QSettings().setValue(QStringLiteral("figures/serif"), on);
        m_distributions->setKind(m_distributions->kind()); // redraw in the new font
        for (FigureView* v : m_views) v->update();
    });
    QMenu* rerun = menuBar()->addMenu(tr("&Re-run"));
    rerun->addAction(tr("&KernelBench Checkout…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this,
            tr("KernelBench checkout (its KernelBench/levelN problem files are used for KernelBench samples)"),
            RerunService::kernelBenchDir());
        if (!dir.isEmpty()) RerunService::setKernelBenchDir(dir);
    });
    QAction* messages = view->addAction(tr("&Messages"));
    connect(messages, &QAction::triggered, this, [this] {
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("messages"))) dock->show();
    });
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Kernel Workbench"), this, [this] {
        QMessageBox::about(this, tr("About Kernel Workbench"),
            tr("<p><b>Kernel Workbench %1</b></p><p>Is a reported speedup of an LLM-generated GPU kernel real, and how "
               "much of a real workload can such kernels govern? Re-runs kernels in an isolated process and checks "
               "coverage, correctness beyond allclose and timing; splits profiler traces into kernel families and "
               "projects the end-to-end saving.</p><p>Formats, the command line (<tt>kwb</tt>) and the checks: "
               "README.md and docs/ in the source tree.</p>")
                .arg(QCoreApplication::applicationVersion()));
    });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::restoreLayout()
{
    // Window size, docks and splitters as the user left them.
    QSettings settings;
    if (settings.contains(QStringLiteral("window/geometry")))
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    for (QSplitter* s : findChildren<QSplitter*>())
        if (!s->objectName().isEmpty())
            s->restoreState(settings.value(QStringLiteral("splitters/") + s->objectName()).toByteArray());
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    for (QSplitter* s : findChildren<QSplitter*>())
        if (!s->objectName().isEmpty()) settings.setValue(QStringLiteral("splitters/") + s->objectName(), s->saveState());
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const auto& path : recent) {
        m_recentMenu->addAction(path, this, [this, path] {
            if (path.endsWith(QLatin1String(".kwbproject.json"))) openProjectFile(path);
            else openPaths({path});
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::addRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

bool MainWindow::defaultProject(Project* project, QString* error)
{
    QStringList candidates;
    const QString env = qEnvironmentVariable("KWB_DEFAULT_PROJECT");
    if (!env.isEmpty()) candidates << env;
    candidates << QCoreApplication::applicationDirPath() +
                      QStringLiteral("/../share/kernel-workbench/datasets/default.kwbproject.json");
    candidates << QStringLiteral(KWB_DATASET_DIR "/default.kwbproject.json");
    for (const auto& c : candidates)
        if (QFileInfo(c).isFile()) return kwb::ui::loadProject(c, project, error);
    // Not installed and not in a checkout: the compiled-in copy, resolved against the checkout's datasets/.
    initKwbResources();
    QFile embedded(QStringLiteral(":/kwb/default.kwbproject.json"));
    if (!embedded.open(QIODevice::ReadOnly)) {
        *error = tr("the default project is missing from this build");
        return false;
    }
    return parseProject(embedded.readAll(), QStringLiteral(KWB_DATASET_DIR "/default.kwbproject.json"), project, error);
}

void MainWindow::loadProject(const Project& project)
{
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("Loading"));
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Loading %1…").arg(project.name.isEmpty() ? tr("project") : project.name));
    const ProjectDataPtr previous = m_data;
    m_loadJob->start([project, previous](const TaskContext& ctx) { return loadProjectData(project, ctx, previous); },
        [this, project](ProjectDataPtr loaded) { finishLoad(project, std::move(loaded)); });
}

void MainWindow::finishLoad(const Project& project, ProjectDataPtr loaded)
{
    statusBar()->clearMessage();
    m_progress->hide();
    m_cancel->hide();
    if (loaded->cancelled) {
        // The cancelled inputs never become part of the project: Save writes what is shown.
        statusBar()->showMessage(tr("Loading cancelled; the previous data stays."), 5000);
        appendMessages(std::exchange(m_pendingMessages, {}));
        updateStatus();
        Q_EMIT projectLoaded();
        return;
    }
    const bool sameFile = project.path == m_project.path;
    m_project = project;
    if (!sameFile) {
        // Opened from a file (or a new, unsaved set of inputs): that is what "unmodified" means now.
        Project saved;
        QString error;
        const bool fromFile = !project.path.isEmpty() && !project.path.startsWith(QLatin1Char(':')) &&
                              kwb::ui::loadProject(project.path, &saved, &error);
        m_savedProject = fromFile ? saved : Project{};
    }
    setProjectData(loaded);
    Q_EMIT projectLoaded();
}

void MainWindow::removeInput(const QString& entry)
{
    Project p = currentProject();
    p.records.removeAll(entry);
    p.traces.removeAll(entry);
    p.problems.removeAll(entry);
    loadProject(p);
}

void MainWindow::rebuildRemoveMenu()
{
    if (!m_removeMenu) return;
    m_removeMenu->clear();
    const Project& p = m_project;
    for (const QStringList* list : {&p.records, &p.traces, &p.problems})
        for (const auto& entry : *list)
            m_removeMenu->addAction(entry, this, [this, entry] { removeInput(entry); });
    m_removeMenu->setEnabled(!m_removeMenu->isEmpty());
}

bool MainWindow::isLoading() const
{
    return m_loadJob->isRunning();
}

void MainWindow::cancelLoad()
{
    m_loadJob->cancel();
}

bool MainWindow::openProjectFile(const QString& path)
{
    Project p;
    QString error;
    if (!kwb::ui::loadProject(path, &p, &error)) {
        m_pendingMessages << error;
        appendMessages({error});
        statusBar()->showMessage(error, 8000);
        return false;
    }
    addRecent(p.path);
    loadProject(p);
    return true;
}

void MainWindow::openPaths(const QStringList& paths)
{
    // The project as the user has it now: their search, filters, grouping, chart and view stay.
    Project p = currentProject();
    QStringList messages;
    const QStringList projects = addInputs(p, paths, &messages);
    // Shown now and again after the load, which replaces the message list.
    m_pendingMessages << messages;
    appendMessages(messages);
    if (!projects.isEmpty()) {
        openProjectFile(projects.front());
        return;
    }
    for (const auto& path : paths)
        if (QFileInfo::exists(path)) addRecent(QFileInfo(path).absoluteFilePath());
    if (p.path.startsWith(QStringLiteral(KWB_DATASET_DIR)) && m_project.isEmpty()) p.path.clear();
    loadProject(p);
}

void MainWindow::showProgress(const QString& stage, qint64 done, qint64 total)
{
    if (stage.isEmpty()) return;
    if (total > 0) {
        // Byte counts can exceed int; show permille.
        m_progress->setRange(0, 1000);
        m_progress->setValue(static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)));
    } else {
        m_progress->setRange(0, 0);
    }
    m_progress->setFormat(stage + QLatin1String(" %p%"));
}

void MainWindow::setProjectData(ProjectDataPtr next)
{
    m_data = next ? std::move(next) : std::make_shared<ProjectData>();
    QElapsedTimer timer;
    for (FigureView* v : m_views) {
        timer.start();
        v->setProjectData(m_data);
        qCDebug(lcTiming) << v->viewName() << "setProjectData" << timer.nsecsElapsed() / 1e6 << "ms";
    }
    m_records->setFilter(m_project.filter);
    m_distributions->setGroupBy(m_project.figures.groupBy);
    DistributionKind kind;
    if (distributionKindFromName(m_project.figures.distribution, &kind)) m_distributions->setKind(kind);
    if (!m_project.figures.preset.isEmpty()) setFigurePreset(m_project.figures.preset);
    if (!m_project.view.isEmpty()) showView(m_project.view);
    m_log->clear();
    m_messages.clear();
    appendMessages(std::exchange(m_pendingMessages, {}));
    appendMessages(m_data->messages);
    rebuildRemoveMenu();
    updateStatus();
    updateTitle();
}

void MainWindow::appendMessages(const QStringList& messages)
{
    for (const auto& m : messages) {
        m_messages << m;
        m_log->appendPlainText(m);
    }
    if (!messages.isEmpty())
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("messages"))) dock->show();
}

void MainWindow::updateStatus()
{
    const auto& d = *m_data;
    QString text = tr("%1 records, %2 flagged · %3 workloads · %4 problem specs, %5 candidates")
                       .arg(d.rows->size())
                       .arg(d.flaggedCount())
                       .arg(d.workloads.size())
                       .arg(d.problemSpecs.size())
                       .arg(d.candidateSpecs.size());
    if (!d.messages.isEmpty()) text += tr(" · %1 messages").arg(d.messages.size());
    if (d.rows->empty() && d.workloads.empty())
        text = tr("Nothing loaded yet: File → Open, or drop records, traces or folders here. ") + text;
    m_statusText->setText(text);
}

void MainWindow::updateTitle()
{
    QString name = m_project.name;
    if (name.isEmpty() && !m_project.path.isEmpty()) name = QFileInfo(m_project.path).fileName();
    if (name.isEmpty()) name = m_project.isEmpty() ? QString() : tr("Untitled");
    // "[*]" is where Qt draws the modified marker.
    setWindowTitle(name.isEmpty() ? tr("Kernel Workbench[*]") : name + QStringLiteral("[*] — Kernel Workbench"));
    setWindowModified(isModified());
}

namespace {

// What the project file stores, without where it lives or which tab was open last.
Project comparable(Project p)
{
    p.path.clear();
    p.view.clear();
    return p;
}

} // namespace

bool MainWindow::isModified() const
{
    if (m_project.isEmpty() && m_savedProject.isEmpty()) return false;
    return comparable(currentProject()) != comparable(m_savedProject);
}

bool MainWindow::isShippedProject(const QString& path)
{
    if (path.isEmpty()) return false;
    if (path.startsWith(QLatin1Char(':'))) return true;
    const QString abs = QFileInfo(path).absoluteFilePath();
    const QStringList shipped{QStringLiteral(KWB_DATASET_DIR),
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kernel-workbench/datasets")};
    for (const QString& dir : shipped) {
        const QString root = QFileInfo(dir).absoluteFilePath();
        if (abs.startsWith(QDir::cleanPath(root) + QLatin1Char('/'))) return true;
    }
    return false;
}

bool MainWindow::save(const QString& chosenPath)
{
    QString path = m_project.path;
    if (path.isEmpty() || isShippedProject(path)) {
        // Never overwrite the shipped default project: ask where this one goes.
        path = chosenPath;
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(this,
                isShippedProject(m_project.path) ? tr("Save a copy of the shipped project") : tr("Save project"),
                QStringLiteral("untitled.kwbproject.json"), tr("Kernel Workbench projects (*.kwbproject.json)"));
        if (path.isEmpty()) return false;
        if (isShippedProject(path)) {
            QMessageBox::warning(this, tr("Save project"),
                tr("%1 ships with Kernel Workbench; save your project somewhere else.").arg(path));
            return false;
        }
    }
    QString error;
    if (!saveProjectAs(path, &error)) {
        QMessageBox::warning(this, tr("Save project"), error);
        return false;
    }
    return true;
}

Project MainWindow::currentProject() const
{
    Project p = m_project;
    p.filter = m_records->filter();
    p.figures.preset = figurePreset().name;
    p.figures.groupBy = m_distributions->groupBy();
    p.figures.distribution = distributionKindName(m_distributions->kind());
    if (FigureView* v = currentView()) p.view = v->viewName();
    return p;
}

bool MainWindow::saveProjectAs(const QString& path, QString* error)
{
    const Project p = currentProject();
    if (!saveProject(p, path, error)) return false;
    QString reloadError;
    Project saved;
    if (kwb::ui::loadProject(path, &saved, &reloadError)) {
        m_project = saved;
        m_savedProject = saved;
    }
    addRecent(QFileInfo(path).absoluteFilePath());
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

bool MainWindow::focusRecord(const QString& id)
{
    const auto& rows = *m_data->rows;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].id != id) continue;
        m_records->selectRecord(static_cast<int>(i));
        m_coverage->showRecord(static_cast<int>(i));
        return true;
    }
    return false;
}

namespace {

// Processes events until `done` holds or the deadline passes.
bool waitFor(const std::function<bool()>& done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired()) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(2);
    }
    return true;
}

} // namespace

bool MainWindow::startRerun(const QString& id, QString* reason)
{
    if (!focusRecord(id)) {
        *reason = tr("no record '%1' in the project").arg(id);
        return false;
    }
    // The runner and bridge probe runs at start-up; its answer decides what can re-run.
    if (!waitFor([this] { return m_rerun->hasProbed(); }, 60000)) {
        *reason = tr("the re-run executors did not answer within a minute");
        return false;
    }
    showView(QStringLiteral("records"));
    if (!m_records->rerunSelected(reason)) {
        *reason = tr("record '%1' cannot be re-run: %2").arg(id, *reason);
        return false;
    }
    return true;
}

bool MainWindow::rerunAndWait(const QString& id, int timeoutMs, RerunOutcome* outcome, QString* reason)
{
    if (!startRerun(id, reason)) return false;
    RerunPanel* panel = m_records->rerunPanel();
    if (!waitFor([panel] { return !panel->isRunning(); }, timeoutMs)) {
        m_rerun->cancel();
        *reason = tr("the re-run of '%1' gave no result within %2 s").arg(id).arg(timeoutMs / 1000);
        return false;
    }
    *outcome = panel->lastOutcome();
    return true;
}

QStringList MainWindow::viewNames() const
{
    QStringList names;
    for (FigureView* v : m_views) names << v->viewName();
    return names;
}

bool MainWindow::showView(const QString& name)
{
    for (FigureView* v : m_views) {
        if (v->viewName() == name) {
            m_tabs->setCurrentWidget(v);
            return true;
        }
    }
    return false;
}

FigureView* MainWindow::currentView() const
{
    return qobject_cast<FigureView*>(m_tabs->currentWidget());
}

FigureView* MainWindow::view(const QString& name) const
{
    for (FigureView* v : m_views)
        if (v->viewName() == name) return v;
    return nullptr;
}

FigurePreset MainWindow::figurePreset() const
{
    if (m_presetGroup)
        if (QAction* a = m_presetGroup->checkedAction())
            if (auto p = findFigurePreset(a->data().toString())) return *p;
    return figurePresets().front();
}

void MainWindow::setFigurePreset(const QString& name)
{
    if (!m_presetGroup) return;
    for (QAction* a : m_presetGroup->actions()) a->setChecked(a->data().toString() == name);
}

bool MainWindow::exportCurrentView(const QString& path, QString* error)
{
    FigureView* v = currentView();
    const auto format = figureFormatFromPath(path);
    if (!format) {
        *error = path + tr(": the file name must end in .pdf, .svg or .png");
        return false;
    }
    return exportFigure(*v, figurePreset(), *format, path, error);
}

void MainWindow::exportDialog()
{
    FigureView* v = currentView();
    if (!v) return;
    const FigurePreset preset = figurePreset();
    const QString path = QFileDialog::getSaveFileName(this,
        tr("Export %1 (preset %2)").arg(v->figureTitle(), preset.name), v->viewName() + QStringLiteral(".pdf"),
        tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportCurrentView(path, &error)) QMessageBox::warning(this, tr("Export figure"), error);
    else statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

bool MainWindow::isBusy() const
{
    if (isLoading()) return true;
    for (FigureView* v : m_views)
        if (v->isBusy()) return true;
    return false;
}

bool MainWindow::waitUntilIdle(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (!isBusy()) {
            QCoreApplication::processEvents();
            return true;
        }
        QThread::msleep(2);
    }
    return false;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const auto& url : event->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    if (paths.isEmpty()) return;
    event->acceptProposedAction();
    openPaths(paths);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (isModified()) {
        const auto answer = m_unsavedPrompt ? m_unsavedPrompt(this)
                                            : QMessageBox::question(this, tr("Unsaved project"),
                                                  tr("The project's inputs or settings have changed. Save them?"),
                                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                                  QMessageBox::Save);
        if (answer == QMessageBox::Cancel || (answer == QMessageBox::Save && !save())) {
            event->ignore();
            return;
        }
    }
    m_loadJob->supersede();
    saveLayout();
    event->accept();
}

} // namespace kwb::ui
