#include "problems/problem_spec.h"

#include "base/checked_int.h"

#include <limits>
#include <set>

#include "base/mapped_file.h"
#include "problems/json_position_index.h"
#include "problems/spec_field_reader.h"
#include "records/json_dom.h"

namespace kwb {

const char* dtypeName(DType dtype)
{
    switch (dtype) {
    case DType::F32: return "float32";
    case DType::F16: return "float16";
    case DType::BF16: return "bfloat16";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    }
    return "float32";
}

std::optional<DType> dtypeFromName(std::string_view name)
{
    if (name == "float32" || name == "fp32" || name == "f32") return DType::F32;
    if (name == "float16" || name == "fp16" || name == "f16" || name == "half") return DType::F16;
    if (name == "bfloat16" || name == "bf16") return DType::BF16;
    if (name == "int32" || name == "i32") return DType::I32;
    if (name == "int64" || name == "i64") return DType::I64;
    return std::nullopt;
}

std::int64_t dtypeSize(DType dtype)
{
    switch (dtype) {
    case DType::F16:
    case DType::BF16: return 2;
    case DType::I64: return 8;
    case DType::F32:
    case DType::I32: return 4;
    }
    return 4;
}

bool isFloating(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

const char* distributionName(Distribution d)
{
    switch (d) {
    case Distribution::Uniform: return "uniform";
    case Distribution::Normal: return "normal";
    case Distribution::RandInt: return "randint";
    case Distribution::Constant: return "constant";
    case Distribution::Pareto: return "pareto";
    }
    return "uniform";
}

std::optional<Distribution> distributionFromName(std::string_view name)
{
    if (name == "uniform") return Distribution::Uniform;
    if (name == "normal") return Distribution::Normal;
    if (name == "randint") return Distribution::RandInt;
    if (name == "constant") return Distribution::Constant;
    if (name == "pareto") return Distribution::Pareto;
    return std::nullopt;
}

std::int64_t ResolvedTensor::elementCount() const
{
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
}

std::int64_t ResolvedTensor::byteCount() const { return elementCount() * dtypeSize(dtype); }

namespace {

Status checkNames(const SpecFieldReader& r, const std::string& expr, const std::string& path, const SizeMap& sizes)
{
    auto names = sizeExpressionNames(expr);
    if (!names) return r.error(path, names.status().message());
    for (const auto& n : *names)
        if (!sizes.count(n)) return r.error(path, "size expression '" + expr + "' names unknown size '" + n + "'");
    return Status::ok();
}

Status readTensor(const SpecFieldReader& r, const nlohmann::json& j, const std::string& path, bool input,
    const SizeMap& sizes, TensorSpec& t)
{
    KWB_RETURN_IF_ERROR(r.requireObject(j, path));
    if (input)
        KWB_RETURN_IF_ERROR(r.checkKeys(j, path, {"name", "shape", "dtype", "distribution", "low", "high", "mean", "std", "value", "scale", "alpha"}));
    else
        KWB_RETURN_IF_ERROR(r.checkKeys(j, path, {"name", "shape", "dtype"}));
    KWB_RETURN_IF_ERROR(r.getString(j, path, "name", t.name, true));
    if (!isIdentifier(t.name)) return r.error(SpecFieldReader::member(path, "name"), "'" + t.name + "' is not an identifier");
    const auto shapeIt = j.find("shape");
    if (shapeIt == j.end()) return r.error(path, "missing member 'shape'");
    const std::string shapePath = SpecFieldReader::member(path, "shape");
    KWB_RETURN_IF_ERROR(r.requireArray(*shapeIt, shapePath));
    if (shapeIt->size() > 8) return r.error(shapePath, "more than 8 dimensions");
    for (std::size_t i = 0; i < shapeIt->size(); ++i) {
        std::string e;
        KWB_RETURN_IF_ERROR(r.expressionFrom((*shapeIt)[i], SpecFieldReader::element(shapePath, i), e));
        KWB_RETURN_IF_ERROR(checkNames(r, e, SpecFieldReader::element(shapePath, i), sizes));
        t.shape.push_back(e);
    }
    std::string dtype = "float32";
    KWB_RETURN_IF_ERROR(r.getString(j, path, "dtype", dtype));
    auto dt = dtypeFromName(dtype);
    if (!dt) return r.error(SpecFieldReader::member(path, "dtype"), "unknown dtype '" + dtype + "' (float32, float16, bfloat16, int32, int64)");
    t.dtype = *dt;
    if (!input) return Status::ok();
    std::string dist = "uniform";
    KWB_RETURN_IF_ERROR(r.getString(j, path, "distribution", dist));
    auto d = distributionFromName(dist);
    if (!d) return r.error(SpecFieldReader::member(path, "distribution"), "unknown distribution '" + dist + "' (uniform, normal, randint, constant, pareto)");
    t.distribution = *d;
    if (t.distribution == Distribution::RandInt) t.high = 10.0;
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "low", t.low));
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "high", t.high));
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "mean", t.mean));
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "std", t.stddev));
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "value", t.value));
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "scale", t.scale));
    KWB_RETURN_IF_ERROR(r.getNumber(j, path, "alpha", t.alpha));
    if ((t.distribution == Distribution::Uniform || t.distribution == Distribution::RandInt) && !(t.low < t.high))
        return r.error(path, "'low' must be below 'high'");
    if (t.distribution == Distribution::Normal && !(t.stddev >= 0.0)) return r.error(path, "'std' must be >= 0");
    if (t.distribution == Distribution::Pareto && !(t.scale > 0.0 && t.alpha > 0.0))
        return r.error(path, "'scale' and 'alpha' must be > 0");
    return Status::ok();
}

