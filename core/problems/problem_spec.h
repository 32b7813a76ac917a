#pragma once
// A problem spec (schema "kwb.problem/1"): what a candidate kernel must
// compute, on which inputs, against which built-in reference, within which
// tolerance, and how much work it is (for the roofline floor). JSON files in
// datasets/problems/ and tests/data/problems/; documented in docs/formats.md
// ("Problem and candidate specs") with resources/schemas/problem.schema.json.
// Plain value types; parsing is pure and thread-safe.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "problems/size_expression.h"

namespace kwb {

inline constexpr std::string_view kProblemSchema = "kwb.problem/1";

enum class DType : std::uint8_t { F32, F16, BF16, I32, I64 };
const char* dtypeName(DType dtype); // "float32", "float16", "bfloat16", "int32", "int64"
std::optional<DType> dtypeFromName(std::string_view name); // also "fp32", "fp16", "bf16"
std::int64_t dtypeSize(DType dtype);
bool isFloating(DType dtype);

// How an input tensor is filled. Uniform is torch.rand-like: [low, high).
// Pareto is torch.distributions.Pareto(scale, alpha): scale / U^(1/alpha).
enum class Distribution : std::uint8_t { Uniform, Normal, RandInt, Constant, Pareto };
const char* distributionName(Distribution d); // "uniform", "normal", "randint", "constant", "pareto"
std::optional<Distribution> distributionFromName(std::string_view name);

struct TensorSpec {
    std::string name;               // identifier; unique across inputs and outputs
    std::vector<std::string> shape; // size expressions, outermost first
    DType dtype = DType::F32;
    // Inputs only.
    Distribution distribution = Distribution::Uniform;
    double low = 0.0;    // uniform, randint (inclusive)
    double high = 1.0;   // uniform, randint (exclusive)
    double mean = 0.0;   // normal
    double stddev = 1.0; // normal
    double value = 0.0;  // constant
    double scale = 1.0;  // pareto
    double alpha = 1.0;  // pareto
};

// Seeds for input generation. PerTrial: trial t of tensor i uses a seed
// derived from (base, t, i), so every correctness trial sees fresh inputs;
// Fixed: every trial uses the same inputs (base, 0, i).
struct SeedPolicy {
    enum class Kind : std::uint8_t { PerTrial, Fixed };
    Kind kind = Kind::PerTrial;
    std::uint64_t base = 42;
};

// A named built-in reference implementation (see docs/formats.md for the list
// and their contracts: inputs and outputs by position, parameters).
// "gemm" runs on cuBLAS; the rest are the project's own reference kernels.
struct ReferenceSpec {
    std::string builtin;                  // e.g. "gemm", "vector_add", "relu", "scale", "softmax_rows"
    std::map<std::string, double> params; // e.g. {"alpha": 1e-6}
};

// KernelBench: the tolerance of the problem's precision (fp32 1e-4, fp16 and
// bf16 1e-2, as atol = rtol, from src/kernelbench/eval.py); KernelBenchLegacy:
// 1e-2 for every precision (its earlier eval); Explicit: the spec's numbers.
struct TolerancePolicy {
    enum class Kind : std::uint8_t { KernelBench, KernelBenchLegacy, Explicit };
    Kind kind = Kind::KernelBench;
    double atol = 0.0; // Explicit only
    double rtol = 0.0; // Explicit only
};

struct ProblemSpec {
    std::string id;          // stable identifier, e.g. "vector_add_1m"; candidates name it
    std::string name;        // display name
    std::string description;
    std::string suite;       // optional: e.g. "KernelBench"
    std::optional<std::int64_t> level;
    SizeMap sizes;           // named integer sizes with their default values
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> outputs;
    ReferenceSpec reference;
    DType precision = DType::F32; // the precision the task is posed in
    TolerancePolicy tolerance;
    SeedPolicy seed;
    std::string flops; // size expression; empty = unknown
    std::string bytes; // size expression (minimal DRAM traffic); empty = unknown
    std::string specPath; // the file it was loaded from, if any (not serialised)
};

// Tensor shape after substituting sizes; every extent >= 0.
struct ResolvedTensor {
    std::string name;
    std::vector<std::int64_t> shape;
    DType dtype = DType::F32;
    std::int64_t elementCount() const;
    std::int64_t byteCount() const;
};

// Parses and validates a spec. Errors name the file, the position (line:column
// for syntax errors and for misplaced values where the file is at hand; the
// JSON path always) and the reason.
Result<ProblemSpec> parseProblemSpec(std::string_view text, const std::string& fileName);
Result<ProblemSpec> loadProblemSpec(const std::string& path);
// From an already-parsed object (the protocol carries specs inline).
Result<ProblemSpec> problemSpecFromJson(const nlohmann::json& j, const std::string& fileName);
nlohmann::json problemSpecToJson(const ProblemSpec& spec);

// Sizes = spec defaults overridden by `overrides` (unknown names are an error).
Result<SizeMap> resolveSizes(const ProblemSpec& spec, const SizeMap& overrides = {});
Result<std::vector<ResolvedTensor>> resolveTensors(const std::vector<TensorSpec>& tensors, const SizeMap& sizes);
// FLOPs / bytes under these sizes; nullopt when the spec leaves them out.
Result<std::optional<double>> resolveFlops(const ProblemSpec& spec, const SizeMap& sizes);
Result<std::optional<double>> resolveBytes(const ProblemSpec& spec, const SizeMap& sizes);

const TensorSpec* findTensor(const ProblemSpec& spec, std::string_view name);

} // namespace kwb
