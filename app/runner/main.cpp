// kwb-runner: reads re-run requests (JSON lines, protocol kwb.rerun/1) on
// stdin and answers with progress lines and results on stdout; serves
// "hello" with its capabilities (device present or not). NVRTC candidates
// (device code only) run in this process: after a sticky CUDA error the runner
// reports it and exits (status 4) so that the parent starts a fresh one.
// Shared-object candidates (host code) run in a sandboxed child,
// kwb-candidate-host (core/gpu/isolation, docs/security-native.md), unless
// KWB_ISOLATION=off loads them into this process (measurement only).
//
// The main thread is the executor thread: it owns every GPU handle.
#include <cstdio>
#include <cstring>

#include "gpu/pipeline/gpu_executor.h"
#include "rerun/protocol.h"
#include "rerun/runner_loop.h"

int main(int argc, char** argv)
{
    if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        std::printf("usage: kwb-runner [--correctness-only]\n\n  --correctness-only  coverage and correctness only (the child the "
                    "compute-sanitizer pass runs)\n\nServes %s requests, one JSON object per line, on stdin; writes replies on "
                    "stdout.\nStarted by kwb and the workbench; see docs/formats.md (Re-run protocol).\n",
            std::string(kwb::kRerunProtocol).c_str());
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("kwb-runner %s\n", std::string(kwb::kRerunProtocol).c_str());
        return 0;
    }
    // Device printf and stray host output from candidates must not corrupt the protocol.
    const int protocolFd = kwb::protectProtocolOutput();
    if (protocolFd < 0) {
        std::fprintf(stderr, "kwb-runner: cannot set up the protocol output\n");
        return 1;
    }
    kwb::gpu::GpuExecutor executor;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--correctness-only") == 0) {
            executor.setCorrectnessOnly(true);
        } else {
            std::fprintf(stderr, "kwb-runner: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    return kwb::serveRunner(executor, 0, protocolFd);
}
