#include "workbench/record_lookup.h"

#include <filesystem>

#include "records/record_loader.h"

namespace kwb::workbench {

namespace fs = std::filesystem;

Result<std::pair<std::string, std::string>> splitRecordReference(std::string_view reference)
{
    const auto hash = reference.rfind('#');
    if (hash == std::string_view::npos || hash == 0 || hash + 1 == reference.size())
        return Status(ErrorCode::InvalidArgument, "record reference '" + std::string(reference) + "' is not FILE#ID");
    return std::make_pair(std::string(reference.substr(0, hash)), std::string(reference.substr(hash + 1)));
}

Result<std::size_t> findRecordIndex(const std::vector<EvalRecord>& records, std::string_view id)
{
    const std::string suffix = "/" + std::string(id);
    std::size_t match = 0;
    int suffixMatches = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::string& rid = records[i].id;
        if (rid == id) return i;
        if (rid.size() > suffix.size() && rid.compare(rid.size() - suffix.size(), suffix.size(), suffix) == 0) {
            match = i;
            ++suffixMatches;
        }
    }
    if (suffixMatches == 1) return match;
    if (suffixMatches > 1)
        return Status(ErrorCode::InvalidArgument, "record id '" + std::string(id) + "' is ambiguous: "
            + std::to_string(suffixMatches) + " records end in '" + suffix + "'");
    return Status(ErrorCode::NotFound,
        "no record with id '" + std::string(id) + "' among " + std::to_string(records.size()) + " records");
}

Result<EvalRecord> findRecordByReference(std::string_view reference)
{
    KWB_ASSIGN_OR_RETURN(auto parts, splitRecordReference(reference));
    const auto& [file, id] = parts;
    std::error_code ec;
    if (!fs::exists(file, ec)) return Status(ErrorCode::NotFound, "record file not found", SourcePosition{file});
    RecordSet set = loadRecordFiles({file});
    for (const auto& report : set.files)
        if (!report.fatal.isOk()) return report.fatal;
    auto index = findRecordIndex(set.records, id);
    if (!index) return Status(index.status().code(), index.status().message(), SourcePosition{file});
    return std::move(set.records[*index]);
}

} // namespace kwb::workbench
