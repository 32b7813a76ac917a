// Kineto reader: plain bytes in memory, gzip through a file (the streaming
// path), then the breakdown over whatever loaded (time arithmetic under UBSan).
#include "analysis/breakdown.h"
#include "base/checked_int.h"
#include "fuzz_util.h"
#include "traces/kineto_reader.h"
#include "traces/rule_table.h"

namespace {

const kwb::RuleTable& rules()
{
    static const kwb::RuleTable table = [] {
        auto t = kwb::RuleTable::loadDefault();
        if (!t) kwbfuzz::fail("default rule table: " + t.status().toString());
        return std::move(t).value();
    }();
    return table;
}

void check(const kwb::Result<kwb::TracePtr>& trace)
{
    if (!trace) return;
    for (const auto& a : (*trace)->activities())
        if (a.durationNs < 0 || !kwb::timeInRange(a.startNs) || !kwb::timeInRange(a.endNs())) kwbfuzz::fail("activity time out of range");
    const auto b = kwb::breakdown(**trace, rules());
    (void)b;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = kwbfuzz::asText(data, size);
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        const std::string path = kwbfuzz::writeTemp(data, size, ".json.gz");
        check(kwb::readKinetoTrace(path));
        ::unlink(path.c_str());
    } else {
        check(kwb::parseKinetoTrace(text, "fuzz.json"));
    }
    return 0;
}
