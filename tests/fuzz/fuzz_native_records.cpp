// Native JSONL records, with the write-back round trip: every line the writer
// produces for a record that loaded must parse under a strict JSON parser,
// and read back as one record.
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "records/native_reader.h"
#include "records/native_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const kwb::RecordSet set = kwb::parseNativeRecords(kwbfuzz::asText(data, size), "fuzz.jsonl");
    for (const auto& r : set.records) {
        const std::string line = kwb::recordToJsonLine(r);
        try {
            (void)nlohmann::json::parse(line);
        } catch (const std::exception& e) {
            kwbfuzz::fail(std::string("written line is not JSON: ") + e.what() + "\n" + line);
        }
        const kwb::RecordSet again = kwb::parseNativeRecords(line, "roundtrip.jsonl");
        if (again.records.size() != 1) kwbfuzz::fail("written line does not read back as one record:\n" + line);
    }
    return 0;
}
