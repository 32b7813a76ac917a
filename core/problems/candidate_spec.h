#pragma once
// A candidate spec (schema "kwb.candidate/1"): a kernel to re-run against a
// problem. Two forms:
//  - Nvrtc: CUDA C++ source compiled at run time with NVRTC; one or more
//    launches run in order on the timed stream, each naming an extern "C"
//    __global__ entry point, its grid/block/shared memory as size expressions
//    and its arguments (tensor pointers or scalars from size expressions).
//  - SharedObject: CUDA C++ source with host launch code, compiled with nvcc
//    into a shared object exporting the C ABI
//        extern "C" int kwb_launch(void** buffers, const int64_t* sizes, cudaStream_t stream);
//    `buffers` are device pointers in the order of CandidateSpec::buffers and
//    `sizes` the values of CandidateSpec::sizeArgs; 0 means success. For
//    candidates that launch several kernels or library calls.
//  - KernelBenchSample: a KernelBench sample, i.e. a Python module defining
//    `ModelNew` (usually with CUDA built by torch's load_inline), checked
//    against the `Model` of a KernelBench problem file that the re-run
//    request carries (RerunRequest::kernelbench). Run by the PyTorch bridge
//    (app/runner/bridge/kwb_torch_bridge.py), not by kwb-runner.
// Compiled modules are cached by source hash (core/gpu).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "problems/problem_spec.h"

namespace kwb {

inline constexpr std::string_view kCandidateSchema = "kwb.candidate/1";
inline constexpr std::string_view kSharedObjectEntry = "kwb_launch";

enum class CandidateForm : std::uint8_t { Nvrtc, SharedObject, KernelBenchSample };
const char* candidateFormName(CandidateForm form); // "nvrtc", "shared_object", "kernelbench_sample"

// One kernel argument. JSON: a string is a tensor name (passed as a device
// pointer); {"i32": EXPR}, {"i64": EXPR} pass a size expression as int / long
// long; {"f32": NUMBER} passes a float.
struct LaunchArg {
    enum class Kind : std::uint8_t { Tensor, I32, I64, F32 };
    Kind kind = Kind::Tensor;
    std::string tensor;     // Tensor
    std::string expression; // I32, I64
    double number = 0.0;    // F32
};

struct KernelLaunch {
    std::string entry;                  // extern "C" __global__ function name
    std::array<std::string, 3> grid{"1", "1", "1"};  // size expressions (x, y, z)
    std::array<std::string, 3> block{"1", "1", "1"}; // size expressions (x, y, z)
    std::string sharedMemBytes = "0";   // size expression (dynamic shared memory)
    std::vector<LaunchArg> args;
};

struct ResolvedLaunch {
    std::string entry;
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::array<std::int64_t, 3> block{1, 1, 1};
    std::int64_t sharedMemBytes = 0;
};

struct CandidateSpec {
    std::string id;       // unique among the problem's candidates
    std::string problem;  // ProblemSpec::id this candidate solves
    std::string name;
    std::string description;
    CandidateForm form = CandidateForm::Nvrtc;
    std::string sourceFile; // as written in the spec, relative to the spec's folder
    std::string source;     // the CUDA source text (loaded from sourceFile, or inline)
    std::vector<std::string> compileOptions; // extra NVRTC / nvcc options
    // Nvrtc form.
    std::vector<KernelLaunch> launches;
    // SharedObject form. Defaults: inputs then outputs in problem order; no sizes.
    std::vector<std::string> buffers;
    std::vector<std::string> sizeArgs; // size expressions
    std::string symbol = std::string(kSharedObjectEntry);
    // Fixture metadata: the flag codes a re-run must raise for this candidate
    // (exploit fixtures), or honest = true: it must raise no warning or error.
    std::vector<std::string> expectedFlags;
    bool honest = false;
    std::string specPath; // the file it was loaded from, if any (not serialised)
};

// Parses and validates; loads `source` from `source_file` relative to the
// spec's folder. Errors name the file, the position and the reason.
Result<CandidateSpec> parseCandidateSpec(std::string_view text, const std::string& fileName);
Result<CandidateSpec> loadCandidateSpec(const std::string& path);
// From an already-parsed object; `source` must be inline or `baseDir` given.
Result<CandidateSpec> candidateSpecFromJson(const nlohmann::json& j, const std::string& fileName,
    const std::string& baseDir = {});
// Serialises with the source inline (what the protocol sends to the runner).
nlohmann::json candidateSpecToJson(const CandidateSpec& spec);

// Checks names against the problem: tensors exist, size names are known.
Status validateCandidate(const CandidateSpec& candidate, const ProblemSpec& problem);
Result<std::vector<ResolvedLaunch>> resolveLaunches(const CandidateSpec& candidate, const SizeMap& sizes);
// Resolved size arguments of the SharedObject form.
Result<std::vector<std::int64_t>> resolveSizeArgs(const CandidateSpec& candidate, const SizeMap& sizes);
// Tensor names in the SharedObject buffer order (defaults applied).
std::vector<std::string> bufferOrder(const CandidateSpec& candidate, const ProblemSpec& problem);

// Candidate specs (*.json with schema kwb.candidate/1) under `dir`, recursively,
// that name `problemId` (all when empty). Unreadable specs are returned as errors.
struct CandidateScan {
    std::vector<CandidateSpec> candidates;
    std::vector<Status> errors;
};
CandidateScan findCandidates(const std::string& dir, std::string_view problemId);

} // namespace kwb
