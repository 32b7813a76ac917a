#pragma once
// Runs a short-lived helper program (nvidia-smi, sbatch, squeue, scancel) and
// captures what it says. Not for candidates: those run in kwb-runner under a
// ProcessClient. Blocks the calling thread; any thread may call it.
#include <string>
#include <vector>

#include "base/status.h"

namespace kwb {

struct CommandOutput {
    int exitCode = -1;        // the exit status; 128 + signal when killed by one
    std::string out;          // stdout
    std::string err;          // stderr
};

// argv[0] is looked up in PATH. Errors: the program cannot be started
// (NotFound naming it), or it ran past `timeoutS` (Timeout; it is killed).
// A non-zero exit is not an error here: the caller reads exitCode.
Result<CommandOutput> runCommand(const std::vector<std::string>& argv, double timeoutS = 60.0);

// "sbatch --parsable ..." for messages: the words joined by spaces, quoted where needed.
std::string commandLineText(const std::vector<std::string>& argv);

} // namespace kwb
