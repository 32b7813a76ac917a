// Problem specs: parse, then every size, tensor, FLOP and byte resolution.
#include "fuzz_util.h"
#include "problems/problem_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto spec = kwb::parseProblemSpec(kwbfuzz::asText(data, size), "problem.json");
    if (!spec) return 0;
    auto sizes = kwb::resolveSizes(*spec);
    if (!sizes) return 0;
    auto inputs = kwb::resolveTensors(spec->inputs, *sizes);
    auto outputs = kwb::resolveTensors(spec->outputs, *sizes);
    auto flops = kwb::resolveFlops(*spec, *sizes);
    auto bytes = kwb::resolveBytes(*spec, *sizes);
    (void)inputs;
    (void)outputs;
    (void)flops;
    (void)bytes;
    const auto round = kwb::problemSpecToJson(*spec).dump();
    (void)round;
    return 0;
}
