#include "project/project_data.h"

#include <QSet>

#include <algorithm>

#include "analysis/statistics.h"
#include "models/suspicious_model.h"
#include "rerun/flags.h"

namespace kwb::ui {

double unverifiedClaimThreshold()
{
    return FlagThresholds{}.excessiveSpeedup;
}

int severityRank(const std::string& severity)
{
    if (severity == "error") return 3;
    if (severity == "warning") return 2;
    if (severity == "info") return 1;
    return severity.empty() ? 2 : 1; // an unlabelled flag is treated as a warning
}

std::vector<RecordRow> buildRecordRows(const RecordSet& set)
{
    std::vector<RecordRow> rows;
    rows.reserve(set.records.size());
    for (const auto& r : set.records) {
        RecordRow row;
        row.id = QString::fromStdString(r.id);
        row.model = QString::fromStdString(r.model);
        row.problem = QString::fromStdString(r.problem.label());
        row.status = QString::fromLatin1(outcomeName(r.outcome));
        row.run = QString::fromStdString(r.run);
        row.level = r.problem.level.value_or(-1);
        if (auto s = effectiveSpeedup(r)) row.speedup = *s;
        if (auto c = r.candidate.centralMs()) row.candidateMs = *c;
        // The baseline the speedup is over (leaderboard rows list torch.compile first, but
        // their speedup is over eager): the column must divide to the speedup beside it.
        const Baseline* base = r.speedupBaseline.empty() ? nullptr : r.findBaseline(r.speedupBaseline);
        if (!base && !r.baselines.empty()) base = &r.baselines.front();
        if (base) {
            row.baselineName = QString::fromStdString(base->name);
            if (auto b = base->stats.centralMs()) row.baselineMs = *b;
        }
        QStringList codes;
        for (const auto& f : r.verification.flags) {
            codes << QString::fromStdString(f.code);
            row.severity = std::max(row.severity, severityRank(f.severity));
        }
        row.flagCount = static_cast<int>(r.verification.flags.size());
        row.unverifiedClaim = row.flagCount == 0 && r.isCorrect() && row.speedup > unverifiedClaimThreshold();
        row.flags = codes.join(QLatin1String(", "));
        row.hasGrid = r.verification.coverage && r.verification.coverage->grid.rows > 0 &&
                      r.verification.coverage->grid.cols > 0;
        row.haystack = (row.id + QLatin1Char(' ') + row.model + QLatin1Char(' ') + row.problem + QLatin1Char(' ') +
                        row.status + QLatin1Char(' ') + row.flags + QLatin1Char(' ') + row.run + QLatin1Char(' ') +
                        QString::fromStdString(r.error))
                           .toLower();
        rows.push_back(std::move(row));
    }
    return rows;
}

RecordFacets computeFacets(const std::vector<RecordRow>& rows)
{
    QSet<QString> models, problems, statuses, flags;
    QSet<qint64> levels;
    for (const auto& r : rows) {
        models.insert(r.model);
        problems.insert(r.problem);
        statuses.insert(r.status);
        if (r.level >= 0) levels.insert(r.level);
        if (r.flagCount > 0)
            for (const auto& f : r.flags.split(QLatin1String(", "))) flags.insert(f);
    }
    RecordFacets f;
    f.models = QStringList(models.begin(), models.end());
    f.problems = QStringList(problems.begin(), problems.end());
    f.statuses = QStringList(statuses.begin(), statuses.end());
    f.flagCodes = QStringList(flags.begin(), flags.end());
    f.models.sort();
    f.problems.sort();
    f.statuses.sort();
    f.flagCodes.sort();
    QList<qint64> lv(levels.begin(), levels.end());
    std::sort(lv.begin(), lv.end());
    for (qint64 l : lv) f.levels << QString::number(l);
    return f;
}

std::size_t ProjectData::flaggedCount() const
{
    std::size_t n = 0;
    for (const auto& r : *rows) n += r.flagCount > 0 ? 1 : 0;
    return n;
}

std::size_t ProjectData::unverifiedClaimCount() const
{
    std::size_t n = 0;
    for (const auto& r : *rows) n += r.unverifiedClaim ? 1 : 0;
    return n;
}

void indexRecords(ProjectData& data)
{
    const RecordSet& set = *data.records;
    auto rows = std::make_shared<std::vector<RecordRow>>(buildRecordRows(set));
    data.facets = computeFacets(*rows);
    data.rows = std::move(rows);
    data.suspicious = SuspiciousModel::rank(data);
    data.suspiciousReasons.clear();
    data.suspiciousReasons.reserve(data.suspicious.size());
    for (int i : data.suspicious) {
        QStringList parts;
        const RecordRow& row = (*data.rows)[static_cast<std::size_t>(i)];
        if (row.unverifiedClaim)
            parts << QStringLiteral("unverified_claim: %1x claimed, above the %2x threshold, and nothing has verified "
                                    "it (no flags, not re-run here): check that the work is really done")
                         .arg(row.speedup, 0, 'f', 2)
                         .arg(unverifiedClaimThreshold());
        for (const auto& f : set.records[static_cast<std::size_t>(i)].verification.flags)
            parts << QString::fromStdString(f.code) + QLatin1String(": ") + QString::fromStdString(f.reason);
        data.suspiciousReasons.push_back(parts.join(QLatin1String("; ")));
    }
    std::vector<std::pair<double, int>> withGrid;
    for (std::size_t i = 0; i < data.rows->size(); ++i) {
        if (!(*data.rows)[i].hasGrid) continue;
        withGrid.emplace_back(set.records[i].verification.coverage->writtenFraction.value_or(1.0), static_cast<int>(i));
    }
    std::stable_sort(withGrid.begin(), withGrid.end());
    data.gridRecords.clear();
    for (const auto& [f, i] : withGrid) data.gridRecords.push_back(i);
}

ProjectDataPtr makeProjectData(RecordSet records, Project project)
{
    auto data = std::make_shared<ProjectData>();
    data->project = std::move(project);
    data->records = std::make_shared<RecordSet>(std::move(records));
    indexRecords(*data);
    return data;
}

} // namespace kwb::ui
