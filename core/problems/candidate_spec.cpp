#include "problems/candidate_spec.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/mapped_file.h"
#include "problems/json_position_index.h"
#include "problems/spec_field_reader.h"
#include "records/json_dom.h"

namespace kwb {

namespace {

constexpr std::size_t kMaxSourceBytes = std::size_t{4} << 20;

Status readDims(const SpecFieldReader& r, const nlohmann::json& launch, const std::string& path, const char* key,
    std::array<std::string, 3>& out)
{
    auto it = launch.find(key);
    if (it == launch.end()) return r.error(path, std::string("missing member '") + key + "'");
    const std::string p = SpecFieldReader::member(path, key);
    if (!it->is_array()) return r.expressionFrom(*it, p, out[0]);
    if (it->empty() || it->size() > 3) return r.error(p, "expected 1 to 3 extents (x, y, z)");
    for (std::size_t i = 0; i < it->size(); ++i)
        KWB_RETURN_IF_ERROR(r.expressionFrom((*it)[i], SpecFieldReader::element(p, i), out[i]));
    return Status::ok();
}

Status readArg(const SpecFieldReader& r, const nlohmann::json& a, const std::string& path, LaunchArg& arg)
{
    if (a.is_string()) {
        arg.kind = LaunchArg::Kind::Tensor;
        arg.tensor = a.get<std::string>();
        if (!isIdentifier(arg.tensor)) return r.error(path, "'" + arg.tensor + "' is not a tensor name");
        return Status::ok();
    }
    if (!a.is_object() || a.size() != 1)
        return r.error(path, "expected a tensor name or an object with one member: i32, i64 or f32");
    const auto member = a.begin(); // items() would hand out a proxy that dies with the statement
    const std::string key = member.key();
    const nlohmann::json& value = member.value();
    const std::string p = SpecFieldReader::member(path, key);
    if (key == "i32" || key == "i64") {
        arg.kind = key == "i32" ? LaunchArg::Kind::I32 : LaunchArg::Kind::I64;
        return r.expressionFrom(value, p, arg.expression);
    }
    if (key == "f32") {
        arg.kind = LaunchArg::Kind::F32;
        if (!value.is_number()) return r.error(p, "expected a number, found " + jsonTypeName(value));
        arg.number = value.get<double>();
        return Status::ok();
    }
    return r.error(p, "unknown argument kind '" + key + "' (i32, i64, f32, or a tensor name as a string)");
}

Result<CandidateSpec> fromJson(const nlohmann::json& j, const SpecFieldReader& r, const std::string& baseDir)
{
    CandidateSpec spec;
    KWB_RETURN_IF_ERROR(r.requireObject(j, ""));
    KWB_RETURN_IF_ERROR(r.checkKeys(j, "", {"schema", "id", "problem", "name", "description", "form", "source_file",
        "source", "compile_options", "launches", "buffers", "size_args", "symbol", "expect_flags", "honest"}));
    std::string schema;
    KWB_RETURN_IF_ERROR(r.getString(j, "", "schema", schema, true));
    if (schema != kCandidateSchema)
        return r.error("schema", "schema is '" + schema + "', expected '" + std::string(kCandidateSchema) + "'");
    KWB_RETURN_IF_ERROR(r.getString(j, "", "id", spec.id, true));
    if (!isSpecId(spec.id)) return r.error("id", "id '" + spec.id + "' may only use letters, digits, '_', '-' and '.'");
    KWB_RETURN_IF_ERROR(r.getString(j, "", "problem", spec.problem, true));
    spec.name = spec.id;
    KWB_RETURN_IF_ERROR(r.getString(j, "", "name", spec.name));
    KWB_RETURN_IF_ERROR(r.getString(j, "", "description", spec.description));
    std::string form = "nvrtc";
    KWB_RETURN_IF_ERROR(r.getString(j, "", "form", form));
    if (form == "nvrtc") spec.form = CandidateForm::Nvrtc;
    else if (form == "shared_object") spec.form = CandidateForm::SharedObject;
    else if (form == "kernelbench_sample") spec.form = CandidateForm::KernelBenchSample;
    else return r.error("form", "unknown form '" + form + "' (nvrtc, shared_object, kernelbench_sample)");

    const bool hasFile = j.contains("source_file");
    const bool hasInline = j.contains("source");
    if (hasFile == hasInline) return r.error("", "give exactly one of 'source_file' and 'source'");
    if (hasInline) {
        KWB_RETURN_IF_ERROR(r.getString(j, "", "source", spec.source));
    } else {
        KWB_RETURN_IF_ERROR(r.getString(j, "", "source_file", spec.sourceFile));
        if (spec.sourceFile.empty()) return r.error("source_file", "empty file name");
        if (baseDir.empty()) return r.error("source_file", "source_file needs the spec's folder; send the source inline");
        std::filesystem::path sp(spec.sourceFile);
        if (sp.is_relative()) sp = std::filesystem::path(baseDir) / sp;
        auto text = readFileContents(sp.string());
        if (!text) return r.error("source_file", "cannot read '" + sp.string() + "': " + text.status().message());
        spec.source = std::move(*text);
    }
    if (spec.source.size() > kMaxSourceBytes) return r.error(hasInline ? "source" : "source_file", "source is larger than 4 MiB");
    if (spec.source.find('\0') != std::string::npos) return r.error(hasInline ? "source" : "source_file", "source contains NUL bytes");
    KWB_RETURN_IF_ERROR(r.getStringList(j, "", "compile_options", spec.compileOptions));

    if (auto it = j.find("launches"); it != j.end()) {
        if (spec.form != CandidateForm::Nvrtc) return r.error("launches", "'launches' belongs to the nvrtc form");
        KWB_RETURN_IF_ERROR(r.requireArray(*it, "launches"));
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string p = SpecFieldReader::element("launches", i);
            const auto& l = (*it)[i];
            KWB_RETURN_IF_ERROR(r.requireObject(l, p));
            KWB_RETURN_IF_ERROR(r.checkKeys(l, p, {"entry", "grid", "block", "shared_mem_bytes", "args"}));
            KernelLaunch launch;
            KWB_RETURN_IF_ERROR(r.getString(l, p, "entry", launch.entry, true));
            if (!isIdentifier(launch.entry)) return r.error(p + ".entry", "'" + launch.entry + "' is not a function name");
            KWB_RETURN_IF_ERROR(readDims(r, l, p, "grid", launch.grid));
            KWB_RETURN_IF_ERROR(readDims(r, l, p, "block", launch.block));
            KWB_RETURN_IF_ERROR(r.getExpression(l, p, "shared_mem_bytes", launch.sharedMemBytes));
            if (auto args = l.find("args"); args != l.end()) {
                KWB_RETURN_IF_ERROR(r.requireArray(*args, p + ".args"));
                for (std::size_t k = 0; k < args->size(); ++k) {
                    LaunchArg arg;
                    KWB_RETURN_IF_ERROR(readArg(r, (*args)[k], SpecFieldReader::element(p + ".args", k), arg));
                    launch.args.push_back(std::move(arg));
                }
            }
            spec.launches.push_back(std::move(launch));
        }
    }
    if (spec.form == CandidateForm::Nvrtc && spec.launches.empty())
        return r.error("", "an nvrtc candidate needs at least one entry in 'launches'");

