#pragma once
// The workbench window: records, distributions, workloads, coverage and
// suspicious-speedup views over one loaded project. Loading runs on the
// thread pool with throttled progress and cancel; the GUI thread only swaps in
// finished, immutable results (ProjectData), dropping stale ones by generation.
#include <QMainWindow>
#include <QMessageBox>

#include <functional>
#include <memory>

#include "base/progress.h"
#include "export/figure_preset.h"
#include "jobs/job_tracker.h"
#include "project/project_data.h"

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTimer;

namespace kwb::ui {

class FigureView;
class RecordsView;
class DistributionsView;
class PivotView;
class WorkloadsView;
class CoverageView;
class SuspiciousView;
class RerunService;
struct RerunOutcome;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The project shown when the workbench starts without arguments: the
    // datasets/ default project (next to the executable's share folder or in
    // this checkout), else the copy compiled into the binary.
    static bool defaultProject(Project* project, QString* error);

    // Asynchronous: returns at once; projectLoaded() follows. The project
    // becomes current only when its load completes: a cancelled load leaves
    // the previous project (and what Save writes) as it was. Inputs that the
    // current data already holds, unchanged, are not read again.
    void loadProject(const Project& project);
    // Removes one input (a records, traces or problems entry) and reloads the rest without re-reading it.
    void removeInput(const QString& entry);
    bool openProjectFile(const QString& path);
    // Records, traces, problem suites, folders, project files (as dropped).
    void openPaths(const QStringList& paths);
    void cancelLoad();

    // Main thread: shows a finished load (also for tests and benchmarks).
    void setProjectData(ProjectDataPtr data);
    const ProjectDataPtr& projectData() const { return m_data; }
    // The project as it stands: files, current filters, figure settings, view.
    Project currentProject() const;
    bool saveProjectAs(const QString& path, QString* error);
    // Inputs or settings differ from the project file as last opened or saved.
    bool isModified() const;
    // A project shipped with the program (datasets/default.kwbproject.json, an
    // installed copy, the compiled-in one): Save never overwrites it silently.
    static bool isShippedProject(const QString& path);
    // Asked on close with unsaved changes (Save, Discard or Cancel); tests replace the dialog.
    using UnsavedChangesPrompt = std::function<QMessageBox::StandardButton(MainWindow*)>;
    void setUnsavedChangesPrompt(UnsavedChangesPrompt prompt) { m_unsavedPrompt = std::move(prompt); }
    // File → Save: the project's own file, or a chosen one for new and shipped projects.
    // `chosenPath` stands in for the file dialog (tests); false when nothing was written.
    bool save(const QString& chosenPath = QString());

    // Selects a record by id in the records view and, when it has a coverage grid, in the coverage view.
    bool focusRecord(const QString& id);
    // Selects the record and starts its live re-run on the records view's re-run tab
    // (waits for the executor probe first); false and *reason when it cannot start.
    bool startRerun(const QString& id, QString* reason);
    // startRerun, then processes events until the result is shown (or timeoutMs passes).
    bool rerunAndWait(const QString& id, int timeoutMs, RerunOutcome* outcome, QString* reason);

    QStringList viewNames() const;
    bool showView(const QString& name);
    FigureView* currentView() const;
    FigureView* view(const QString& name) const;
    RecordsView* recordsView() const { return m_records; }
    DistributionsView* distributionsView() const { return m_distributions; }
    PivotView* pivotView() const { return m_pivot; }
    WorkloadsView* workloadsView() const { return m_workloads; }
    CoverageView* coverageView() const { return m_coverage; }
    SuspiciousView* suspiciousView() const { return m_suspicious; }
    RerunService* rerunService() const { return m_rerun; }

    FigurePreset figurePreset() const;
    void setFigurePreset(const QString& name);
    bool exportCurrentView(const QString& path, QString* error);

    bool isLoading() const;
    // Loading or a view still computing.
    bool isBusy() const;
    // Processes events until idle (screenshots, tests); false on timeout.
    bool waitUntilIdle(int timeoutMs);
    QStringList messages() const { return m_messages; }

Q_SIGNALS:
    void projectLoaded();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void restoreLayout();
    void saveLayout() const;
    void rebuildRecentMenu();
    void addRecent(const QString& path);
    void showProgress(const QString& stage, qint64 done, qint64 total);
    void finishLoad(const Project& project, ProjectDataPtr loaded);
    void rebuildRemoveMenu();
    void updateStatus();
    void updateTitle();
    void appendMessages(const QStringList& messages);
    void exportDialog();

    Project m_project;      // the project shown (its load completed)
    Project m_savedProject; // as last read from or written to m_project.path
    ProjectDataPtr m_data;
    JobTracker* m_loadJob;
    QStringList m_messages;
    QStringList m_pendingMessages; // said before a load finished; kept across it
    UnsavedChangesPrompt m_unsavedPrompt;

    QTabWidget* m_tabs;
    RecordsView* m_records;
    DistributionsView* m_distributions;
    PivotView* m_pivot;
    WorkloadsView* m_workloads;
    CoverageView* m_coverage;
    SuspiciousView* m_suspicious;
    RerunService* m_rerun;
    QList<FigureView*> m_views;

    QLabel* m_statusText;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QPlainTextEdit* m_log;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_removeMenu = nullptr;
    QActionGroup* m_presetGroup = nullptr;
};

} // namespace kwb::ui
