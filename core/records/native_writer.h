#pragma once
// Native record format writer: one JSON object per line (JSON Lines).
// Field names and units are documented in docs/formats.md.
#include <string>
#include <vector>

#include "base/status.h"
#include "records/eval_record.h"

namespace kwb {

class JsonWriter;

void writeRecordJson(JsonWriter& w, const EvalRecord& record);
// One line, newline included.
std::string recordToJsonLine(const EvalRecord& record);
// Writes atomically (temp file + rename) so an interrupted save leaves the old file.
Status writeRecordsFile(const std::string& path, const std::vector<EvalRecord>& records);

} // namespace kwb