    for (const char* key : {"buffers", "size_args", "symbol"})
        if (spec.form != CandidateForm::SharedObject && j.contains(key))
            return r.error(key, std::string("'") + key + "' belongs to the shared_object form");
    KWB_RETURN_IF_ERROR(r.getStringList(j, "", "buffers", spec.buffers));
    if (auto it = j.find("size_args"); it != j.end()) {
        KWB_RETURN_IF_ERROR(r.requireArray(*it, "size_args"));
        for (std::size_t i = 0; i < it->size(); ++i) {
            std::string e;
            KWB_RETURN_IF_ERROR(r.expressionFrom((*it)[i], SpecFieldReader::element("size_args", i), e));
            spec.sizeArgs.push_back(e);
        }
    }
    KWB_RETURN_IF_ERROR(r.getString(j, "", "symbol", spec.symbol));
    if (!isIdentifier(spec.symbol)) return r.error("symbol", "'" + spec.symbol + "' is not a symbol name");

    KWB_RETURN_IF_ERROR(r.getStringList(j, "", "expect_flags", spec.expectedFlags));
    KWB_RETURN_IF_ERROR(r.getBool(j, "", "honest", spec.honest));
    if (spec.honest && !spec.expectedFlags.empty())
        return r.error("honest", "an honest candidate cannot expect flags");
    return spec;
}

Status checkExpression(const std::string& expr, const ProblemSpec& problem, const std::string& what)
{
    auto names = sizeExpressionNames(expr);
    if (!names) return Status(ErrorCode::SchemaError, what + ": " + names.status().message());
    for (const auto& n : *names)
        if (!problem.sizes.count(n))
            return Status(ErrorCode::SchemaError,
                what + ": size expression '" + expr + "' names '" + n + "', which problem '" + problem.id + "' does not define");
    return Status::ok();
}

Result<std::int64_t> evalIn(const std::string& expr, const SizeMap& sizes, const std::string& what)
{
    auto v = evaluateSizeExpression(expr, sizes);
    if (!v) return Status(v.status().code(), what + ": " + v.status().message());
    return *v;
}

} // namespace

