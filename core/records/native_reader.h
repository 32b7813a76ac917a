#pragma once
// Reader for the native JSON Lines record format (schema "kwb.record/1").
// Streams line by line with simdjson On-Demand; a bad line is reported with
// its line and column and skipped, the rest of the file still loads.
#include <string>
#include <string_view>

#include "base/progress.h"
#include "records/record_set.h"

namespace kwb {

// Parses an in-memory JSONL buffer. `fileName` is only used in messages.
RecordSet parseNativeRecords(std::string_view text, const std::string& fileName, const TaskContext& ctx = {});
// As above; `readable` is how many bytes from text.data() may be read. With at
// least text.size() + 64 the text is parsed in place instead of copied.
RecordSet parseNativeRecords(std::string_view text, const std::string& fileName, const TaskContext& ctx, std::size_t readable);
RecordSet loadNativeRecords(const std::string& path, const TaskContext& ctx = {});

} // namespace kwb
