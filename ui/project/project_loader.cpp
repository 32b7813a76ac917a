#include "project/project_loader.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <QDateTime>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <map>

#include "project/input_classifier.h"
#include "records/problem_names.h"
#include "records/record_loader.h"
#include "traces/rule_table.h"
#include "views/rerun_service.h"

#include "workbench/workload_analysis.h"

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

// Size and modification time of every record file (folders: of the files below them).
std::vector<qint64> recordStamps(const std::vector<std::string>& paths)
{
    std::vector<qint64> stamps;
    for (const auto& p : paths) {
        const QString root = QFile::decodeName(QByteArray::fromStdString(p));
        QStringList files{root};
        if (QFileInfo(root).isDir()) {
            files.clear();
            QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) files << it.next();
            files.sort();
        }
        for (const auto& f : files) {
            const QFileInfo info(f);
            stamps.push_back(info.size());
            stamps.push_back(info.lastModified().toMSecsSinceEpoch());
        }
    }
    return stamps;
}

// Leaderboard records carry only (level, id): names from the KernelBench
// checkout (Re-run → KernelBench Checkout, or KWB_KERNELBENCH_DIR) let them
// reach the projection's problem -> family mapping.
void nameKernelBenchProblems(RecordSet& set, QStringList& messages)
{
    std::size_t unnamed = 0;
    for (const auto& r : set.records)
        if (r.problem.name.empty() && r.problem.level && r.problem.id) ++unnamed;
    if (unnamed == 0) return;
    const QString dir = RerunService::kernelBenchDir();
    if (dir.isEmpty()) {
        messages << QStringLiteral("%1 KernelBench records have no problem name, so the projection cannot map them "
                                   "to kernel families; set Re-run → KernelBench Checkout (or KWB_KERNELBENCH_DIR) "
                                   "to name them from KernelBench's problem files")
                        .arg(unnamed);
        return;
    }
    auto names = ProblemNames::scan(QFile::encodeName(dir).toStdString());
    if (!names) {
        messages << qs(names.status().toString());
        return;
    }
    names->applyTo(set.records);
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
    s.errorFlagged = static_cast<qint64>(p.samples.errorFlagged);
    s.familySavingSum = p.familySavingSum;
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

// What identifies a trace's breakdown for reuse: the file as it is on disk and the rule table.
KnownTrace traceKey(const std::string& path, const std::string& rules)
{
    KnownTrace k;
    k.path = path;
    k.rules = rules;
    const QFileInfo info(QFile::decodeName(QByteArray::fromStdString(path)));
    k.size = info.size();
    k.modifiedMs = info.lastModified().toMSecsSinceEpoch();
    return k;
}

void loadTraces(const Project& project, const std::vector<std::string>& roots, const TaskContext& ctx,
    const ProjectData* previous, ProjectData& data)
{
    WorkloadAnalysisRequest request;
    // Manifests, READMEs and golden outputs live beside traces.
    for (const auto& f : filesUnder(roots,
             {QStringLiteral("*.json"), QStringLiteral("*.json.gz"), QStringLiteral("*.sqlite")}))
        if (looksLikeTrace(f)) request.traces.push_back(QFile::encodeName(f).toStdString());
    if (request.traces.empty()) return;
    request.rulesPath = QFile::encodeName(project.resolvedRules()).toStdString();
    if (!data.records->records.empty()) request.records = std::span<const EvalRecord>(data.records->records);
    std::map<std::string, const KnownTrace*> known;
    if (previous)
        for (const auto& k : previous->knownTraces) known[k.path] = &k;
    request.known = [&known, &request](const std::string& path) -> std::shared_ptr<const WorkloadBreakdown> {
        const auto it = known.find(path);
        if (it == known.end()) return nullptr;
        const KnownTrace now = traceKey(path, request.rulesPath);
        const KnownTrace& then = *it->second;
        const bool same = now.rules == then.rules && now.size == then.size && now.modifiedMs == then.modifiedMs;
        return same ? then.breakdown : nullptr;
    };
    auto analysis = analyseWorkloads(request, ctx);
    if (!analysis) {
        data.messages << qs(analysis.status().toString());
        return;
    }
    for (const auto& w : analysis->workloads) {
        if (!w.ok()) {
            if (!ctx.cancelled()) data.messages << qs(w.status.toString());
            continue;
        }
        KnownTrace k = w.reused ? *known.at(w.path) : traceKey(w.path, request.rulesPath);
        if (!w.reused) {
            k.breakdown = w.breakdown;
            for (const auto& issue : w.issues) k.messages << qs(issue.toString());
        }
        data.messages << k.messages;
        WorkloadSummary summary = toSummary(*w.breakdown);
        if (w.projection) summary.projection = toSummary(*w.projection);
        data.workloads.push_back(std::move(summary));
        data.knownTraces.push_back(std::move(k));
    }
}

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
    return true;
}