const char* candidateFormName(CandidateForm form)
{
    if (form == CandidateForm::KernelBenchSample) return "kernelbench_sample";
    return form == CandidateForm::SharedObject ? "shared_object" : "nvrtc";
}

Result<CandidateSpec> parseCandidateSpec(std::string_view text, const std::string& fileName)
{
    auto dom = parseJsonDom(text, fileName);
    if (!dom) return dom.status();
    const JsonPositionIndex index(text);
    const std::string dir = std::filesystem::path(fileName).parent_path().string();
    auto spec = fromJson(*dom, SpecFieldReader(fileName, &index), dir.empty() ? "." : dir);
    if (spec) spec->specPath = fileName;
    return spec;
}

Result<CandidateSpec> loadCandidateSpec(const std::string& path)
{
    auto text = readFileContents(path);
    if (!text) return text.status().withFile(path);
    return parseCandidateSpec(*text, path);
}

Result<CandidateSpec> candidateSpecFromJson(const nlohmann::json& j, const std::string& fileName, const std::string& baseDir)
{
    return fromJson(j, SpecFieldReader(fileName, nullptr), baseDir);
}

nlohmann::json candidateSpecToJson(const CandidateSpec& spec)
{
    nlohmann::json j;
    j["schema"] = kCandidateSchema;
    j["id"] = spec.id;
    j["problem"] = spec.problem;
    j["name"] = spec.name;
    if (!spec.description.empty()) j["description"] = spec.description;
    j["form"] = candidateFormName(spec.form);
    j["source"] = spec.source;
    if (!spec.compileOptions.empty()) j["compile_options"] = spec.compileOptions;
    if (spec.form == CandidateForm::Nvrtc) {
        nlohmann::json launches = nlohmann::json::array();
        for (const auto& l : spec.launches) {
            nlohmann::json lj;
            lj["entry"] = l.entry;
            lj["grid"] = {l.grid[0], l.grid[1], l.grid[2]};
            lj["block"] = {l.block[0], l.block[1], l.block[2]};
            lj["shared_mem_bytes"] = l.sharedMemBytes;
            nlohmann::json args = nlohmann::json::array();
            for (const auto& a : l.args) {
                switch (a.kind) {
                case LaunchArg::Kind::Tensor: args.push_back(a.tensor); break;
                case LaunchArg::Kind::I32: args.push_back({{"i32", a.expression}}); break;
                case LaunchArg::Kind::I64: args.push_back({{"i64", a.expression}}); break;
                case LaunchArg::Kind::F32: args.push_back({{"f32", a.number}}); break;
                }
            }
            lj["args"] = args;
            launches.push_back(lj);
        }
        j["launches"] = launches;
    } else if (spec.form == CandidateForm::SharedObject) {
        if (!spec.buffers.empty()) j["buffers"] = spec.buffers;
        if (!spec.sizeArgs.empty()) j["size_args"] = spec.sizeArgs;
        j["symbol"] = spec.symbol;
    }
    if (!spec.expectedFlags.empty()) j["expect_flags"] = spec.expectedFlags;
    if (spec.honest) j["honest"] = true;
    return j;
}

