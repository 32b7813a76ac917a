#pragma once
// The runner side of the protocol, shared by kwb-runner and the test runners:
// reads request lines from `inFd`, serves them with `executor`, writes replies
// to `outFd`. Returns the process exit code: 0 after shutdown or end of input,
// 4 after a result with fatal = true (a sticky CUDA error: the parent starts a
// fresh runner), 1 when the output pipe breaks.
//
// Thread: runs on the calling thread; the executor is only called from it.
// Candidate code may print (device printf, stray host output): call
// protectProtocolOutput() first so that fd 1 goes to stderr and the protocol
// keeps a private duplicate of the original stdout.
#include "rerun/executor.h"

namespace kwb {

inline constexpr int kRunnerExitFatal = 4;

// Returns the fd the protocol must write to (a dup of the original stdout),
// or -1 when dup fails.
int protectProtocolOutput();

int serveRunner(Executor& executor, int inFd, int outFd);

} // namespace kwb
