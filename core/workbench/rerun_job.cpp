#include "workbench/rerun_job.h"

#include <filesystem>

#include "rerun/kernelbench_sample.h"
#include "rerun/rerun_session.h"

namespace kwb::workbench {

namespace fs = std::filesystem;

const char* executorKindName(ExecutorKind kind)
{
    return kind == ExecutorKind::Bridge ? "PyTorch bridge" : "kwb-runner";
}

ExecutorKind executorKindFor(const RerunRequest& request)
{
    return request.candidate.form == CandidateForm::KernelBenchSample ? ExecutorKind::Bridge : ExecutorKind::Runner;
}

std::string recordFileOf(const RecordSet& set, std::size_t index)
{
    std::size_t end = 0;
    for (const auto& f : set.files) {
        end += f.records;
        if (index < end) return f.file;
    }
    return {};
}

std::optional<std::string> recordStringMember(const EvalRecord& record, const char* key)
{
    const RawField* f = findRaw(record.extra, key);
    if (!f) return std::nullopt;
    try {
        auto j = nlohmann::json::parse(f->json);
        if (j.is_string()) return j.get<std::string>();
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

namespace {

// As given when it exists (or is absolute), else relative to the record
// file's folder or any folder above it: records written by `kwb verify` in a
// project's evaluations/ name specs relative to the project root, and the
// answer must not depend on the working directory of the front end.
std::string resolvePath(const std::string& path, const std::string& recordFile)
{
    std::error_code ec;
    if (fs::path(path).is_absolute() || fs::exists(path, ec) || recordFile.empty()) return path;
    for (fs::path dir = fs::absolute(recordFile, ec).parent_path(); !dir.empty(); dir = dir.parent_path()) {
        const fs::path candidate = dir / path;
        if (fs::exists(candidate, ec)) return candidate.lexically_normal().string();
        if (dir == dir.root_path()) break;
    }
    return path;
}

std::optional<std::string> candidatePathOf(const EvalRecord& record)
{
    if (auto c = recordStringMember(record, "candidate_spec")) return c;
    const std::string& p = record.source.path;
    if (p.size() > 5 && p.ends_with(".json")) return p;
    return std::nullopt;
}

// The problems/ folders where the dataset layout puts a candidate's problem.
std::vector<std::string> siblingProblemDirs(const CandidateSpec& candidate)
{
    std::vector<std::string> dirs;
    if (candidate.specPath.empty()) return dirs;
    std::error_code ec;
    const fs::path cdir = fs::absolute(candidate.specPath, ec).parent_path();
    for (const auto& d : {cdir.parent_path().parent_path() / "problems", cdir.parent_path() / "problems"})
        if (fs::is_directory(d, ec)) dirs.push_back(d.lexically_normal().string());
    return dirs;
}

Result<CandidateSpec> candidateFromIndex(const EvalRecord& record, const SpecIndex& index)
{
    if (const CandidateSpec* c = index.candidate(record.id)) return *c;
    const std::string name = fs::path(record.source.path).filename().string();
    const auto byName = index.candidatesWithSourceName(name);
    if (byName.size() == 1) return *byName.front();
    if (byName.size() > 1)
        return Status(ErrorCode::InvalidArgument, "record '" + record.id + "': " + std::to_string(byName.size())
            + " candidate specs have a source file named '" + name + "'; name one with \"candidate_spec\"");
    return Status(ErrorCode::NotFound, "record '" + record.id + "' cannot be re-run: it names no candidate spec "
        "(\"candidate_spec\" or a source.path ending in .json), is not a KernelBench sample, and none of the "
        + std::to_string(index.candidateCount()) + " known candidate specs has its id"
        + (name.empty() ? std::string() : " or a source file named '" + name + "'"));
}

template <typename FindProblem>
Result<RerunJob> resolveWith(const EvalRecord& record, const SpecIndex& index, const JobContext& context,
    const RerunOptions& options, FindProblem&& findProblem)
{
    RerunJob job;
    job.recordId = record.id;
    const std::string requestId = context.requestPrefix + record.id;
    const auto candidatePath = candidatePathOf(record);
    if (!candidatePath && isKernelBenchSample(record)) {
        KernelBenchSampleOptions o;
        o.kernelbenchDir = context.kernelbenchDir;
        o.rerun = options;
        KWB_ASSIGN_OR_RETURN(job.request, kernelBenchRequestFromRecord(record, o));
        job.request.id = requestId;
        job.executor = ExecutorKind::Bridge;
        return job;
    }
    CandidateSpec candidate;
    if (candidatePath) {
        KWB_ASSIGN_OR_RETURN(candidate, loadCandidateSpec(resolvePath(*candidatePath, context.recordFile)));
    } else {
        KWB_ASSIGN_OR_RETURN(candidate, candidateFromIndex(record, index));
    }
    ProblemSpec problem;
    if (auto pp = recordStringMember(record, "problem_spec")) {
        KWB_ASSIGN_OR_RETURN(problem, loadProblemSpec(resolvePath(*pp, context.recordFile)));
    } else {
        KWB_ASSIGN_OR_RETURN(problem, findProblem(candidate));
    }
    KWB_ASSIGN_OR_RETURN(job.request, makeRerunRequest(problem, candidate, options, requestId));
    job.executor = executorKindFor(job.request);
    return job;
}

Status problemNotFound(const CandidateSpec& candidate, const SpecIndex& index)
{
    return Status(ErrorCode::NotFound, "candidate '" + candidate.id + "' solves problem '" + candidate.problem
        + "', which is not among the " + std::to_string(index.problemCount()) + " known problem specs");
}

} // namespace

Result<RerunJob> resolveRerunJob(const EvalRecord& record, SpecIndex& index, const JobContext& context,
    const RerunOptions& options)
{
    return resolveWith(record, index, context, options, [&](const CandidateSpec& c) -> Result<ProblemSpec> {
        if (const ProblemSpec* p = index.problem(c.problem)) return *p;
        for (const auto& d : siblingProblemDirs(c)) index.addDirectory(d);
        if (const ProblemSpec* p = index.problem(c.problem)) return *p;
        return problemNotFound(c, index);
    });
}

Result<RerunJob> resolveRerunJob(const EvalRecord& record, const SpecIndex& index, const JobContext& context,
    const RerunOptions& options)
{
    return resolveWith(record, index, context, options, [&](const CandidateSpec& c) -> Result<ProblemSpec> {
        if (const ProblemSpec* p = index.problem(c.problem)) return *p;
        SpecIndex local;
        for (const auto& d : siblingProblemDirs(c))
            if (!index.hasDirectory(d)) local.addDirectory(d);
        if (const ProblemSpec* p = local.problem(c.problem)) return *p;
        return problemNotFound(c, index);
    });
}

} // namespace kwb::workbench
