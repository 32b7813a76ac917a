#include "views/rerun_service.h"

#include <QFileInfo>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#ifdef KWB_HAVE_RERUN
#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "rerun/flags.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/process_client.h"
#endif

namespace kwb::ui {

struct RerunService::Shared {
    std::mutex mutex;
    Progress latest;
    bool fresh = false;
#ifdef KWB_HAVE_RERUN
    std::unique_ptr<ProcessClient> client; // used by one worker at a time
    std::unique_ptr<ProcessClient> bridge; // the PyTorch bridge, for KernelBench samples
#endif
};

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

#ifdef KWB_HAVE_RERUN
struct Specs {
    ProblemSpec problem;
    CandidateSpec candidate;
};

// The record's candidate: its source path when that is a candidate spec, else
// a candidate spec in the project whose id is the record id or whose source
// file is the record's source file. Its problem: the project's spec with the
// candidate's problem id.
Result<Specs> resolveSpecs(const ProjectData& data, const EvalRecord& r)
{
    std::optional<CandidateSpec> candidate;
    if (!r.source.path.empty() && QFileInfo(qs(r.source.path)).suffix() == QLatin1String("json")) {
        if (auto c = loadCandidateSpec(r.source.path)) candidate = std::move(c).value();
    }
    const QString sourceName = QFileInfo(qs(r.source.path)).fileName();
    for (const auto& path : data.candidateSpecs) {
        if (candidate) break;
        auto c = loadCandidateSpec(path.toStdString());
        if (!c) continue;
        if (c->id == r.id || (!sourceName.isEmpty() && QFileInfo(qs(c->sourceFile)).fileName() == sourceName))
            candidate = std::move(c).value();
    }
    if (!candidate)
        return Status(ErrorCode::NotFound,
            "no candidate spec for record '" + r.id + "': its source is not a candidate spec and none of the " +
                std::to_string(data.candidateSpecs.size()) + " candidate specs in the project names it");
    for (const auto& path : data.problemSpecs) {
        auto p = loadProblemSpec(path.toStdString());
        if (p && p->id == candidate->problem) return Specs{std::move(p).value(), std::move(*candidate)};
    }
    return Status(ErrorCode::NotFound, "candidate '" + candidate->id + "' solves problem '" + candidate->problem +
                                           "', which is not among the project's problem specs");
}

RerunOutcome toOutcome(int record, const RerunResult& result)
{
    RerunOutcome o;
    o.record = record;
    o.completed = true;
    o.status = QString::fromLatin1(rerunStatusName(result.status));
    o.message = qs(result.message);
    if (result.speedup) o.speedup = *result.speedup;
    if (result.candidateTiming) o.candidateMs = result.candidateTiming->medianMs;
    if (result.referenceTiming) o.referenceMs = result.referenceTiming->medianMs;
    for (const auto& f : deriveFlags(result)) o.flags << qs(f.code) + QLatin1String(": ") + qs(f.reason);
    if (!result.coverage.empty()) o.coverage = result.coverage.front().coverage;
    o.device = qs(result.device.name);
    return o;
}
#endif

} // namespace

bool RerunService::buildHasRerun()
{
#ifdef KWB_HAVE_RERUN
    return true;
#else
    return false;
#endif
}

namespace {
constexpr char kKernelBenchDirKey[] = "rerun/kernelbench_dir";
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
    m_reason = buildHasRerun() ? tr("Checking for kwb-runner and a GPU…")
                               : tr("Live re-run is not part of this build (it was built without core/rerun).");
}

RerunService::~RerunService()
{
    m_cancel->cancel();
}

