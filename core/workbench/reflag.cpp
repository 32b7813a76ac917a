#include "workbench/reflag.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "rerun/kernelbench_sample.h"
#include "rerun/protocol.h"
#include "rerun/rerun_session.h"

namespace kwb::workbench {

ReflagReport reflagRecords(std::vector<EvalRecord>& records, const FlagThresholds& thresholds)
{
    ReflagReport report;
    for (auto& record : records) {
        ++report.records;
        const RawField* stored = record.verification.storedRerun();
        if (!stored) continue;
        const nlohmann::json j = nlohmann::json::parse(stored->json, nullptr, false);
        auto result = j.is_discarded() ? Result<RerunResult>(Status(ErrorCode::ParseError, "not JSON"))
                                       : rerunResultFromJson(j);
        if (!result) {
            report.errors.push_back(Status(result.status().code(),
                "record '" + record.id + "': verification.rerun: " + result.status().message()));
            continue;
        }
        const std::vector<Flag> before = record.verification.flags;
        result->flags = deriveFlags(*result, thresholds);
        applyRerunToRecord(record, *result);
        nameFromKernelBenchRerun(record, *result);
        ++report.reflagged;
        if (record.verification.flags != before) ++report.changed;
    }
    return report;
}

} // namespace kwb::workbench
