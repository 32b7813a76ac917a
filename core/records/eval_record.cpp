#include "records/eval_record.h"

#include <array>
#include <utility>

namespace kwb {

namespace {
struct OutcomeEntry {
    Outcome outcome;
    std::string_view name;
};
constexpr std::array kOutcomes{
    OutcomeEntry{Outcome::Correct, "correct"},
    OutcomeEntry{Outcome::Incorrect, "incorrect"},
    OutcomeEntry{Outcome::CompileError, "compile_error"},
    OutcomeEntry{Outcome::RuntimeError, "runtime_error"},
    OutcomeEntry{Outcome::Timeout, "timeout"},
    OutcomeEntry{Outcome::NotRun, "not_run"},
    OutcomeEntry{Outcome::Unknown, "unknown"},
};
} // namespace

const char* outcomeName(Outcome outcome)
{
    for (const auto& e : kOutcomes)
        if (e.outcome == outcome) return e.name.data();
    return "unknown";
}

std::optional<Outcome> outcomeFromName(std::string_view name)
{
    for (const auto& e : kOutcomes)
        if (e.name == name) return e.outcome;
    return std::nullopt;
}

bool Provenance::empty() const
{
    return gpu.empty() && timer.empty() && !trials && !l2Flush && !tolerance.atol && !tolerance.rtol
        && precision.empty() && source.empty() && config.empty() && extra.empty();
}

bool RuntimeStats::empty() const
{
    return !meanMs && !stdMs && !minMs && !maxMs && !medianMs && provenance.empty() && extra.empty();
}

std::optional<double> RuntimeStats::centralMs() const
{
    if (medianMs) return medianMs;
    return meanMs;
}

std::string ProblemRef::label() const
{
    std::string out;
    if (level) out = "L" + std::to_string(*level) + "/";
    if (!name.empty()) return out + name;
    if (id) return out + std::to_string(*id);
    return out + "?";
}

const Baseline* EvalRecord::findBaseline(std::string_view name) const
{
    for (const auto& b : baselines)
        if (b.name == name) return &b;
    return nullptr;
}

const std::vector<std::string>& knownRecordFields()
{
    static const std::vector<std::string> fields{"model", "run", "suite", "level", "problem", "problem_id",
        "sample", "outcome", "status", "compiled", "gpu", "baseline", "flagged", "flag"};
    return fields;
}

std::optional<std::string> recordField(const EvalRecord& r, std::string_view field)
{
    if (field == "model") return r.model;
    if (field == "run") return r.run;
    if (field == "suite") return r.problem.suite;
    if (field == "level") return r.problem.level ? std::optional(std::to_string(*r.problem.level)) : std::nullopt;
    if (field == "problem") return r.problem.label();
    if (field == "problem_id") return r.problem.id ? std::optional(std::to_string(*r.problem.id)) : std::nullopt;
    if (field == "sample") return r.sample ? std::optional(std::to_string(*r.sample)) : std::nullopt;
    if (field == "outcome" || field == "status") return std::string(outcomeName(r.outcome));
    if (field == "compiled") return std::string(r.compiled ? "true" : "false");
    if (field == "gpu") {
        if (!r.candidate.provenance.gpu.empty()) return r.candidate.provenance.gpu;
        for (const auto& b : r.baselines)
            if (!b.stats.provenance.gpu.empty()) return b.stats.provenance.gpu;
        return std::nullopt;
    }
    if (field == "baseline") return r.speedupBaseline;
    if (field == "flagged") return std::string(r.verification.flags.empty() ? "false" : "true");
    if (field == "flag") {
        if (r.verification.flags.empty()) return std::string("none");
        return r.verification.flags.front().code;
    }
    // Unknown top-level fields: strings lose their quotes, other JSON stays as written.
    if (const RawField* raw = findRaw(r.extra, std::string(field))) {
        const std::string& j = raw->json;
        if (j.size() >= 2 && j.front() == '"' && j.back() == '"' && j.find('\\') == std::string::npos)
            return j.substr(1, j.size() - 2);
        return j;
    }
    return std::nullopt;
}

RawField* Verification::storedRerun()
{
    return const_cast<RawField*>(std::as_const(*this).storedRerun());
}

} // namespace kwb
