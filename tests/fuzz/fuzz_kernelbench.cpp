// KernelBench eval_results.json and baseline timing importers on the same
// bytes, then the native write-back of what loaded (strictly re-parsed).
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "records/kernelbench_importer.h"
#include "records/native_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = kwbfuzz::asText(data, size);
    kwb::RecordSet set = kwb::importKernelBenchEval(text, "runs/level1/eval_results.json", {});
    auto table = kwb::parseKernelBenchBaseline(text, "H100/baseline_time_torch.json");
    if (table) kwb::joinBaseline(set.records, *table);
    for (const auto& r : set.records) {
        const std::string line = kwb::recordToJsonLine(r);
        try {
            (void)nlohmann::json::parse(line);
        } catch (const std::exception& e) {
            kwbfuzz::fail(std::string("written line is not JSON: ") + e.what() + "\n" + line);
        }
    }
    return 0;
}
