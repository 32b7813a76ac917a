// Nsight Systems reader: the fuzzed bytes are the SQLite file itself.
#include "analysis/breakdown.h"
#include "fuzz_util.h"
#include "traces/nsys_reader.h"
#include "traces/rule_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const kwb::RuleTable rules = [] {
        auto t = kwb::RuleTable::loadDefault();
        if (!t) kwbfuzz::fail("default rule table: " + t.status().toString());
        return std::move(t).value();
    }();
    const std::string path = kwbfuzz::writeTemp(data, size, ".sqlite");
    auto trace = kwb::readNsysSqlite(path);
    if (trace) {
        const auto b = kwb::breakdown(**trace, rules);
        (void)b;
    }
    ::unlink(path.c_str());
    return 0;
}
