#include "rerun/kernelbench_sample.h"

#include "base/checked_int.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <system_error>
#include <vector>

#include "base/mapped_file.h"

namespace kwb {

namespace {

namespace fs = std::filesystem;

bool definesName(const std::string& source, const char* pattern)
{
    // Multiline: a definition starts a line (module level or indented).
    return std::regex_search(source, std::regex(pattern, std::regex::ECMAScript | std::regex::multiline));
}

bool definesModelNew(const std::string& source)
{
    return definesName(source, R"(^\s*class\s+ModelNew\b)");
}

std::string missingProblemParts(const std::string& source)
{
    std::string missing;
    const std::pair<const char*, const char*> parts[] = {{"class Model", R"(^\s*class\s+Model\b)"},
        {"get_inputs()", R"(^\s*def\s+get_inputs\s*\()"}, {"get_init_inputs()", R"(^\s*def\s+get_init_inputs\s*\()"}};
    for (const auto& [name, pattern] : parts)
        if (!definesName(source, pattern)) missing += std::string(missing.empty() ? "" : ", ") + name;
    return missing;
}

std::string specSafe(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        out += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')
            ? c
            : '_';
    if (out.size() > 200) out.resize(200);
    return out.empty() ? std::string("sample") : out;
}

// level and id from ".../level1/39_L2Norm_.py".
void parseLayout(const fs::path& path, KernelBenchProblemFile& out)
{
    const std::string stem = path.stem().string();
    const auto underscore = stem.find('_');
    if (underscore != std::string::npos && underscore > 0
        && std::all_of(stem.begin(), stem.begin() + static_cast<std::ptrdiff_t>(underscore), [](char c) { return c >= '0' && c <= '9'; }))
        out.problemId = parseInt64(stem.substr(0, underscore)); // nullopt past int64
    const std::string parent = path.parent_path().filename().string();
    if (parent.size() > 5 && parent.rfind("level", 0) == 0
        && std::all_of(parent.begin() + 5, parent.end(), [](char c) { return c >= '0' && c <= '9'; }))
        out.level = parseInt64(parent.substr(5));
}

std::optional<std::string> rawString(const EvalRecord& record, const char* key)
{
    const RawField* f = findRaw(record.extra, key);
    if (!f) return std::nullopt;
    auto j = nlohmann::json::parse(f->json, nullptr, false);
    if (j.is_discarded() || !j.is_string()) return std::nullopt;
    return j.get<std::string>();
}

bool isExecutable(const std::string& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

bool isKernelBenchSample(const EvalRecord& record)
{
    return !record.source.code.empty() && definesModelNew(record.source.code);
}

Result<KernelBenchProblemFile> loadKernelBenchProblemFile(const std::string& path)
{
    auto text = readFileContents(path);
    if (!text) return text.status();
    KernelBenchProblemFile p;
    p.path = path;
    p.name = fs::path(path).stem().string();
    p.source = std::move(*text);
    parseLayout(fs::path(path), p);
    if (const std::string missing = missingProblemParts(p.source); !missing.empty())
        return Status(ErrorCode::SchemaError, "not a KernelBench problem file: it does not define " + missing,
            SourcePosition{path});
    return p;
}

Result<KernelBenchProblemFile> findKernelBenchProblem(const std::string& kernelbenchDir, std::int64_t level,
    std::int64_t problemId)
{
    if (kernelbenchDir.empty())
        return Status(ErrorCode::InvalidArgument, "no KernelBench checkout given (--kernelbench DIR)");
    const std::string levelDir = "level" + std::to_string(level);
    const std::string prefix = std::to_string(problemId) + "_";
    std::vector<std::string> tried;
    for (const fs::path& dir : {fs::path(kernelbenchDir) / "KernelBench" / levelDir, fs::path(kernelbenchDir) / levelDir}) {
        tried.push_back((dir / (prefix + "*.py")).string());
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> matches;
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            const std::string name = entry.path().filename().string();
            if (entry.path().extension() == ".py" && name.rfind(prefix, 0) == 0) matches.push_back(entry.path());
        }
        if (matches.size() > 1) {
            std::sort(matches.begin(), matches.end());
            return Status(ErrorCode::InvalidArgument, "more than one KernelBench problem matches " + tried.back() + ": "
                + matches[0].filename().string() + ", " + matches[1].filename().string());
        }
        if (matches.size() == 1) {
            auto p = loadKernelBenchProblemFile(matches[0].string());
            if (p) {
                p->level = level;
                p->problemId = problemId;
            }
            return p;
        }
    }
    return Status(ErrorCode::NotFound, "KernelBench problem level " + std::to_string(level) + ", id "
        + std::to_string(problemId) + " not found: looked for " + tried[0] + " and " + tried[1]);
}

ProblemSpec kernelBenchProblemSpec(const KernelBenchProblemFile& problem)
{
    ProblemSpec spec;
    std::string id = "kernelbench";
    if (problem.level) id += "_L" + std::to_string(*problem.level);
    id += "_" + (problem.name.empty() ? std::string("problem") : problem.name);
    spec.id = specSafe(id);
    spec.name = problem.name.empty() ? spec.id : problem.name;
    spec.description = "KernelBench problem " + problem.path + "; the reference is its Model, inputs come from get_inputs()";
    spec.suite = "KernelBench";
    spec.level = problem.level;
    TensorSpec out;
    out.name = std::string(kKernelBenchOutputName);
    spec.outputs.push_back(std::move(out));
    spec.reference.builtin = std::string(kKernelBenchModelReference);
    spec.precision = DType::F32; // KernelBench's default; the bridge reports the output's real dtype
    spec.tolerance.kind = TolerancePolicy::Kind::KernelBench;
    return spec;
}

CandidateSpec kernelBenchCandidateSpec(const ProblemSpec& problem, const std::string& sampleId,
    const std::string& sampleSource, const std::string& displayName)
{
    CandidateSpec c;
    c.id = specSafe(sampleId);
    c.problem = problem.id;
    c.name = displayName.empty() ? sampleId : displayName;
    c.description = "KernelBench sample (ModelNew) for " + problem.name;
    c.form = CandidateForm::KernelBenchSample;
    c.source = sampleSource;
    return c;
}

Result<RerunRequest> kernelBenchRequest(const KernelBenchProblemFile& problem, const std::string& sampleId,
    const std::string& sampleSource, const RerunOptions& options, const std::string& recordId)
{
    if (const std::string missing = missingProblemParts(problem.source); !missing.empty())
        return Status(ErrorCode::SchemaError, "not a KernelBench problem file: it does not define " + missing,
            SourcePosition{problem.path});
    if (!definesModelNew(sampleSource))
        return Status(ErrorCode::SchemaError, "sample '" + sampleId + "' does not define class ModelNew");
    RerunRequest req;
    req.problem = kernelBenchProblemSpec(problem);
    req.candidate = kernelBenchCandidateSpec(req.problem, sampleId, sampleSource);
    req.id = req.candidate.id;
    req.options = options;
    req.kernelbench = KernelBenchPayload{problem.path, problem.source, recordId};
    return req;
}

std::optional<std::int64_t> kernelBenchFileNumber(const EvalRecord& record)
{
    // Importers store KernelBench's file number (the leaderboard importer shifts its 0-based ids).
    return record.problem.id;
}

void nameFromKernelBenchRerun(EvalRecord& record, const RerunResult& result)
{
    if (!record.problem.name.empty() || !record.problem.level || !record.problem.id) return;
    if (!record.problem.suite.empty() && record.problem.suite != "KernelBench") return;
    const std::string prefix = "kernelbench_L" + std::to_string(*record.problem.level) + "_";
    const std::string number = std::to_string(*record.problem.id) + "_";
    const std::string& id = result.problemId;
    if (id.size() > prefix.size() + number.size() && id.compare(0, prefix.size(), prefix) == 0
        && id.compare(prefix.size(), number.size(), number) == 0)
        record.problem.name = id.substr(prefix.size());
}

Result<KernelBenchProblemFile> problemForRecord(const EvalRecord& record, const std::string& kernelbenchDir)
{
    if (auto src = rawString(record, "problem_source"); src && !src->empty()) {
        KernelBenchProblemFile p;
        p.path = "record " + record.id + " (problem_source)";
        p.name = record.problem.name;
        if (p.name.empty() && record.problem.id) p.name = std::to_string(*kernelBenchFileNumber(record));
        p.source = *src;
        p.level = record.problem.level;
        p.problemId = kernelBenchFileNumber(record);
        if (const std::string missing = missingProblemParts(p.source); !missing.empty())
            return Status(ErrorCode::SchemaError, "record '" + record.id + "': its problem_source does not define " + missing);
        return p;
    }
    for (const char* key : {"problem_file", "problem_path"})
        if (auto path = rawString(record, key); path && !path->empty()) return loadKernelBenchProblemFile(*path);
    if (!record.problem.level || !record.problem.id)
        return Status(ErrorCode::InvalidArgument, "record '" + record.id
            + "' names no KernelBench level and problem id, and carries no problem_source or problem_file");
    const std::int64_t number = *kernelBenchFileNumber(record);
    if (kernelbenchDir.empty())
        return Status(ErrorCode::NotFound, "record '" + record.id + "' (KernelBench level " + std::to_string(*record.problem.level)
            + ", problem " + std::to_string(number)
            + ") carries no problem_source or problem_file; give a KernelBench checkout with --kernelbench DIR");
    auto p = findKernelBenchProblem(kernelbenchDir, *record.problem.level, number);
    if (!p) return Status(p.status().code(), "record '" + record.id + "': " + p.status().message(), p.status().where());
    return p;
}

Result<RerunRequest> kernelBenchRequestFromRecord(const EvalRecord& record, const KernelBenchSampleOptions& options)
{
    if (!isKernelBenchSample(record))
        return Status(ErrorCode::InvalidArgument, "record '" + record.id + "' is not a KernelBench sample: "
            + (record.source.code.empty() ? std::string("it carries no inline source") : std::string("its source defines no class ModelNew")));
    KWB_ASSIGN_OR_RETURN(auto problem, problemForRecord(record, options.kernelbenchDir));
    if (problem.name.empty() && record.problem.id) problem.name = std::to_string(*kernelBenchFileNumber(record));
    if (!problem.level) problem.level = record.problem.level;
    auto req = kernelBenchRequest(problem, record.id, record.source.code, options.rerun, record.id);
    if (req && !record.model.empty()) req->candidate.name = record.model + " " + record.id;
    return req;
}

namespace {

// A program as a shell finds it: a name without '/' through $PATH, a path as it is.
std::string findExecutable(const std::string& program)
{
    if (program.find('/') != std::string::npos) return isExecutable(program) ? program : std::string();
    const char* path = std::getenv("PATH");
    const std::string list = path ? path : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t start = 0; start <= list.size();) {
        const auto end = std::min(list.find(':', start), list.size());
        const std::string dir = list.substr(start, end - start);
        if (!dir.empty() && isExecutable(dir + "/" + program)) return dir + "/" + program;
        start = end + 1;
    }
    return {};
}

} // namespace

Result<TorchBridgeCommand> findTorchBridge(const std::string& python)
{
    TorchBridgeCommand cmd;
    const char* pyEnv = std::getenv("KWB_PYTHON");
    const std::string wanted = !python.empty() ? python : pyEnv && *pyEnv ? std::string(pyEnv) : std::string("python3");
    cmd.python = findExecutable(wanted);
    if (cmd.python.empty()) {
        if (!python.empty()) return Status(ErrorCode::NotFound, "--python '" + python + "' is not an executable (nor one on PATH)");
        if (pyEnv && *pyEnv)
            return Status(ErrorCode::NotFound, "KWB_PYTHON is set to '" + wanted + "', which is not an executable (nor one on PATH)");
        return Status(ErrorCode::NotFound, "python3 not found on PATH (set KWB_PYTHON): the PyTorch bridge needs Python with torch");
    }

    if (const char* env = std::getenv("KWB_TORCH_BRIDGE"); env && *env) {
        std::error_code ec;
        if (!fs::is_regular_file(env, ec))
            return Status(ErrorCode::NotFound, std::string("KWB_TORCH_BRIDGE is set to '") + env + "', which is not a file");
        cmd.script = fs::absolute(env, ec).lexically_normal().string();
        return cmd;
    }
    std::vector<std::string> tried;
    std::error_code ec;
    const auto self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto dir = self.parent_path();
        for (const auto& candidate : {dir / "kwb_torch_bridge.py", dir / ".." / "runner" / "kwb_torch_bridge.py",
                 dir / ".." / "libexec" / "kwb" / "kwb_torch_bridge.py"}) {
            const std::string p = candidate.lexically_normal().string();
            std::error_code e2;
            if (fs::is_regular_file(p, e2)) {
                cmd.script = p;
                return cmd;
            }
            tried.push_back(p);
        }
    }
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    return Status(ErrorCode::NotFound, "kwb_torch_bridge.py not found (set KWB_TORCH_BRIDGE; looked at: " + list + ")");
}

ProcessClientOptions torchBridgeClientOptions(const TorchBridgeCommand& command)
{
    ProcessClientOptions o;
    o.runnerPath = command.python;
    // -u: unbuffered, so progress lines arrive as they are written.
    o.runnerArgs = {"-u", command.script};
    o.startupTimeoutS = 180.0;
    return o;
}

} // namespace kwb