std::vector<ProjectionSummary> projectRecordSubset(const ProjectData& data, const std::vector<int>* subset)
{
    std::vector<ProjectionSummary> out;
    const std::string rulesPath = QFile::encodeName(data.project.resolvedRules()).toStdString();
    auto rules = rulesPath.empty() ? RuleTable::loadDefault() : RuleTable::load(rulesPath);
    if (!rules) return out;
    std::vector<EvalRecord> chosen;
    if (subset) {
        chosen.reserve(subset->size());
        for (int i : *subset) chosen.push_back(data.records->records[static_cast<std::size_t>(i)]);
    }
    const std::span<const EvalRecord> records = subset ? std::span<const EvalRecord>(chosen)
                                                       : std::span<const EvalRecord>(data.records->records);
    for (const auto& k : data.knownTraces) {
        if (!k.breakdown) {
            out.emplace_back();
            continue;
        }
        out.push_back(records.empty() ? ProjectionSummary{} : toSummary(projectWorkload(*k.breakdown, records, *rules)));
    }
    return out;
}

ProjectDataPtr loadProjectData(const Project& project, const TaskContext& ctx, ProjectDataPtr previous)
{
    auto data = std::make_shared<ProjectData>();
    data->project = project;
    data->tracesSupported = buildHasTraces();

    const auto recordPaths = existing(project, project.records, "records", data->messages);
    if (!recordPaths.empty() && previous && previous->recordPaths == recordPaths &&
        previous->recordStamps == recordStamps(recordPaths)) {
        // The same record files, unchanged: adding a trace or a problem folder need not re-read them.
        data->records = previous->records;
        data->recordPaths = previous->recordPaths;
        data->recordStamps = previous->recordStamps;
        data->messages << previous->recordMessages;
        data->recordMessages = previous->recordMessages;
        data->rows = previous->rows;
        data->facets = previous->facets;
        data->suspicious = previous->suspicious;
        data->suspiciousReasons = previous->suspiciousReasons;
        data->gridRecords = previous->gridRecords;
    } else if (!recordPaths.empty()) {
        const qsizetype firstMessage = data->messages.size();
        RecordSet set = loadRecordFiles(recordPaths, {}, ctx);
        for (const auto& f : set.files) {
            if (!f.ok()) data->messages << qs(f.fatal.toString());
            for (const auto& issue : f.issues) data->messages << qs(issue.toString());
        }
        // A baseline table alone is 0 records: core says which file and how to pass both.
        for (const auto& hint : recordLoadHints(set)) data->messages << qs(hint);
        if (ctx.cancelled()) {
            data->cancelled = true;
            return data;
        }
        nameKernelBenchProblems(set, data->messages);
        ctx.report("Indexing records", 0, static_cast<std::int64_t>(set.records.size()));
        data->records = std::make_shared<RecordSet>(std::move(set));
        indexRecords(*data);
        data->recordPaths = recordPaths;
        data->recordStamps = recordStamps(recordPaths);
        data->recordMessages = data->messages.mid(firstMessage);
    }

    const auto tracePaths = existing(project, project.traces, "traces", data->messages);
    loadTraces(project, tracePaths, ctx, previous.get(), *data);
    if (ctx.cancelled()) {
        data->cancelled = true;
        return data;
    }

    const auto problemPaths = existing(project, project.problems, "problem suite", data->messages);
    for (const auto& f : filesUnder(problemPaths, {QStringLiteral("*.json")})) {
        const kwb::InputKind kind = sniffInput(f);
        if (kind == kwb::InputKind::ProblemSpec) data->problemSpecs << f;
        else if (kind == kwb::InputKind::CandidateSpec) data->candidateSpecs << f;
    }
    return data;
}

} // namespace kwb::ui
