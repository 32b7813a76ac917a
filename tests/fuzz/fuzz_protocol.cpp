// The runner protocol: one line from the runner (or the parent) decoded.
#include "fuzz_util.h"
#include "rerun/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto message = kwb::decodeMessage(kwbfuzz::asText(data, size));
    (void)message;
    return 0;
}
