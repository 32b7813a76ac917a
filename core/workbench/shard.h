#pragma once
// Deterministic slices of a batch of records (`kwb verify --shard I/N`, one
// Slurm array task each) and the way their outputs go back together.
//
// A record's shard is FNV-1a-64(record id) mod N: a pure function of its id
// and N. Nothing else moves it: not the order of the input files, not which
// records are already done (resume), not records added to or removed from the
// inputs between a submit and a resubmit. That is why the slice is by hash and
// not by index in the sorted id list, which is perfectly balanced but shifts
// every later record when one id is added. The cost is balance: shard sizes
// vary binomially (about ±sqrt(n/N) records).
//
// Order: a run writes records as they finish; the canonical order of a
// finished output is the input order (files in the order given, records in
// each file's order, an id's first occurrence), restricted to the shard. Both
// a local run (at its end) and a merge write that order, so that the merged
// parts are byte for byte the file one local run writes.
//
// Pure functions apart from the file readers/writers named so; no threads.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kwb {

struct ShardSpec {
    std::uint32_t index = 0; // 0-based, < count (a Slurm array's task id)
    std::uint32_t count = 1;
    bool operator==(const ShardSpec&) const = default;
};

inline constexpr std::uint32_t kMaxShards = 100000;

// "I/N" with 0 <= I < N <= kMaxShards. InvalidArgument says what is wrong.
Result<ShardSpec> parseShardSpec(std::string_view text);
std::string shardSpecText(const ShardSpec& shard); // "I/N"

std::uint64_t recordIdHash(std::string_view recordId); // FNV-1a, 64 bits
std::uint32_t shardOf(std::string_view recordId, std::uint32_t count);
inline bool inShard(std::string_view recordId, const ShardSpec& shard) { return shardOf(recordId, shard.count) == shard.index; }

// The ids of the records in `files` (any format `kwb summary` reads), in
// canonical order: files as given, records in file order, first occurrence of
// an id. A file that cannot be read at all is an error naming it.
Result<std::vector<std::string>> inputRecordOrder(const std::vector<std::string>& files);

// One line of a native JSONL output, kept verbatim (without its '\n').
struct RecordLine {
    std::string id;
    std::string text;
    std::int64_t line = 0; // 1-based line number in its file
};

// Every non-blank line of a native output with its record id. A line that is
// not a JSON object with a string "id", or a last line without its '\n' (an
// interrupted write), is an error naming the file and line.
Result<std::vector<RecordLine>> readRecordLines(const std::string& path);

// `order`, each id once, with its line from the parts. Every id must be in
// exactly one part, in the part of its shard (`parts[i]` is shard i of
// parts.size()), and no part may hold a record that is not in `order`;
// otherwise the error names the record, the part file and the reason.
struct ShardPart {
    std::string path;
    std::vector<RecordLine> lines;
};
Result<std::string> mergeShardParts(const std::vector<std::string>& order, const std::vector<ShardPart>& parts);

// Rewrites `path` (atomically: a temporary file renamed over it) with its
// lines in the order of `order`; lines of ids not in `order` follow in their
// present order. Leaves the file untouched when it is already in that order.
// Returns whether it rewrote the file.
Result<bool> sortRecordFile(const std::string& path, const std::vector<std::string>& order);

// Writes `text` to `path` through a temporary file in the same folder and a rename.
Status writeFileAtomically(const std::string& path, const std::string& text);

} // namespace kwb
