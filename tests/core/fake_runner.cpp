// TEST ONLY: a kwb-runner stand-in that serves the real protocol loop with the
// simulated executor, so the process client and the CLI can be tested without
// a GPU. `--no-device` makes it report that no CUDA device is present.
#include <cstring>

#include "rerun/runner_loop.h"
#include "simulated_executor.h"

int main(int argc, char** argv)
{
    bool device = true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--no-device") == 0) device = false;
    if (const char* env = std::getenv("KWB_FAKE_NO_DEVICE"); env && *env == '1') device = false;
    const int protocolFd = kwb::protectProtocolOutput();
    if (protocolFd < 0) return 1;
    kwbtest::SimulatedExecutor executor(device, protocolFd);
    return kwb::serveRunner(executor, 0, protocolFd);
}