Result<ProblemSpec> problemSpecFromJsonImpl(const nlohmann::json& j, const SpecFieldReader& r)
{
    ProblemSpec spec;
    KWB_RETURN_IF_ERROR(r.requireObject(j, ""));
    KWB_RETURN_IF_ERROR(r.checkKeys(j, "", {"schema", "id", "name", "description", "suite", "level", "sizes", "inputs",
        "outputs", "reference", "precision", "tolerance", "seed", "flops", "bytes"}));
    std::string schema;
    KWB_RETURN_IF_ERROR(r.getString(j, "", "schema", schema, true));
    if (schema != kProblemSchema)
        return r.error("schema", "schema is '" + schema + "', expected '" + std::string(kProblemSchema) + "'");
    KWB_RETURN_IF_ERROR(r.getString(j, "", "id", spec.id, true));
    if (!isSpecId(spec.id)) return r.error("id", "id '" + spec.id + "' may only use letters, digits, '_', '-' and '.'");
    spec.name = spec.id;
    KWB_RETURN_IF_ERROR(r.getString(j, "", "name", spec.name));
    KWB_RETURN_IF_ERROR(r.getString(j, "", "description", spec.description));
    KWB_RETURN_IF_ERROR(r.getString(j, "", "suite", spec.suite));
    if (j.contains("level")) {
        std::int64_t level = 0;
        KWB_RETURN_IF_ERROR(r.getInt(j, "", "level", level));
        spec.level = level;
    }

    if (auto it = j.find("sizes"); it != j.end()) {
        KWB_RETURN_IF_ERROR(r.requireObject(*it, "sizes"));
        for (const auto& [name, value] : it->items()) {
            const std::string p = "sizes." + name;
            if (!isIdentifier(name) || name == "ceil_div" || name == "min" || name == "max")
                return r.error(p, "size name '" + name + "' is not an identifier");
            std::int64_t v = 0;
            KWB_RETURN_IF_ERROR(r.getInt(*it, "sizes", name, v));
            if (v < 0) return r.error(p, "size '" + name + "' is negative");
            spec.sizes[name] = v;
        }
    }

    std::set<std::string> tensorNames;
    for (const bool input : {true, false}) {
        const char* key = input ? "inputs" : "outputs";
        auto it = j.find(key);
        if (it == j.end()) {
            if (input) continue;
            return r.error("", "missing member 'outputs'");
        }
        KWB_RETURN_IF_ERROR(r.requireArray(*it, key));
        if (!input && it->empty()) return r.error(key, "a problem needs at least one output");
        for (std::size_t i = 0; i < it->size(); ++i) {
            TensorSpec t;
            const std::string p = SpecFieldReader::element(key, i);
            KWB_RETURN_IF_ERROR(readTensor(r, (*it)[i], p, input, spec.sizes, t));
            if (!tensorNames.insert(t.name).second) return r.error(p + ".name", "tensor name '" + t.name + "' is used twice");
            (input ? spec.inputs : spec.outputs).push_back(std::move(t));
        }
    }

    auto ref = j.find("reference");
    if (ref == j.end()) return r.error("", "missing member 'reference'");
    KWB_RETURN_IF_ERROR(r.requireObject(*ref, "reference"));
    KWB_RETURN_IF_ERROR(r.checkKeys(*ref, "reference", {"builtin", "params"}));
    KWB_RETURN_IF_ERROR(r.getString(*ref, "reference", "builtin", spec.reference.builtin, true));
    if (!isIdentifier(spec.reference.builtin))
        return r.error("reference.builtin", "'" + spec.reference.builtin + "' is not a built-in reference name");
    if (auto params = ref->find("params"); params != ref->end()) {
        KWB_RETURN_IF_ERROR(r.requireObject(*params, "reference.params"));
        for (const auto& [name, value] : params->items()) {
            double v = 0.0;
            KWB_RETURN_IF_ERROR(r.getNumber(*params, "reference.params", name, v));
            spec.reference.params[name] = v;
        }
    }

    std::string precision = "fp32";
    KWB_RETURN_IF_ERROR(r.getString(j, "", "precision", precision));
    auto prec = dtypeFromName(precision);
    if (!prec || !isFloating(*prec)) return r.error("precision", "precision '" + precision + "' is not fp32, fp16 or bf16");
    spec.precision = *prec;

    if (auto tol = j.find("tolerance"); tol != j.end()) {
        KWB_RETURN_IF_ERROR(r.requireObject(*tol, "tolerance"));
        KWB_RETURN_IF_ERROR(r.checkKeys(*tol, "tolerance", {"policy", "atol", "rtol"}));
        std::string policy = "kernelbench";
        KWB_RETURN_IF_ERROR(r.getString(*tol, "tolerance", "policy", policy));
        if (policy == "kernelbench") spec.tolerance.kind = TolerancePolicy::Kind::KernelBench;
        else if (policy == "kernelbench_legacy") spec.tolerance.kind = TolerancePolicy::Kind::KernelBenchLegacy;
        else if (policy == "explicit") {
            spec.tolerance.kind = TolerancePolicy::Kind::Explicit;
            KWB_RETURN_IF_ERROR(r.getNumber(*tol, "tolerance", "atol", spec.tolerance.atol, true));
            KWB_RETURN_IF_ERROR(r.getNumber(*tol, "tolerance", "rtol", spec.tolerance.rtol, true));
            if (spec.tolerance.atol < 0 || spec.tolerance.rtol < 0) return r.error("tolerance", "atol and rtol must be >= 0");
        } else
            return r.error("tolerance.policy", "unknown tolerance policy '" + policy + "' (kernelbench, kernelbench_legacy, explicit)");
        if (spec.tolerance.kind != TolerancePolicy::Kind::Explicit && (tol->contains("atol") || tol->contains("rtol")))
            return r.error("tolerance", "atol/rtol are only allowed with policy 'explicit'");
    }

    if (auto seed = j.find("seed"); seed != j.end()) {
        KWB_RETURN_IF_ERROR(r.requireObject(*seed, "seed"));
        KWB_RETURN_IF_ERROR(r.checkKeys(*seed, "seed", {"policy", "base"}));
        std::string policy = "per_trial";
        KWB_RETURN_IF_ERROR(r.getString(*seed, "seed", "policy", policy));
        if (policy == "per_trial") spec.seed.kind = SeedPolicy::Kind::PerTrial;
        else if (policy == "fixed") spec.seed.kind = SeedPolicy::Kind::Fixed;
        else return r.error("seed.policy", "unknown seed policy '" + policy + "' (per_trial, fixed)");
        KWB_RETURN_IF_ERROR(r.getUnsigned(*seed, "seed", "base", spec.seed.base));
    }

    KWB_RETURN_IF_ERROR(r.getExpression(j, "", "flops", spec.flops));
    if (!spec.flops.empty()) KWB_RETURN_IF_ERROR(checkNames(r, spec.flops, "flops", spec.sizes));
    KWB_RETURN_IF_ERROR(r.getExpression(j, "", "bytes", spec.bytes));
    if (!spec.bytes.empty()) KWB_RETURN_IF_ERROR(checkNames(r, spec.bytes, "bytes", spec.sizes));
    return spec;
}

} // namespace

