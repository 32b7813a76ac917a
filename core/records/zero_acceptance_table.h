#pragma once
// The zero-acceptance table format (datasets/zero_acceptance/): one JSON object
// per line and problem, as scripts/zero_acceptance_levels.py and `kwb zeros`
// write it, plus a `.meta.json` beside it (device, PyTorch, CUDA, seed, date).
// The reader the window and `kwb zeros --show` use; Qt-free.
// Members: version, level, problem, status, reason, shape, dtype, numel,
// max_abs, rms, mean, nonfinite, zeros_pass_<tol>, mean_pass_<tol> (tol 0.01,
// 0.0001; null for a single element), outputs (several tensors), setup_s,
// forward_ms, input_bytes, wall_s. Unknown members are ignored (newer writers).
#include <string>
#include <string_view>
#include <vector>

#include "analysis/zero_acceptance.h"
#include "base/status.h"

namespace kwb {

struct ZeroAcceptanceMeta {
    std::string device, torch, cuda, dateUtc;
    long long seed = 42;
};

struct ZeroAcceptanceTable {
    std::vector<ZeroAcceptanceRow> rows;
    ZeroAcceptanceMeta meta;
    bool haveMeta = false;
};

// Errors name the file, line and member ("file:12: [max_abs] expected a number").
Result<std::vector<ZeroAcceptanceRow>> parseZeroAcceptanceRows(std::string_view text, const std::string& fileName);
// Reads the JSONL and, when it exists, the `.meta.json` of the same stem.
Result<ZeroAcceptanceTable> readZeroAcceptanceTable(const std::string& path);

// One tensor's statistics and verdicts as a JSON object (the probe's answer,
// and each element of a row's `outputs`), and back.
std::string zeroOutputStatsJson(const ZeroOutputStats& stats);
Result<ZeroOutputStats> parseZeroOutputStats(std::string_view json, const std::string& where);

// One line (no newline) in the script's member order.
std::string zeroAcceptanceRowJson(const ZeroAcceptanceRow& row);
std::string zeroAcceptanceMetaJson(const ZeroAcceptanceMeta& meta);
// "<stem>.meta.json" beside a "<stem>.jsonl".
std::string zeroAcceptanceMetaPath(const std::string& tablePath);

// The summary table (version, level, problems, ran, zeros/mean passes at each
// tolerance, skipped) and the problems whose zeros pass at 1e-2, as text.
std::string zeroAcceptanceSummaryText(const std::vector<ZeroAcceptanceRow>& rows);
// One line per problem of one version and level (or all when level is 0).
std::string zeroAcceptanceRowsText(const std::vector<ZeroAcceptanceRow>& rows, int level);

} // namespace kwb
