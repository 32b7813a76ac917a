#pragma once
// Live re-runs from the GUI: a thin Qt adapter over core/workbench. The
// record is resolved to a job by the same rules as `kwb rerun`/`kwb verify`
// (workbench/rerun_job.h, over a spec index of the project built once, off
// the GUI thread), run on the executor its kind needs (workbench/
// executor_set.h: kwb-runner or the PyTorch bridge, each with one
// availability answer) on a pool thread, and summarised once
// (workbench/run_summary.h: the least-covered output, flags under this
// service's thresholds). Progress is throttled to ~10 updates a second; the
// result arrives on the GUI thread. One re-run at a time; cancellable.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "base/progress.h"
#include "jobs/job_tracker.h"
#include "project/project_data.h"
#include "rerun/flags.h"
#include "workbench/run_summary.h"
#include "workbench/spec_index.h"

namespace kwb::ui {

struct RerunOutcome {
    int record = -1;
    bool completed = false; // false: the request could not be served (message says why)
    QString status;         // "ok", "fault", "timeout", ... (core/rerun/protocol.h)
    QString message;
    double speedup = kNaN;
    double candidateMs = kNaN;
    double referenceMs = kNaN;
    QStringList flags;      // "code: reason"
    std::optional<Coverage> coverage; // of the least-covered output
    QString device;
    workbench::RunSummary summary;    // what the CLI prints for the same re-run
};

class RerunService : public QObject {
    Q_OBJECT
public:
    explicit RerunService(QObject* parent = nullptr);
    ~RerunService() override;

    // Checks, off the GUI thread, whether re-runs can run here; answers with availabilityChanged.
    void probe();
    bool isAvailable() const { return m_available; }
    QString unavailableReason() const { return m_reason; }
    bool isRunning() const { return m_running; }
    // The first probe() has answered (availabilityChanged was emitted).
    bool hasProbed() const { return m_probed; }

    // Whether this record can be re-run here, and if not why: KernelBench samples
    // (a ModelNew module, e.g. leaderboard records) go through the PyTorch bridge,
    // everything else through kwb-runner; each has its own availability.
    bool canRerun(const ProjectData* project, int recordIndex, QString* reason) const;

    // The project re-runs resolve records in: its spec files are indexed once,
    // on a pool thread (start() indexes synchronously if that has not finished).
    void setProject(ProjectDataPtr project);

    // Starts a re-run; false (and *reason) when the record has no specs or one is running.
    bool start(ProjectDataPtr project, int recordIndex, QString* reason);

    // The KernelBench checkout that KernelBench samples take their problem files
    // from (a setting; KWB_KERNELBENCH_DIR when unset). Empty: the record's own.
    static QString kernelBenchDir();
    static void setKernelBenchDir(const QString& dir);
    void cancel();

    // Whether this build contains the re-run client at all (always, now that
    // the client is part of core; kept for callers that ask).
    static bool buildHasRerun();

    // Flag thresholds re-runs are judged under (default: FlagThresholds{}).
    void setThresholds(const FlagThresholds& thresholds) { m_thresholds = thresholds; }
    const FlagThresholds& thresholds() const { return m_thresholds; }

Q_SIGNALS:
    void availabilityChanged(bool available, const QString& reason);
    void progress(const QString& stage, qint64 done, qint64 total);
    void finished(const kwb::ui::RerunOutcome& outcome);

private:
    void pollProgress();

    struct Shared; // the executor and the latest progress, shared with the worker
    std::shared_ptr<Shared> m_shared;
    std::shared_ptr<CancelFlag> m_cancel;
    QTimer m_poll;
    bool m_available = false;
    bool m_running = false;
    bool m_probed = false;
    QString m_reason;
    bool m_bridgeAvailable = false;
    QString m_bridgeReason;
    FlagThresholds m_thresholds;
    // The spec index of m_indexProject (GUI thread only; the index itself is immutable).
    std::shared_ptr<const workbench::SpecIndex> m_index;
    const ProjectData* m_indexProject = nullptr;
    JobTracker m_indexJob; // builds the index of the latest project set
    ProjectDataPtr m_indexing; // kept alive while its index is built
};

} // namespace kwb::ui

Q_DECLARE_METATYPE(kwb::ui::RerunOutcome)
