#pragma once
// Where a workload's GPU time goes, by kernel family, category, kernel,
// operator and phase, under a kernel-family rule table: the "addressable
// fraction" of GPU time that a generated kernel could replace.
//
// breakdown() is a pure function of (trace, rules, options): same input, same
// output, no hidden state; safe to call from any thread. All times are µs.
//
// Definitions (docs/formats.md, "Breakdown JSON"):
// - GPU activities are kernels, memcpy and memset. gpuKernelUs is the sum of
//   their durations; the memory transfers are classified by the rules like
//   kernels (family "memcpy"/"memset", not addressable).
// - busyUs merges overlapping intervals over all devices and streams, so
//   concurrent work counts once; per family busyUs merges that family's own
//   intervals.
// - spanUs is the profiled wall-clock span (Trace::spanStartNs..spanEndNs).
// - addressableFraction = addressable us / gpuKernelUs (sum of durations);
//   addressableBusyFraction = addressable busy us / busyUs;
//   addressableSpanFraction = addressable busy us / spanUs.
#include <cstdint>
#include <string>
#include <vector>

#include "traces/rule_table.h"
#include "traces/trace.h"

namespace kwb {

struct FamilyTime {
    std::string family;
    std::string library;
    std::string category;
    bool addressable = false;
    double us = 0;      // sum of durations
    double busyUs = 0;  // merged intervals of this family
    std::int64_t count = 0;
    double share = 0;   // us / gpuKernelUs
};

struct CategoryTime {
    std::string category;
    bool addressable = false; // true when every family in it is addressable
    double us = 0;
    double busyUs = 0;
    std::int64_t count = 0;
    double share = 0;
};

struct KernelTime {
    std::string name;
    std::string family;
    std::string category;
    bool addressable = false;
    double us = 0;
    std::int64_t count = 0;
    double meanUs = 0;
    double share = 0;
};

struct OperatorTime {
    std::string op;          // launching operator, "(unknown)" when not linked
    double us = 0;           // GPU time of the activities it launched
    double addressableUs = 0;
    std::int64_t count = 0;
    double share = 0;
};

struct PhaseTime {
    Phase phase = Phase::Unknown;
    double us = 0;
    double addressableUs = 0;
    std::int64_t count = 0;
    double share = 0;
};

struct WorkloadBreakdown {
    std::string name;
    std::string source;        // trace file
    std::string format;        // "kineto" or "nsys-sqlite"
    std::string rulesVersion;
    std::string device;        // first device's name, when the trace says

    double gpuKernelUs = 0;    // sum of all GPU activity durations
    double busyUs = 0;         // merged, overlaps once
    double spanUs = 0;
    double addressableUs = 0;
    double addressableBusyUs = 0;
    double unclassifiedUs = 0;
    double addressableFraction = 0;
    double addressableBusyFraction = 0;
    double addressableSpanFraction = 0;
    std::int64_t kernelCount = 0;
    std::int64_t memcpyCount = 0;
    std::int64_t memsetCount = 0;
    std::int64_t steps = 0;    // ProfilerStep ranges in the trace

    std::vector<FamilyTime> families;        // by us, descending; ties by name
    std::vector<CategoryTime> categories;    // by us, descending
    std::vector<KernelTime> topKernels;      // by us, descending, at most options.topKernels
    std::vector<KernelTime> unclassified;    // top unclassified names, at most options.topUnclassified
    std::vector<OperatorTime> operators;     // by us, descending, at most options.topOperators
    std::vector<PhaseTime> phases;           // Forward, Backward, Optimizer, Unknown: those present
};

struct BreakdownOptions {
    std::size_t topKernels = 20;
    std::size_t topUnclassified = 20;
    std::size_t topOperators = 20;
    // Attribute to the outermost operator (aten::linear) instead of the
    // launching one (aten::addmm).
    bool topLevelOperators = false;
};

WorkloadBreakdown breakdown(const Trace& trace, const RuleTable& rules, const BreakdownOptions& options = {});

// JSON of several workloads, the documented shape:
// {"schema":"kwb.breakdown/1","workloads":[{...}]}. Shares and times are
// rounded to `digits` decimals so golden files are stable.
std::string breakdownToJson(const std::vector<WorkloadBreakdown>& workloads, int digits = 3);
// One text block per workload: totals, families, categories, top kernels, unclassified.
std::string breakdownToTable(const std::vector<WorkloadBreakdown>& workloads);
// One row per (workload, family).
std::string breakdownToCsv(const std::vector<WorkloadBreakdown>& workloads);

} // namespace kwb
