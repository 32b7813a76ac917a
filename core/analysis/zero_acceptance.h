#pragma once
// Zero acceptance: would a trivial answer — all zeros, or a constant equal to
// the reference's mean — pass KernelBench's allclose against a problem's
// reference output? The measurement behind the paper's "zeros pass on 4 of 60
// level-1 problems" (docs/paper-claims.md). The pass/fail of each trivial answer
// is decided here through core's zerosPassAllclose and constantPassesAllclose;
// the device probe (gpu/bridge/zero_probe) only feeds it the reference's values
// chunk by chunk, so outputs of several GB need no host copy of their own size.
// Pure; not thread-safe per accumulator.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kwb {

// The tolerances of the tables: KernelBench's first release (the paper's
// claim, atol = rtol = 1e-2) and its current fp32 tolerance (1e-4).
inline constexpr double kZeroTolerances[] = {1e-2, 1e-4};
inline constexpr std::size_t kZeroToleranceCount = 2;

// The table's key suffix of a tolerance: "0.01", "0.0001" (as Python's repr).
std::string zeroToleranceKey(double tol);

// One reference output tensor.
struct ZeroOutputStats {
    std::vector<std::int64_t> shape;
    std::string dtype;       // the tensor's own dtype ("float32", "int64", ...)
    std::int64_t numel = 0;
    double maxAbs = 0.0;     // over finite and non-finite values as torch's abs().max()
    double rms = 0.0;
    double mean = 0.0;
    std::int64_t nonfinite = 0;
    bool zerosPass[kZeroToleranceCount] = {true, true};
    // nullopt for a single element: the mean is the answer itself, not a trivial one.
    std::optional<bool> meanPass[kZeroToleranceCount];
};

// Two passes over a float32 view of the output: pass 1 (addValues) gives max
// |value|, RMS, mean and the zeros verdicts; pass 2 (addMeanPass, after
// finishValues) the constant-mean verdicts. Chunks may be of any size.
class ZeroAcceptanceAccumulator {
public:
    ZeroAcceptanceAccumulator(std::vector<std::int64_t> shape, std::string dtype, std::int64_t numel);
    void addValues(std::span<const float> chunk);
    void finishValues();                        // fixes the mean; call once after pass 1
    float meanValue() const { return m_meanF; } // the constant pass 2 compares with
    void addMeanPass(std::span<const float> chunk);
    ZeroOutputStats result() const;             // after pass 2 (or after pass 1 for numel <= 1)
    bool needsMeanPass() const { return m_stats.numel > 1; }

private:
    ZeroOutputStats m_stats;
    std::int64_t m_seen = 0;
    double m_sum = 0.0;
    double m_sumSq = 0.0;
    float m_meanF = 0.0f;
    bool m_finished = false;
};

// Convenience: both passes over a host array.
ZeroOutputStats measureZeroAcceptance(std::span<const float> values, std::vector<std::int64_t> shape,
    std::string dtype);

// One problem's row of the table (datasets/zero_acceptance/zero_acceptance_levels.jsonl).
struct ZeroAcceptanceRow {
    std::string version;     // "v0", "current", or a folder name
    int level = 0;           // 0 when the file's path names no levelN folder
    std::string problem;     // file stem, e.g. "23_Softmax"
    std::string status;      // "ok", "error", "oom", "timeout", "crash", "budget", "no_device"
    std::string reason;      // why, when not ok
    // For status "ok": the outputs combined (several tensors: every one must pass).
    std::vector<ZeroOutputStats> outputs;
    ZeroOutputStats combined;
    std::optional<double> setupS, forwardMs, wallS;
    std::optional<std::int64_t> inputBytes;
};

// A model that returns several tensors passes only if every one does; the
// mean verdict ignores single-element tensors (nullopt when all are).
ZeroOutputStats combineZeroOutputs(const std::vector<ZeroOutputStats>& outputs);

// Counts per (version, level), ordered by level then version (the tables' order).
struct ZeroAcceptanceGroup {
    std::string version;
    int level = 0;
    int problems = 0;
    int ran = 0;
    int skipped = 0;
    int zerosPass[kZeroToleranceCount] = {0, 0};
    int meanPass[kZeroToleranceCount] = {0, 0};
    std::vector<std::string> zerosPassProblems[kZeroToleranceCount];
};
std::vector<ZeroAcceptanceGroup> summarizeZeroAcceptance(const std::vector<ZeroAcceptanceRow>& rows);

// Rows of two tables (same version, level, problem) whose verdicts differ, as
// "v0 level 1 23_Softmax: zeros@0.01 yes -> no"; rows only in one table too.
std::vector<std::string> compareZeroAcceptance(const std::vector<ZeroAcceptanceRow>& a,
    const std::vector<ZeroAcceptanceRow>& b);

} // namespace kwb
