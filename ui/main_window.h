#pragma once
// The workbench window: records, distributions, workloads, coverage and
// suspicious-speedup views over one loaded project. Loading runs on the
// thread pool with throttled progress and cancel; the GUI thread only swaps in
// finished, immutable results (ProjectData), dropping stale ones by generation.
#include <QMainWindow>

#include <memory>
#include <mutex>

#include "base/progress.h"
#include "export/figure_preset.h"
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
class WorkloadsView;
class CoverageView;
class SuspiciousView;
class RerunService;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The project shown when the workbench starts without arguments: the
    // datasets/ default project (next to the executable's share folder or in
    // this checkout), else the copy compiled into the binary.
    static bool defaultProject(Project* project, QString* error);

    // Asynchronous: returns at once; projectLoaded() follows.
    void loadProject(const Project& project);
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

    // Selects a record by id in the records view and, when it has a coverage grid, in the coverage view.
    bool focusRecord(const QString& id);

    QStringList viewNames() const;
    bool showView(const QString& name);
    FigureView* currentView() const;
    FigureView* view(const QString& name) const;
    RecordsView* recordsView() const { return m_records; }
    DistributionsView* distributionsView() const { return m_distributions; }
    WorkloadsView* workloadsView() const { return m_workloads; }
    CoverageView* coverageView() const { return m_coverage; }
    SuspiciousView* suspiciousView() const { return m_suspicious; }
    RerunService* rerunService() const { return m_rerun; }

    FigurePreset figurePreset() const;
    void setFigurePreset(const QString& name);
    bool exportCurrentView(const QString& path, QString* error);

    bool isLoading() const { return m_loading; }
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
    struct LoadState; // progress shared with the loading thread
    void buildMenus();
    void rebuildRecentMenu();
    void addRecent(const QString& path);
    void pollProgress();
    void updateStatus();
    void updateTitle();
    void appendMessages(const QStringList& messages);
    void exportDialog();

    Project m_project;
    ProjectDataPtr m_data;
    quint64 m_generation = 0;
    bool m_loading = false;
    std::shared_ptr<LoadState> m_load;
    QStringList m_messages;

    QTabWidget* m_tabs;
    RecordsView* m_records;
    DistributionsView* m_distributions;
    WorkloadsView* m_workloads;
    CoverageView* m_coverage;
    SuspiciousView* m_suspicious;
    RerunService* m_rerun;
    QList<FigureView*> m_views;

    QLabel* m_statusText;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QTimer* m_progressTimer;
    QPlainTextEdit* m_log;
    QMenu* m_recentMenu = nullptr;
    QActionGroup* m_presetGroup = nullptr;
};

} // namespace kwb::ui