Result<ProblemSpec> parseProblemSpec(std::string_view text, const std::string& fileName)
{
    auto dom = parseJsonDom(text, fileName);
    if (!dom) return dom.status();
    const JsonPositionIndex index(text);
    return problemSpecFromJsonImpl(*dom, SpecFieldReader(fileName, &index));
}

Result<ProblemSpec> loadProblemSpec(const std::string& path)
{
    auto text = readFileContents(path);
    if (!text) return text.status().withFile(path);
    auto spec = parseProblemSpec(*text, path);
    if (spec) spec->specPath = path;
    return spec;
}

Result<ProblemSpec> problemSpecFromJson(const nlohmann::json& j, const std::string& fileName)
{
    return problemSpecFromJsonImpl(j, SpecFieldReader(fileName, nullptr));
}

namespace {
nlohmann::json expressionJson(const std::string& e)
{
    // Plain integers go back out as numbers, as they were most likely written.
    bool digits = !e.empty() && e.size() < 19;
    for (char c : e) digits = digits && c >= '0' && c <= '9';
    if (digits) return parseInt64(e).value_or(0); // < 19 digits: always fits
    return e;
}

nlohmann::json tensorJson(const TensorSpec& t, bool input)
{
    nlohmann::json j;
    j["name"] = t.name;
    nlohmann::json shape = nlohmann::json::array();
    for (const auto& e : t.shape) shape.push_back(expressionJson(e));
    j["shape"] = shape;
    j["dtype"] = dtypeName(t.dtype);
    if (input) {
        j["distribution"] = distributionName(t.distribution);
        switch (t.distribution) {
        case Distribution::Uniform:
        case Distribution::RandInt:
            j["low"] = t.low;
            j["high"] = t.high;
            break;
        case Distribution::Normal:
            j["mean"] = t.mean;
            j["std"] = t.stddev;
            break;
        case Distribution::Constant: j["value"] = t.value; break;
        case Distribution::Pareto:
            j["scale"] = t.scale;
            j["alpha"] = t.alpha;
            break;
        }
    }
    return j;
}
} // namespace

