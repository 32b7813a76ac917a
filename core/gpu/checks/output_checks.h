#pragma once
// How the checks' raw measurements become the protocol's per-output and
// per-input verdicts: the worst of the correctness trials, input hashes that
// reveal a mutation, coverage from the scan's counts. The executor's steps and
// the PyTorch bridge's session both fold their measurements through these, so
// a native candidate and a KernelBench sample are judged by the same code.
// Pure functions (host only).
#include <cstdint>
#include <string>

#include "gpu/checks/coverage_scan.h"
#include "problems/coverage_grid.h"
#include "rerun/rerun_types.h"

namespace kwb::gpu {

// Folds one correctness trial into `check`: counts it, keeps the worst trial's
// metrics (largest outOfToleranceShare, then largest relL2Error), ORs zero acceptance.
void addCorrectnessTrial(OutputCheck& check, const OutputMetrics& metrics, bool zerosPass);
// After the last trial: passed = every trial passed.
void finishCorrectness(OutputCheck& check);
// The metrics of an output that has the wrong shape (KernelBench fails it;
// nothing beyond that can be measured): every element out of tolerance.
OutputMetrics shapeMismatchMetrics(std::int64_t referenceCount);

// Folds one trial's input hashes: the first trial's pair is kept until a
// trial shows a mutation, whose pair is kept from then on.
void addInputHashes(InputCheck& check, std::uint64_t before, std::uint64_t after);

// The scan's layout for an output planned as `layout` (flat outputs are one
// row of tileCols-element chunks).
ScanLayout scanLayoutFor(const CoverageLayout& layout);
// One output's coverage from the two-pass scan's counts.
OutputCoverage outputCoverageFrom(const std::string& output, const CoverageLayout& layout, const CoverageCounts& counts,
    int elemBytes);

} // namespace kwb::gpu
