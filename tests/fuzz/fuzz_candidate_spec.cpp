// Candidate specs.
#include "fuzz_util.h"
#include "problems/candidate_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto spec = kwb::parseCandidateSpec(kwbfuzz::asText(data, size), "candidate.json");
    (void)spec;
    return 0;
}