nlohmann::json problemSpecToJson(const ProblemSpec& spec)
{
    nlohmann::json j;
    j["schema"] = kProblemSchema;
    j["id"] = spec.id;
    j["name"] = spec.name;
    if (!spec.description.empty()) j["description"] = spec.description;
    if (!spec.suite.empty()) j["suite"] = spec.suite;
    if (spec.level) j["level"] = *spec.level;
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [k, v] : spec.sizes) sizes[k] = v;
    j["sizes"] = sizes;
    j["inputs"] = nlohmann::json::array();
    for (const auto& t : spec.inputs) j["inputs"].push_back(tensorJson(t, true));
    j["outputs"] = nlohmann::json::array();
    for (const auto& t : spec.outputs) j["outputs"].push_back(tensorJson(t, false));
    nlohmann::json ref;
    ref["builtin"] = spec.reference.builtin;
    if (!spec.reference.params.empty()) {
        nlohmann::json params = nlohmann::json::object();
        for (const auto& [k, v] : spec.reference.params) params[k] = v;
        ref["params"] = params;
    }
    j["reference"] = ref;
    j["precision"] = spec.precision == DType::F16 ? "fp16" : spec.precision == DType::BF16 ? "bf16" : "fp32";
    nlohmann::json tol;
    switch (spec.tolerance.kind) {
    case TolerancePolicy::Kind::KernelBench: tol["policy"] = "kernelbench"; break;
    case TolerancePolicy::Kind::KernelBenchLegacy: tol["policy"] = "kernelbench_legacy"; break;
    case TolerancePolicy::Kind::Explicit:
        tol["policy"] = "explicit";
        tol["atol"] = spec.tolerance.atol;
        tol["rtol"] = spec.tolerance.rtol;
        break;
    }
    j["tolerance"] = tol;
    j["seed"] = {{"policy", spec.seed.kind == SeedPolicy::Kind::Fixed ? "fixed" : "per_trial"}, {"base", spec.seed.base}};
    if (!spec.flops.empty()) j["flops"] = expressionJson(spec.flops);
    if (!spec.bytes.empty()) j["bytes"] = expressionJson(spec.bytes);
    return j;
}

