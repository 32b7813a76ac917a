#pragma once
// Everything a loaded project shows, converted to Qt types once per load on
// the loading thread and then shared read-only (std::shared_ptr<const>) by
// every view. Nothing here is modified after publication.
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "project/project.h"
#include "analysis/breakdown.h"
#include "records/record_set.h"

namespace kwb::ui {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One record as the tables show it. Built once per load.
struct RecordRow {
    QString id;
    QString model;
    QString problem; // "L1/23_Softmax"
    QString status;  // outcome name
    QString run;
    QString flags;   // flag codes, comma-separated
    QString haystack; // lower-case text the search box matches
    qint64 level = -1;
    double speedup = kNaN; // effective speedup (stored, else baseline/candidate)
    double candidateMs = kNaN;
    double baselineMs = kNaN; // of the baseline the speedup is over (baselineName)
    QString baselineName;
    int flagCount = 0;
    int severity = 0; // 0 none, 1 info, 2 warning, 3 error (worst flag)
    bool hasGrid = false;
    // Correct, unflagged and faster than the excessive-speedup threshold: a claim
    // no verification has looked at (the leaderboard's, eval_results'), reviewed
    // among the suspicious speedups.
    bool unverifiedClaim = false;
};

// The speedup above which an unverified claim is listed for review: the re-run
// flags' own excessive-speedup threshold (core/rerun/flags.h).
double unverifiedClaimThreshold();

std::vector<RecordRow> buildRecordRows(const RecordSet& set);

// Distinct values of the filterable columns, sorted, for the filter boxes.
struct RecordFacets {
    QStringList models;
    QStringList levels;
    QStringList problems;
    QStringList statuses;
    QStringList flagCodes;
};
RecordFacets computeFacets(const std::vector<RecordRow>& rows);
int severityRank(const std::string& severity);

struct CategoryShare {
    QString category;
    bool addressable = false;
    double us = 0;
    double share = 0; // of GPU kernel time
    qint64 count = 0;
};

struct KernelShare {
    QString name;
    QString family;
    QString category;
    bool addressable = false;
    double us = 0;
    qint64 count = 0;
    double meanUs = 0;
    double share = 0;
};

// The end-to-end projection of a workload (core/analysis/projection_report.h:
// f*w*(1-1/s) and the Amdahl bound) with its inputs.
struct FamilySaving {
    QString family;
    double fraction = 0;
    double winRate = 0;
    double speedup = 1;
    double saving = 0;
};

struct ProjectionSummary {
    bool available = false; // records were loaded with the trace
    QString matching;       // "problem_families" or "all records"
    QString basis;          // what s is the median of
    double f = 0;
    double w = 0;
    double s = 1;
    qint64 records = 0;
    qint64 correctTimed = 0;
    qint64 errorFlagged = 0; // correct and timed but flagged with an error: not counted in w and s
    qint64 wins = 0;
    qint64 problems = 0;
    double expectedSaving = 0;
    double amdahlSaving = 0;
    double amdahlSpeedup = 1;
    double familySavingSum = 0; // sum of the families' own f_i*w_i*(1-1/s_i)
    std::vector<FamilySaving> families;
};

// One workload's breakdown (core/analysis/breakdown.h), in Qt types.
struct WorkloadSummary {
    QString name;
    QString source;
    QString device;
    QString rulesVersion;
    double gpuKernelUs = 0;
    double busyUs = 0;
    double spanUs = 0;
    double addressableUs = 0;
    double addressableFraction = 0;     // of GPU kernel time
    double addressableSpanFraction = 0; // of the profiled span
    qint64 kernelCount = 0;
    std::vector<CategoryShare> categories; // by time, descending
    std::vector<KernelShare> topKernels;   // by time, descending
    ProjectionSummary projection;
};

// A trace the loader read, kept so that a reload can reuse its breakdown.
struct KnownTrace {
    std::string path;
    std::string rules; // rule table path; "" = the built-in one
    qint64 size = -1;
    qint64 modifiedMs = -1;
    std::shared_ptr<const WorkloadBreakdown> breakdown;
    QStringList messages; // what the reader skipped
};

struct ProjectData {
    Project project;
    RecordSetPtr records = std::make_shared<RecordSet>();
    std::shared_ptr<const std::vector<RecordRow>> rows = std::make_shared<std::vector<RecordRow>>();
    RecordFacets facets;
    // Flagged records ranked for review (SuspiciousModel::rank) with their
    // "code: reason; ..." text, and the records with coverage grids, lowest
    // written fraction first: computed at load, not on the GUI thread.
    std::vector<int> suspicious;
    std::vector<QString> suspiciousReasons;
    std::vector<int> gridRecords;
    std::vector<WorkloadSummary> workloads;
    QStringList problemSpecs;   // problem spec files found in the project's problem folders
    QStringList candidateSpecs; // candidate spec files found there
    QStringList messages;       // what could not be loaded, each naming the file and the reason
    std::vector<KnownTrace> knownTraces;       // the workloads' breakdowns, for reuse
    std::vector<std::string> recordPaths;      // the record inputs read, and their files' size/mtime
    std::vector<qint64> recordStamps;
    QStringList recordMessages;                // the messages of reading them
    bool tracesSupported = false; // this build reads traces
    bool cancelled = false;

    std::size_t flaggedCount() const;
    std::size_t unverifiedClaimCount() const;
};

using ProjectDataPtr = std::shared_ptr<const ProjectData>;

// Fills rows, facets, suspicious and gridRecords from data.records.
void indexRecords(ProjectData& data);

// For tests and benchmarks: data over records already in memory.
ProjectDataPtr makeProjectData(RecordSet records, Project project = {});

} // namespace kwb::ui