void RerunService::probe()
{
#ifdef KWB_HAVE_RERUN
    struct Probe {
        bool runner = false;
        QString runnerReason;
        bool bridge = false;
        QString bridgeReason;
    };
    auto shared = m_shared;
    // One answer for both back ends: kwb-runner for specs, the PyTorch bridge for KernelBench samples.
    QtConcurrent::run([shared]() -> Probe {
        Probe p;
        std::lock_guard lock(shared->mutex);
        if (auto runner = findRunner(); !runner) {
            p.runnerReason = qs(runner.status().message());
        } else {
            if (!shared->client) {
                ProcessClientOptions options;
                options.runnerPath = *runner;
                options.startupTimeoutS = 20;
                shared->client = std::make_unique<ProcessClient>(options);
            }
            auto caps = shared->client->capabilities();
            if (!caps) p.runnerReason = tr("kwb-runner did not start: ") + qs(caps.status().toString());
            else if (!caps->devicePresent)
                p.runnerReason = tr("No GPU: ") + (caps->reason.empty() ? tr("kwb-runner found no CUDA device") : qs(caps->reason));
            else {
                p.runner = true;
                p.runnerReason = tr("Re-runs on %1 through %2").arg(qs(caps->device.name), qs(*runner));
            }
        }
        if (auto command = findTorchBridge(); !command) {
            p.bridgeReason = qs(command.status().message());
        } else {
            if (!shared->bridge) shared->bridge = std::make_unique<ProcessClient>(torchBridgeClientOptions(*command));
            auto caps = shared->bridge->capabilities();
            if (!caps) p.bridgeReason = tr("the PyTorch bridge did not start: ") + qs(caps.status().toString());
            else if (!caps->devicePresent)
                p.bridgeReason = caps->reason.empty() ? tr("the PyTorch bridge found no CUDA device") : qs(caps->reason);
            else {
                p.bridge = true;
                p.bridgeReason = tr("KernelBench samples re-run on %1 through the PyTorch bridge").arg(qs(caps->device.name));
            }
        }
        return p;
    }).then(this, [this](Probe p) {
        m_available = p.runner;
        m_reason = p.runnerReason;
        m_bridgeAvailable = p.bridge;
        m_bridgeReason = p.bridgeReason;
        m_probed = true;
        Q_EMIT availabilityChanged(m_available, m_reason);
    });
#else
    m_probed = true;
    Q_EMIT availabilityChanged(false, m_reason);
#endif
}

bool RerunService::canRerun(const ProjectData* project, int recordIndex, QString* reason) const
{
    const bool valid = project && project->records && recordIndex >= 0
        && static_cast<std::size_t>(recordIndex) < project->records->records.size();
#ifdef KWB_HAVE_RERUN
    if (valid && isKernelBenchSample(project->records->records[static_cast<std::size_t>(recordIndex)])) {
        if (reason) *reason = m_bridgeAvailable ? m_bridgeReason : tr("KernelBench sample: %1").arg(m_bridgeReason);
        return m_bridgeAvailable;
    }
#endif
    if (reason) *reason = m_reason;
    return valid && m_available;
}

bool RerunService::start(ProjectDataPtr project, int recordIndex, QString* reason)
{
    if (m_running) {
        *reason = tr("A re-run is already running.");
        return false;
    }
    if (!project || recordIndex < 0 || static_cast<std::size_t>(recordIndex) >= project->records->records.size()) {
        *reason = tr("No record selected.");
        return false;
    }
    if (!canRerun(project.get(), recordIndex, reason)) return false;
#ifdef KWB_HAVE_RERUN
    const EvalRecord& record = project->records->records[static_cast<std::size_t>(recordIndex)];
    RerunRequest request;
    const bool sample = isKernelBenchSample(record);
    if (sample) {
        KernelBenchSampleOptions options;
        options.kernelbenchDir = kernelBenchDir().toStdString();
        auto req = kernelBenchRequestFromRecord(record, options);
        if (!req) {
            *reason = qs(req.status().message());
            return false;
        }
        request = std::move(req).value();
    } else {
        auto specs = resolveSpecs(*project, record);
        if (!specs) {
            *reason = qs(specs.status().message());
            return false;
        }
        request.problem = std::move(specs->problem);
        request.candidate = std::move(specs->candidate);
    }
    request.id = "gui-" + record.id;
    m_cancel = std::make_shared<CancelFlag>();
    m_running = true;
    m_poll.start();
    auto shared = m_shared;
    auto cancel = m_cancel;
    QtConcurrent::run([shared, cancel, request, recordIndex, sample]() -> RerunOutcome {
        TaskContext ctx;
        ctx.cancel = cancel.get();
        ctx.progress = [shared](const Progress& p) {
            std::lock_guard lock(shared->mutex);
            shared->latest = p;
            shared->fresh = true;
        };
        ProcessClient* client = nullptr;
        {
            std::lock_guard lock(shared->mutex);
            client = sample ? shared->bridge.get() : shared->client.get();
        }
        RerunOutcome o;
        o.record = recordIndex;
        if (!client) {
            o.message = sample ? tr("the PyTorch bridge is not running") : tr("kwb-runner is not running");
            return o;
        }
        auto result = client->execute(request, ctx);
        if (!result) {
            o.message = qs(result.status().toString());
            return o;
        }
        return toOutcome(recordIndex, *result);
    }).then(this, [this](RerunOutcome outcome) {
        m_running = false;
        m_poll.stop();
        Q_EMIT finished(outcome);
    });
    return true;
#else
    *reason = m_reason;
    return false;
#endif
}

void RerunService::cancel()
{
    m_cancel->cancel();
}

void RerunService::pollProgress()
{
    Progress p;
    {
        std::lock_guard lock(m_shared->mutex);
        if (!m_shared->fresh) return;
        p = m_shared->latest;
        m_shared->fresh = false;
    }
    Q_EMIT progress(qs(p.stage), p.done, p.total);
}

} // namespace kwb::ui