Result<SizeMap> resolveSizes(const ProblemSpec& spec, const SizeMap& overrides)
{
    SizeMap sizes = spec.sizes;
    for (const auto& [k, v] : overrides) {
        auto it = sizes.find(k);
        if (it == sizes.end())
            return Status(ErrorCode::InvalidArgument, "problem '" + spec.id + "' has no size '" + k + "'");
        if (v < 0) return Status(ErrorCode::InvalidArgument, "size '" + k + "' is negative");
        it->second = v;
    }
    return sizes;
}

Result<std::vector<ResolvedTensor>> resolveTensors(const std::vector<TensorSpec>& tensors, const SizeMap& sizes)
{
    std::vector<ResolvedTensor> out;
    for (const auto& t : tensors) {
        ResolvedTensor r{t.name, {}, t.dtype};
        std::int64_t count = 1;
        for (const auto& e : t.shape) {
            auto v = evaluateSizeExpression(e, sizes);
            if (!v) return Status(v.status().code(), "tensor '" + t.name + "': " + v.status().message());
            if (*v < 0) return Status(ErrorCode::InvalidArgument, "tensor '" + t.name + "': extent '" + e + "' is negative");
            if (__builtin_mul_overflow(count, *v, &count))
                return Status(ErrorCode::InvalidArgument, "tensor '" + t.name + "' has more elements than fit in 64 bits");
            r.shape.push_back(*v);
        }
        std::int64_t bytes = 0;
        if (__builtin_mul_overflow(count, dtypeSize(t.dtype), &bytes))
            return Status(ErrorCode::InvalidArgument, "tensor '" + t.name + "' is too large");
        out.push_back(std::move(r));
    }
    return out;
}

namespace {
Result<std::optional<double>> resolveCount(const std::string& expr, const SizeMap& sizes, const char* what)
{
    if (expr.empty()) return std::optional<double>{};
    auto v = evaluateSizeExpression(expr, sizes);
    if (!v) return Status(v.status().code(), std::string(what) + ": " + v.status().message());
    return std::optional<double>{static_cast<double>(*v)};
}
} // namespace

Result<std::optional<double>> resolveFlops(const ProblemSpec& spec, const SizeMap& sizes)
{
    return resolveCount(spec.flops, sizes, "flops");
}

Result<std::optional<double>> resolveBytes(const ProblemSpec& spec, const SizeMap& sizes)
{
    return resolveCount(spec.bytes, sizes, "bytes");
}

const TensorSpec* findTensor(const ProblemSpec& spec, std::string_view name)
{
    for (const auto& t : spec.inputs)
        if (t.name == name) return &t;
    for (const auto& t : spec.outputs)
        if (t.name == name) return &t;
    return nullptr;
}

} // namespace kwb
