#pragma once
// A measured substitution (scripts/measure_substitution.py for DLRM,
// scripts/measure_substitution_transformer.py for GPT-2): per phase the
// original and substituted step times and the measured saving, and — where
// the script computed it — the projection f*w*(1-1/s) with its Amdahl bound.
// The window's "Measured vs projected" panel reads it; Qt-free.
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb {

struct SubstitutionPhase {
    std::string phase;           // "infer", "train"
    double originalMs = 0;
    double substitutedMs = 0;
    double measuredSaving = 0;   // 1 - substituted / original
    std::optional<double> originalIqrMs, substitutedIqrMs;
    int steps = 0;
};

struct SubstitutionProjection {
    std::string basis;           // "isolated" (s at the model's shapes), "records" (the samples' evaluation)
    double expectedSaving = 0;   // sum f_i w_i (1 - 1/s_i)
    std::optional<double> amdahlSaving;
    double f = 0;                // sum of the operators' f_i
};

struct SubstitutionResult {
    std::string model;           // workload.model, else a description from its members
    std::string trace;           // workload.trace: the trace the projection's f is about, when named
    std::string device;
    std::vector<std::string> swapped;
    std::vector<SubstitutionPhase> phases;
    std::vector<SubstitutionProjection> projections; // empty when the script had none (DLRM without kwb)
    bool checkOk = true;         // the script's correctness check of the substituted model
};

// Errors name the file and the member.
Result<SubstitutionResult> readSubstitutionResult(const std::string& path);

} // namespace kwb
