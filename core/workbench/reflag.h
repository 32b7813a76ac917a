#pragma once
// Flags re-derived from stored re-runs: a verified record keeps its whole
// re-run result (verification.rerun), so when a rule changes (a threshold, a
// false positive fixed) a population verified at some GPU-hour cost gets the
// current verdicts without a GPU. The result goes through the protocol's
// strict decoder and core's deriveFlags, as in a fresh re-run; only the
// flags a verification writes are replaced (a reviewer's stay).
#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "records/eval_record.h"
#include "rerun/flags.h"

namespace kwb::workbench {

struct ReflagReport {
    std::size_t records = 0;   // records seen
    std::size_t reflagged = 0; // records with a stored re-run, flags re-derived
    std::size_t changed = 0;   // of those, records whose flags differ now
    std::vector<Status> errors; // stored re-runs the decoder refused (record id, reason); left as they were
};

ReflagReport reflagRecords(std::vector<EvalRecord>& records, const FlagThresholds& thresholds = {});

} // namespace kwb::workbench
