#pragma once
// One evaluated kernel sample: the unit every importer produces and every
// analysis consumes. Plain value type; units are in the member names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/raw_fields.h"

namespace kwb {

inline constexpr std::string_view kRecordSchema = "kwb.record/1";

enum class Outcome : std::uint8_t {
    Correct,      // compiled, ran, matched the reference
    Incorrect,    // compiled and ran, output mismatch
    CompileError, // did not build
    RuntimeError, // built, then crashed (CUDA fault, exception)
    Timeout,      // killed by the evaluator's time limit
    NotRun,       // no result (missing sample)
    Unknown,
};

const char* outcomeName(Outcome outcome);
std::optional<Outcome> outcomeFromName(std::string_view name);

struct Tolerance {
    std::optional<double> atol;
    std::optional<double> rtol;
    bool operator==(const Tolerance&) const = default;
};

// How a number was obtained. Empty strings and nullopt mean "not recorded".
struct Provenance {
    std::string gpu;       // device name as the timer saw it
    std::string timer;     // "cuda_event", "cupti", "wall_clock", ...
    std::optional<std::int64_t> trials;
    std::optional<bool> l2Flush;
    Tolerance tolerance;
    std::string precision; // "fp32", "fp16", "bf16"
    std::string source;    // the file or dataset the figure came from
    std::string config;    // e.g. KernelBench's "H100_Modal/baseline_time_torch"
    RawFields extra;
    bool operator==(const Provenance&) const = default;
    bool empty() const;
};

struct RuntimeStats {
    std::optional<double> meanMs;
    std::optional<double> stdMs;
    std::optional<double> minMs;
    std::optional<double> maxMs;
    std::optional<double> medianMs;
    Provenance provenance;
    RawFields extra;
    bool operator==(const RuntimeStats&) const = default;
    bool empty() const;
    // The figure a speedup is computed from: the median if known, else the mean.
    std::optional<double> centralMs() const;
};

struct Baseline {
    std::string name; // "torch_eager", "torch_compile", "reference", ...
    RuntimeStats stats;
    bool operator==(const Baseline&) const = default;
};

struct Flag {
    std::string code;     // stable identifier, e.g. "low_coverage"
    std::string reason;   // human sentence with the numbers that triggered it
    std::string severity; // "info", "warning", "error"
    RawFields extra;      // other members, kept verbatim
    bool operator==(const Flag&) const = default;
};

struct CoverageGrid {
    std::int32_t rows = 0;
    std::int32_t cols = 0;
    std::vector<float> writtenFraction; // row-major, rows*cols values in [0,1]
    bool operator==(const CoverageGrid&) const = default;
};

struct Coverage {
    std::optional<double> writtenFraction;
    std::optional<std::int64_t> writtenElements;
    std::optional<std::int64_t> totalElements;
    std::vector<std::int64_t> firstUnwritten;
    CoverageGrid grid;
    RawFields extra;
    bool operator==(const Coverage&) const = default;
};

struct Verification {
    std::optional<Coverage> coverage;
    std::vector<Flag> flags;
    RawFields extra; // re-run results and anything else, kept verbatim
    bool operator==(const Verification&) const = default;
    bool empty() const { return !coverage && flags.empty() && extra.empty(); }
    // The whole re-run result kwb verify keeps (applyRerunToRecord), as JSON text; null when
    // the record was never re-run. The one place that names where it lives.
    const RawField* storedRerun() const { return findRaw(extra, kStoredRerunKey); }
    RawField* storedRerun();
    static inline const std::string kStoredRerunKey = "rerun";
};

struct ProblemRef {
    std::string suite; // "KernelBench", "DLRM-Bench", ...
    std::optional<std::int64_t> level;
    std::optional<std::int64_t> id;
    std::string name;  // e.g. "39_L2Norm_"
    bool operator==(const ProblemRef&) const = default;
    // "L1/39_L2Norm_" style label, stable for grouping.
    std::string label() const;
};

struct SourceRef {
    std::string path;     // file the kernel source lives in, if any
    std::string code;     // inline source, if the record carries it
    std::string language; // "cuda", "python+cuda", "triton"
    bool operator==(const SourceRef&) const = default;
    bool empty() const { return path.empty() && code.empty() && language.empty(); }
};

struct EvalRecord {
    std::string id; // unique within a record set
    ProblemRef problem;
    std::string model; // model configuration
    std::string run;
    std::optional<std::int64_t> sample;

    Outcome outcome = Outcome::Unknown;
    bool compiled = false;
    std::string error; // compiler, runtime or evaluator message

    RuntimeStats candidate;
    std::vector<Baseline> baselines;
    std::optional<double> speedup; // baseline time / candidate time
    std::string speedupBaseline;   // which baseline the speedup is over

    Verification verification;
    SourceRef source;
    RawFields extra;

    bool operator==(const EvalRecord&) const = default;

    bool isCorrect() const { return outcome == Outcome::Correct; }
    const Baseline* findBaseline(std::string_view name) const;
};

// The value of a named field as text, for grouping and filtering. Known names:
// model, run, suite, level, problem, problem_id, sample, outcome (status),
// compiled, gpu, baseline, flagged, flag; anything else is looked up among the
// record's unknown top-level fields. Returns nullopt when the record has none.
std::optional<std::string> recordField(const EvalRecord& record, std::string_view field);

// Field names recordField() understands without looking at unknown fields.
const std::vector<std::string>& knownRecordFields();

} // namespace kwb
