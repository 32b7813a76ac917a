#pragma once
// KernelBench problem names from a KernelBench problems folder: level 1's
// "40_LayerNorm.py" names problem (1, 40) "40_LayerNorm". Leaderboard records
// carry only (level, id); with their names they reach the problem -> family
// mapping of the projection like every other record.
//
// Thread: any; immutable after scan(). Errors: a folder with no levelN
// subfolder is an error naming the folder; unreadable entries are skipped.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "base/status.h"
#include "records/eval_record.h"

namespace kwb {

class ProblemNames {
public:
    // `dir` holds level1/, level2/, ... or is a checkout holding KernelBench/level1/, ...
    static Result<ProblemNames> scan(const std::string& dir);

    std::optional<std::string> name(std::int64_t level, std::int64_t id) const;
    std::size_t size() const { return m_names.size(); }

    // Names the KernelBench records that have a level and an id but no name;
    // returns how many it named. Records with a name keep it.
    std::size_t applyTo(std::span<EvalRecord> records) const;

private:
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> m_names;
};

} // namespace kwb
