#pragma once
// The model-scale sweep (datasets/scale_sweep/): its manifest (one entry per
// captured workload: name, domain, model, params, phase, batch, seq, dtype,
// step_ms, file, status) and, with each trace's breakdown, the points of the
// "addressable fraction against parameter count" figure, beside the paper's
// reference numbers. The window's scale-sweep view, `kwb figures --preset
// paper` and tst_scale_sweep read this one analysis.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/breakdown.h"
#include "base/status.h"

namespace kwb {

// What the paper states (docs/paper-claims.md (b)).
inline constexpr double kPaperVendorShareLow = 0.80;   // cuBLAS GEMM + FlashAttention on transformers
inline constexpr double kPaperVendorShareHigh = 0.86;
inline constexpr double kPaperAddressableLow = 0.089;  // over seven workloads in three domains
inline constexpr double kPaperAddressableHigh = 0.582; // the recommender

struct ScaleSweepEntry {
    std::string name, domain, model, phase, dtype, file, status, reason;
    std::int64_t params = 0;
    std::optional<std::int64_t> batch, seq;
    std::optional<double> stepMs;
};

struct ScaleSweepManifest {
    std::string device, torch, cuda, captured;
    std::vector<ScaleSweepEntry> workloads;
};

// Errors name the file and the member ("manifest.json: [workloads[3].params] expected an integer").
Result<ScaleSweepManifest> readScaleSweepManifest(const std::string& path);

struct ScaleSweepPoint {
    ScaleSweepEntry entry;
    std::string tracePath;       // manifest folder + file
    bool training = false;       // phase "train"
    double addressableFraction = 0;
    double vendorShare = 0;      // GEMM + attention categories' share of GPU kernel time
    double gpuKernelUs = 0;
};

// GEMM + attention share of a breakdown (the categories "gemm" and "attention").
double vendorLibraryShare(const WorkloadBreakdown& b);

// One point per manifest entry with status ok whose breakdown is given:
// breakdowns follow scaleSweepTraces()' order; null ones (unreadable traces) are skipped.
std::vector<ScaleSweepPoint> scaleSweepPoints(const ScaleSweepManifest& manifest, const std::string& manifestPath,
    const std::vector<const WorkloadBreakdown*>& breakdowns);

// The trace files of a manifest's ok entries, in manifest order (for analyseWorkloads).
std::vector<std::string> scaleSweepTraces(const ScaleSweepManifest& manifest, const std::string& manifestPath);

} // namespace kwb
