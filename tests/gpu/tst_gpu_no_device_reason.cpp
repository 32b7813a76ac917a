// The reason deviceCount() gives where there is no GPU: the window and the CLI
// show it as is, so it must say what is true. On a machine without an NVIDIA
// driver the CUDA runtime answers "driver version is insufficient", which reads
// as "update your driver"; the reason must say there is no driver instead.
// With a device there is nothing to check (exit 77, skipped).
#include <cstdio>
#include <string>

#include "gpu/device/device_info.h"

int main()
{
    std::string why;
    const int n = kwb::gpu::deviceCount(&why);
    if (n > 0) {
        std::printf("SKIP: a CUDA device is present; the no-device reason cannot be checked here\n");
        return 77;
    }
    std::printf("reason: %s\n", why.c_str());
    if (why.empty()) {
        std::printf("FAIL: no reason given\n");
        return 1;
    }
    // Without a driver the runtime's own text ("CUDA driver version is insufficient for CUDA
    // runtime version") must not be the message: there is no driver to be insufficient.
    const bool noDriverClaim = why.find("no NVIDIA GPU") != std::string::npos;
    if (noDriverClaim && why.find("insufficient") != std::string::npos) {
        std::printf("FAIL: says there is no GPU and that the driver is insufficient\n");
        return 1;
    }
    if (why.find("insufficient") != std::string::npos && why.find("older than") == std::string::npos) {
        std::printf("FAIL: 'insufficient driver' without the driver's and the runtime's versions\n");
        return 1;
    }
    std::printf("ok\n");
    return 0;
}
