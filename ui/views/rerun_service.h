#pragma once
// Live re-runs from the GUI: resolves a record to its problem and candidate
// specs, sends the request to an isolated kwb-runner process (core/rerun
// ProcessClient) on a pool thread, throttles progress to ~10 updates a
// second and delivers the result on the GUI thread. One re-run at a time;
// cancellable. When the build has no re-run client, no kwb-runner is found or
// the runner reports no GPU, it is unavailable and says why.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "base/progress.h"
#include "project/project_data.h"

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
    std::optional<Coverage> coverage;
    QString device;
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

    // Starts a re-run; false (and *reason) when the record has no specs or one is running.
    bool start(ProjectDataPtr project, int recordIndex, QString* reason);

    // The KernelBench checkout that KernelBench samples take their problem files
    // from (a setting; KWB_KERNELBENCH_DIR when unset). Empty: the record's own.
    static QString kernelBenchDir();
    static void setKernelBenchDir(const QString& dir);
    void cancel();

    // Whether this build contains the re-run client at all.
    static bool buildHasRerun();

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
};

} // namespace kwb::ui

Q_DECLARE_METATYPE(kwb::ui::RerunOutcome)
