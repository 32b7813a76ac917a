#include "views/rerun_service.h"

#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#include "rerun/kernelbench_sample.h"
#include "workbench/executor_set.h"
#include "workbench/rerun_job.h"
#include "workbench/spec_index.h"

namespace kwb::ui {

// Shared with the pool threads. The executors and the spec index are used by
// one worker at a time (execMutex); progress has its own lock so that the
// GUI's poll never waits for a running re-run.
struct RerunService::Shared {
    std::mutex execMutex;
    workbench::ExecutorSet executors;

    std::mutex progressMutex;
    Progress latest;
    bool fresh = false;
};

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// Every spec file the project found, parsed once per project.
std::shared_ptr<const workbench::SpecIndex> buildIndex(const ProjectData& data)
{
    auto index = std::make_shared<workbench::SpecIndex>();
    for (const auto& p : data.problemSpecs) index->addProblemFile(p.toStdString());
    for (const auto& c : data.candidateSpecs) index->addCandidateFile(c.toStdString());
    return index;
}

RerunOutcome toOutcome(int record, workbench::RunSummary summary)
{
    RerunOutcome o;
    o.record = record;
    o.completed = summary.completed;
    o.status = qs(summary.status);
    o.message = qs(summary.message);
    if (summary.speedup) o.speedup = *summary.speedup;
    if (summary.candidateMs) o.candidateMs = *summary.candidateMs;
    if (summary.referenceMs) o.referenceMs = *summary.referenceMs;
    for (const auto& f : summary.flags) o.flags << qs(f.code) + QLatin1String(": ") + qs(f.reason);
    if (summary.coverage) o.coverage = summary.coverage->coverage;
    o.device = qs(summary.device);
    o.summary = std::move(summary);
    return o;
}

constexpr char kKernelBenchDirKey[] = "rerun/kernelbench_dir";

} // namespace

bool RerunService::buildHasRerun()
{
    return true;
}

QString RerunService::kernelBenchDir()
{
    const QString dir = QSettings().value(QLatin1String(kKernelBenchDirKey)).toString();
    return dir.isEmpty() ? qEnvironmentVariable("KWB_KERNELBENCH_DIR") : dir;
}

void RerunService::setKernelBenchDir(const QString& dir)
{
    QSettings().setValue(QLatin1String(kKernelBenchDirKey), dir);
}

RerunService::RerunService(QObject* parent)
    : QObject(parent), m_shared(std::make_shared<Shared>()), m_cancel(std::make_shared<CancelFlag>())
{
    qRegisterMetaType<kwb::ui::RerunOutcome>();
    m_poll.setInterval(100); // progress reaches the GUI at most ~10 times a second
    connect(&m_poll, &QTimer::timeout, this, &RerunService::pollProgress);
    m_reason = tr("Checking for kwb-runner and a GPU…");
}

RerunService::~RerunService()
{
    m_cancel->cancel();
}

void RerunService::probe()
{
    struct Probe {
        workbench::Availability runner;
        workbench::Availability bridge;
    };
    auto shared = m_shared;
    QtConcurrent::run([shared]() -> Probe {
        std::lock_guard lock(shared->execMutex);
        return Probe{shared->executors.probe(workbench::ExecutorKind::Runner),
            shared->executors.probe(workbench::ExecutorKind::Bridge)};
    }).then(this, [this](Probe p) {
        m_available = p.runner.available;
        m_reason = qs(p.runner.reason);
        m_bridgeAvailable = p.bridge.available;
        m_bridgeReason = qs(p.bridge.reason);
        m_probed = true;
        Q_EMIT availabilityChanged(m_available, m_reason);
    });
}

bool RerunService::canRerun(const ProjectData* project, int recordIndex, QString* reason) const
{
    const bool valid = project && project->records && recordIndex >= 0
        && static_cast<std::size_t>(recordIndex) < project->records->records.size();
    if (valid && isKernelBenchSample(project->records->records[static_cast<std::size_t>(recordIndex)])) {
        if (reason) *reason = m_bridgeAvailable ? m_bridgeReason : tr("KernelBench sample: %1").arg(m_bridgeReason);
        return m_bridgeAvailable;
    }
    if (reason) *reason = m_reason;
    return valid && m_available;
}

void RerunService::setProject(ProjectDataPtr project)
{
    if (!project || project.get() == m_indexProject) return;
    m_indexing = project;
    m_indexJob.start([project](const TaskContext&) { return buildIndex(*project); },
        [this, project](std::shared_ptr<const workbench::SpecIndex> index) {
            m_index = std::move(index);
            m_indexProject = project.get();
            m_indexing.reset();
        });
}

bool RerunService::start(ProjectDataPtr project, int recordIndex, QString* reason)
{
    if (m_running) {
        *reason = tr("A re-run is already running.");
        return false;
    }
    if (!project || !project->records || recordIndex < 0
        || static_cast<std::size_t>(recordIndex) >= project->records->records.size()) {
        *reason = tr("No record selected.");
        return false;
    }
    if (!canRerun(project.get(), recordIndex, reason)) return false;
    if (m_indexProject != project.get()) { // setProject's index is not there (yet)
        m_indexJob.supersede();
        m_index = buildIndex(*project);
        m_indexProject = project.get();
        m_indexing.reset();
    }
    const EvalRecord& record = project->records->records[static_cast<std::size_t>(recordIndex)];
    workbench::JobContext context;
    context.kernelbenchDir = kernelBenchDir().toStdString();
    context.requestPrefix = "gui-";
    context.recordFile = workbench::recordFileOf(*project->records, static_cast<std::size_t>(recordIndex));
    auto resolved = workbench::resolveRerunJob(record, *m_index, context, RerunOptions{}); // the CLI's defaults
    if (!resolved) {
        *reason = qs(resolved.status().message());
        return false;
    }
    m_cancel = std::make_shared<CancelFlag>();
    m_running = true;
    m_poll.start();
    auto shared = m_shared;
    auto cancel = m_cancel;
    const FlagThresholds thresholds = m_thresholds;
    QtConcurrent::run([shared, cancel, job = std::move(*resolved), recordIndex, thresholds]() -> RerunOutcome {
        TaskContext ctx;
        ctx.cancel = cancel.get();
        ctx.progress = [shared](const Progress& p) {
            std::lock_guard lock(shared->progressMutex);
            shared->latest = p;
            shared->fresh = true;
        };
        std::lock_guard lock(shared->execMutex);
        auto outcome = workbench::runJob(shared->executors, job, thresholds, ctx);
        return toOutcome(recordIndex, workbench::summarizeOutcome(outcome, job.recordId));
    }).then(this, [this](RerunOutcome outcome) {
        m_running = false;
        m_poll.stop();
        Q_EMIT finished(outcome);
    });
    return true;
}

void RerunService::cancel()
{
    m_cancel->cancel();
}

void RerunService::pollProgress()
{
    Progress p;
    {
        std::lock_guard lock(m_shared->progressMutex);
        if (!m_shared->fresh) return;
        p = m_shared->latest;
        m_shared->fresh = false;
    }
    Q_EMIT progress(qs(p.stage), p.done, p.total);
}

} // namespace kwb::ui
