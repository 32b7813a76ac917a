#include "records/record_set.h"

#include <iterator>

namespace kwb {

std::size_t RecordSet::badRecordCount() const
{
    std::size_t n = 0;
    for (const auto& f : files) n += f.badRecords;
    return n;
}

std::size_t RecordSet::failedFileCount() const
{
    std::size_t n = 0;
    for (const auto& f : files) n += f.ok() ? 0 : 1;
    return n;
}

std::vector<Status> RecordSet::allIssues() const
{
    std::vector<Status> out;
    for (const auto& f : files)
        if (!f.ok()) out.push_back(f.fatal);
    for (const auto& f : files) out.insert(out.end(), f.issues.begin(), f.issues.end());
    return out;
}

void RecordSet::append(RecordSet&& other)
{
    records.insert(records.end(), std::make_move_iterator(other.records.begin()),
        std::make_move_iterator(other.records.end()));
    files.insert(files.end(), std::make_move_iterator(other.files.begin()), std::make_move_iterator(other.files.end()));
    supersededByVerified += other.supersededByVerified;
}

} // namespace kwb
