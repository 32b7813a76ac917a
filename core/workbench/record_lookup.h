#pragma once
// Finding one evaluation record by a "FILE#ID" reference, as `kwb rerun
// --record` and the window's command line take it. Reads the file.
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "records/eval_record.h"

namespace kwb::workbench {

// "FILE#ID" -> (FILE, ID); InvalidArgument without '#' or with an empty part.
// The last '#' splits, so a file name may hold '#'.
Result<std::pair<std::string, std::string>> splitRecordReference(std::string_view reference);

// Loads FILE (any record format) and returns the record whose id is ID, or the
// only one whose id ends in "/ID" (leaderboard ids are "leaderboard/<file>").
// Errors name the file: not found, unreadable, no such id, ambiguous suffix.
Result<EvalRecord> findRecordByReference(std::string_view reference);

// The same lookup among records already loaded: the index of the record whose
// id is `id`, else of the only one ending in "/id".
Result<std::size_t> findRecordIndex(const std::vector<EvalRecord>& records, std::string_view id);

} // namespace kwb::workbench
