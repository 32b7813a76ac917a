#pragma once
// A re-run request for one of the native fixtures (tests/data/problems and
// tests/data/candidates), for the in-process GPU tests. KWB_TEST_DATA_DIR in
// the environment wins over the build's path (the tests run from a copy of
// the tree on the GPU machine).
#include <cstdlib>
#include <string>

#include "gpu_test.h"
#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "rerun/protocol.h"

namespace kwb::gputest {

inline RerunRequest fixtureRequest(const std::string& problem, const std::string& candidate, int trials, int warmup,
    int correctnessTrials)
{
    RerunRequest r;
    const char* env = std::getenv("KWB_TEST_DATA_DIR");
    const std::string data = env && *env ? env : KWB_TEST_DATA_DIR;
    auto p = loadProblemSpec(data + "/problems/" + problem + ".json");
    auto c = loadCandidateSpec(data + "/candidates/" + problem + "/" + candidate + ".json");
    GT_OK(p);
    GT_OK(c);
    if (p) r.problem = *p;
    if (c) r.candidate = *c;
    r.id = problem + "/" + candidate;
    r.options.trials = trials;
    r.options.warmup = warmup;
    r.options.correctnessTrials = correctnessTrials;
    return r;
}

} // namespace kwb::gputest
