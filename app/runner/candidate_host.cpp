// kwb-candidate-host: the child that runs a shared-object candidate's host
// code for kwb-runner, sandboxed (core/gpu/isolation/candidate_host.h). It is
// started by the runner with its command channel on fds 3 (in) and 4 (out);
// it is not meant to be run by hand.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu/isolation/candidate_host.h"

int main(int argc, char** argv)
{
    if (argc == 4 && std::strcmp(argv[1], "--serve") == 0)
        return kwb::gpu::serveCandidateHost(std::atoi(argv[2]), std::atoi(argv[3]));
    std::fprintf(stderr, "usage: kwb-candidate-host --serve CMD_FD REPLY_FD\n\nStarted by kwb-runner for each "
                         "shared-object candidate; see docs/security-native.md.\n");
    return argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) ? 0 : 2;
}