Status validateCandidate(const CandidateSpec& candidate, const ProblemSpec& problem)
{
    const std::string who = "candidate '" + candidate.id + "'";
    if (!candidate.problem.empty() && candidate.problem != problem.id)
        return Status(ErrorCode::InvalidArgument, who + " is for problem '" + candidate.problem + "', not '" + problem.id + "'");
    for (std::size_t i = 0; i < candidate.launches.size(); ++i) {
        const auto& l = candidate.launches[i];
        const std::string where = who + ", launch " + std::to_string(i) + " (" + l.entry + ")";
        for (const auto& e : l.grid) KWB_RETURN_IF_ERROR(checkExpression(e, problem, where + " grid"));
        for (const auto& e : l.block) KWB_RETURN_IF_ERROR(checkExpression(e, problem, where + " block"));
        KWB_RETURN_IF_ERROR(checkExpression(l.sharedMemBytes, problem, where + " shared_mem_bytes"));
        for (const auto& a : l.args) {
            if (a.kind == LaunchArg::Kind::Tensor && !findTensor(problem, a.tensor))
                return Status(ErrorCode::SchemaError, where + ": argument '" + a.tensor + "' is not a tensor of problem '" + problem.id + "'");
            if (a.kind == LaunchArg::Kind::I32 || a.kind == LaunchArg::Kind::I64)
                KWB_RETURN_IF_ERROR(checkExpression(a.expression, problem, where + " argument"));
        }
    }
    for (const auto& b : candidate.buffers)
        if (!findTensor(problem, b))
            return Status(ErrorCode::SchemaError, who + ": buffer '" + b + "' is not a tensor of problem '" + problem.id + "'");
    for (const auto& e : candidate.sizeArgs) KWB_RETURN_IF_ERROR(checkExpression(e, problem, who + " size_args"));
    return Status::ok();
}

Result<std::vector<ResolvedLaunch>> resolveLaunches(const CandidateSpec& candidate, const SizeMap& sizes)
{
    std::vector<ResolvedLaunch> out;
    for (const auto& l : candidate.launches) {
        ResolvedLaunch r;
        r.entry = l.entry;
        for (int d = 0; d < 3; ++d) {
            KWB_ASSIGN_OR_RETURN(r.grid[d], evalIn(l.grid[d], sizes, l.entry + " grid"));
            KWB_ASSIGN_OR_RETURN(r.block[d], evalIn(l.block[d], sizes, l.entry + " block"));
            if (r.grid[d] < 1 || r.block[d] < 1)
                return Status(ErrorCode::InvalidArgument, l.entry + ": grid and block extents must be >= 1");
        }
        KWB_ASSIGN_OR_RETURN(r.sharedMemBytes, evalIn(l.sharedMemBytes, sizes, l.entry + " shared_mem_bytes"));
        if (r.sharedMemBytes < 0) return Status(ErrorCode::InvalidArgument, l.entry + ": shared_mem_bytes is negative");
        out.push_back(std::move(r));
    }
    return out;
}

Result<std::vector<std::int64_t>> resolveSizeArgs(const CandidateSpec& candidate, const SizeMap& sizes)
{
    std::vector<std::int64_t> out;
    for (const auto& e : candidate.sizeArgs) {
        KWB_ASSIGN_OR_RETURN(std::int64_t v, evalIn(e, sizes, "size_args"));
        out.push_back(v);
    }
    return out;
}

std::vector<std::string> bufferOrder(const CandidateSpec& candidate, const ProblemSpec& problem)
{
    if (!candidate.buffers.empty()) return candidate.buffers;
    std::vector<std::string> out;
    for (const auto& t : problem.inputs) out.push_back(t.name);
    for (const auto& t : problem.outputs) out.push_back(t.name);
    return out;
}

CandidateScan findCandidates(const std::string& dir, std::string_view problemId)
{
    CandidateScan scan;
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<std::string> files;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path().string());
    }
    if (ec) scan.errors.push_back(Status(ErrorCode::IoError, "cannot list '" + dir + "': " + ec.message(), SourcePosition{dir}));
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        auto text = readFileContents(f);
        if (!text) {
            scan.errors.push_back(text.status().withFile(f));
            continue;
        }
        if (text->find(kCandidateSchema) == std::string::npos) continue; // not a candidate spec
        auto spec = parseCandidateSpec(*text, f);
        if (!spec) {
            scan.errors.push_back(spec.status());
            continue;
        }
        if (problemId.empty() || spec->problem == problemId) scan.candidates.push_back(std::move(*spec));
    }
    return scan;
}

} // namespace kwb
