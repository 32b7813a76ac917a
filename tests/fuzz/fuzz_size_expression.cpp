// Size expressions ("M * K + 2"): evaluation against fixed sizes, and names.
#include "fuzz_util.h"
#include "problems/size_expression.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const kwb::SizeMap sizes = {{"M", 4096}, {"N", 1}, {"K", 9223372036854775807LL}, {"B", -3}, {"Z", 0}};
    const std::string_view text = kwbfuzz::asText(data, size);
    auto v = kwb::evaluateSizeExpression(text, sizes);
    auto names = kwb::sizeExpressionNames(text);
    (void)v;
    (void)names;
    return 0;
}
