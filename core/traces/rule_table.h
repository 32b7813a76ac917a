#pragma once
// The kernel-family rule table: which library a GPU kernel name comes from,
// its category, and whether a generated kernel could realistically replace it
// ("addressable"). Loaded from JSON (resources/kernel_families.json by
// default, or the user's own file; format in docs/formats.md).
//
// Matching: rules are regexes searched in the kernel name (not anchored
// unless the pattern anchors), in RE2 syntax, which is ECMAScript's without
// backreferences and lookaround. RE2 matches in time linear in the name, so
// a hostile 100 MB kernel name costs a scan, not a stack overflow; names are
// matched byte-wise (Latin-1), as std::regex did. The matching rule with the highest
// priority wins; among equal priorities the earlier rule in the file wins.
// A name that no rule matches is "unclassified" — never counted addressable.
// Immutable after load; const members are safe from any thread.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "traces/trace.h"

namespace re2 {
class RE2;
}

namespace kwb {

// A compiled rule pattern; shared so that tables copy cheaply.
using RulePattern = std::shared_ptr<const re2::RE2>;

// True when the pattern matches somewhere in text.
bool patternFinds(const re2::RE2& pattern, std::string_view text);

struct KernelRule {
    std::string pattern;
    std::string family;   // e.g. "aten_elementwise", "cublas_gemm"
    std::string library;  // e.g. "ATen", "cuBLAS"
    std::string category; // e.g. "elementwise", "gemm", "attention"
    bool addressable = false;
    std::int32_t priority = 0;
    std::optional<ActivityKind> kind; // only activities of this kind; nullopt = any
    bool ignoreCase = false;
    RulePattern regex;
};

// Maps evaluation-record problem names to families for `kwb project`.
struct ProblemMapping {
    std::string pattern; // regex searched in the record's problem name (case-insensitive)
    std::string family;
    RulePattern regex;
    bool matches(std::string_view problemName) const { return regex && patternFinds(*regex, problemName); }
};

inline constexpr std::string_view kUnclassifiedFamily = "unclassified";

class RuleTable {
public:
    static constexpr std::string_view kSchema = "kwb.kernel_families/1";

    // Parses the JSON text; `source` names the file in error messages.
    static Result<RuleTable> parse(std::string_view json, const std::string& source);
    static Result<RuleTable> load(const std::string& path);
    // resources/kernel_families.json of this checkout (KWB_RESOURCE_DIR), or
    // the file named by the KWB_KERNEL_FAMILIES environment variable.
    static Result<RuleTable> loadDefault();
    static std::string defaultPath();

    // The winning rule for a name, or nullptr when unclassified.
    const KernelRule* match(std::string_view name, ActivityKind kind) const;

    const std::vector<KernelRule>& rules() const { return m_rules; }
    const std::vector<ProblemMapping>& problemMappings() const { return m_problems; }
    const std::string& version() const { return m_version; }
    const std::string& source() const { return m_source; }

    // Category and addressability of a family name as the rules declare it.
    const KernelRule* familyInfo(std::string_view family) const;

private:
    std::vector<KernelRule> m_rules; // sorted by descending priority, stable
    std::vector<ProblemMapping> m_problems;
    std::string m_version;
    std::string m_source;
};

} // namespace kwb
