// KernelBench leaderboard raw_data.json importer, with the native write-back.
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "records/leaderboard_importer.h"
#include "records/native_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const kwb::RecordSet set = kwb::importLeaderboard(kwbfuzz::asText(data, size), "raw_data.json");
    for (const auto& r : set.records) {
        if (r.problem.id && *r.problem.id < 1) kwbfuzz::fail("leaderboard problem id wrapped");
        const std::string line = kwb::recordToJsonLine(r);
        try {
            (void)nlohmann::json::parse(line);
        } catch (const std::exception& e) {
            kwbfuzz::fail(std::string("written line is not JSON: ") + e.what() + "\n" + line);
        }
    }
    return 0;
}
