#include "project/project_loader.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include "project/input_classifier.h"
#include "records/record_loader.h"

#ifdef KWB_HAVE_TRACES
#include "analysis/breakdown.h"
#include "analysis/projection_report.h"
#include "traces/rule_table.h"
#include "traces/trace_loader.h"
#endif

namespace kwb::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// Existing entries; a missing one becomes a message, not a failure.
std::vector<std::string> existing(const Project& project, const QStringList& entries, const char* what,
    QStringList& messages)
{
    std::vector<std::string> out;
    const QStringList abs = project.resolved(entries);
    for (qsizetype i = 0; i < abs.size(); ++i) {
        if (!QFileInfo::exists(abs[i])) {
            messages << abs[i] + QLatin1String(": ") + QLatin1String(what) +
                            QLatin1String(" not found (skipped)");
            continue;
        }
        out.push_back(abs[i].toStdString());
    }
    return out;
}

QStringList filesUnder(const std::vector<std::string>& roots, const QStringList& patterns)
{
    QStringList files;
    for (const auto& root : roots) {
        const QString r = qs(root);
        if (QFileInfo(r).isFile()) {
            files << r;
            continue;
        }
        QDirIterator it(r, patterns, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) files << it.next();
    }
    files.sort();
    return files;
}

#ifdef KWB_HAVE_TRACES
WorkloadSummary toSummary(const WorkloadBreakdown& b)
{
    WorkloadSummary w;
    w.name = qs(b.name);
    w.source = qs(b.source);
    w.device = qs(b.device);
    w.rulesVersion = qs(b.rulesVersion);
    w.gpuKernelUs = b.gpuKernelUs;
    w.busyUs = b.busyUs;
    w.spanUs = b.spanUs;
    w.addressableUs = b.addressableUs;
    w.addressableFraction = b.addressableFraction;
    w.addressableSpanFraction = b.addressableSpanFraction;
    w.kernelCount = b.kernelCount;
    for (const auto& c : b.categories)
        w.categories.push_back({qs(c.category), c.addressable, c.us, c.share, c.count});
    for (const auto& k : b.topKernels)
        w.topKernels.push_back({qs(k.name), qs(k.family), qs(k.category), k.addressable, k.us, k.count, k.meanUs,
            k.share});
    return w;
}

ProjectionSummary toSummary(const WorkloadProjection& p)
{
    ProjectionSummary s;
    s.available = true;
    s.matching = qs(p.matching);
    s.basis = p.basis == SpeedupBasis::Wins ? QStringLiteral("winning samples") : QStringLiteral("correct samples");
    s.f = p.projection.addressableFraction;
    s.w = p.projection.winRate;
    s.s = p.projection.medianSpeedup;
    s.records = static_cast<qint64>(p.samples.records);
    s.correctTimed = static_cast<qint64>(p.samples.correctTimed);
    s.wins = static_cast<qint64>(p.samples.wins);
    s.problems = static_cast<qint64>(p.samples.problems);
    s.expectedSaving = p.projection.expectedSaving;
    s.amdahlSaving = p.projection.amdahlSaving;
    s.amdahlSpeedup = p.projection.amdahlSpeedup;
    for (const auto& f : p.families)
        s.families.push_back({qs(f.family), f.fraction, f.samples.winRate.value_or(0),
            f.samples.medianSpeedupWins.value_or(1), f.expectedSaving});
    return s;
}

void loadTraces(const Project& project, const std::vector<std::string>& roots, const TaskContext& ctx,
    ProjectData& data)
{
    const QStringList files = filesUnder(roots,
        {QStringLiteral("*.json"), QStringLiteral("*.json.gz"), QStringLiteral("*.sqlite")});
    if (files.isEmpty()) return;
    const QString rulesPath = project.resolvedRules();
    auto rules = rulesPath.isEmpty() ? RuleTable::loadDefault() : RuleTable::load(rulesPath.toStdString());
    if (!rules) {
        data.messages << qs(rules.status().toString());
        return;
    }
    std::int64_t done = 0;
    for (const auto& f : files) {
        if (ctx.cancelled()) return;
        const std::string path = f.toStdString();
        // Manifests, READMEs and golden outputs live beside traces.
        if (!looksLikeTrace(f) || sniffTraceFile(path) == TraceFileKind::Unknown) continue;
        ctx.report("Reading traces", done++, files.size());
        auto trace = loadTrace(path, TaskContext{nullptr, ctx.cancel});
        if (!trace) {
            data.messages << qs(trace.status().toString());
            continue;
        }
        for (const auto& issue : (*trace)->report().issues) data.messages << qs(issue.toString());
        const WorkloadBreakdown b = breakdown(**trace, *rules);
        WorkloadSummary w = toSummary(b);
        if (!data.records->records.empty())
            w.projection = toSummary(projectWorkload(b, data.records->records, *rules));
        data.workloads.push_back(std::move(w));
    }
}
#endif

} // namespace

void lowerCurrentThreadPriority()
{
#ifdef __linux__
    // Per-thread on Linux (the tid names one thread); failure only means normal priority.
    static thread_local bool lowered = false;
    if (!lowered) {
        lowered = true;
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
    }
#endif
}

bool buildHasTraces()
{
#ifdef KWB_HAVE_TRACES
    return true;
#else
    return false;
#endif
}

ProjectDataPtr loadProjectData(const Project& project, const TaskContext& ctx)
{
    auto data = std::make_shared<ProjectData>();
    data->project = project;
    data->tracesSupported = buildHasTraces();

    const auto recordPaths = existing(project, project.records, "records", data->messages);
    if (!recordPaths.empty()) {
        RecordSet set = loadRecordFiles(recordPaths, {}, ctx);
        for (const auto& f : set.files) {
            if (!f.ok()) data->messages << qs(f.fatal.toString());
            for (const auto& issue : f.issues) data->messages << qs(issue.toString());
        }
        if (ctx.cancelled()) {
            data->cancelled = true;
            return data;
        }
        ctx.report("Indexing records", 0, static_cast<std::int64_t>(set.records.size()));
        data->records = std::make_shared<RecordSet>(std::move(set));
        indexRecords(*data);
    }

    const auto tracePaths = existing(project, project.traces, "traces", data->messages);
#ifdef KWB_HAVE_TRACES
    loadTraces(project, tracePaths, ctx, *data);
#else
    if (!tracePaths.empty())
        data->messages << QLatin1String("profiler traces are listed but this build cannot read them");
#endif
    if (ctx.cancelled()) {
        data->cancelled = true;
        return data;
    }

    const auto problemPaths = existing(project, project.problems, "problem suite", data->messages);
    for (const auto& f : filesUnder(problemPaths, {QStringLiteral("*.json")})) {
        QFile file(f);
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QByteArray head = file.read(4096);
        if (head.contains("kwb.problem/1")) data->problemSpecs << f;
        else if (head.contains("kwb.candidate/1")) data->candidateSpecs << f;
    }
    return data;
}

} // namespace kwb::ui
