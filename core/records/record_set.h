#pragma once
// The outcome of loading record files: the records plus, per file, what was
// read and what went wrong. Loading never throws and never drops silently:
// every skipped record is counted and has a Status naming file and position.
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "records/eval_record.h"

namespace kwb {

struct FileReport {
    std::string file;
    std::string format;        // "kwb-jsonl", "kernelbench-eval", "kernelbench-baseline", "leaderboard"
    std::size_t records = 0;   // records loaded from this file
    std::size_t badRecords = 0;// records reported and skipped
    std::vector<Status> issues;// one per bad record or field, capped (see kMaxIssuesPerFile)
    Status fatal;              // set when the file as a whole could not be read
    bool ok() const { return fatal.isOk(); }
};

inline constexpr std::size_t kMaxIssuesPerFile = 200;

struct RecordSet {
    std::vector<EvalRecord> records;
    std::vector<FileReport> files;
    // Records loaded twice under one id, once as they came and once re-run by kwb verify
    // (verification.rerun): the re-run copies replace the others (loadRecordFiles).
    std::size_t supersededByVerified = 0;

    std::size_t badRecordCount() const;
    std::size_t failedFileCount() const;
    // All problems in one list, fatal ones first, for printing.
    std::vector<Status> allIssues() const;
    void append(RecordSet&& other);
};

using RecordSetPtr = std::shared_ptr<const RecordSet>;

} // namespace kwb
