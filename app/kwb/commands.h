#pragma once
// The kwb subcommands. Each lives in its own cmd_<name>.cpp and returns the
// process exit code: 0 success, 1 input or runtime errors, 2 usage errors,
// 3 the feature is not in this build (no GPU support, no GUI library).
#include <string>
#include <vector>

namespace kwb::cli {

using Args = std::vector<std::string>;

inline constexpr int kExitOk = 0;
inline constexpr int kExitErrors = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNotInBuild = 3;

struct Command {
    const char* name;
    const char* summary;
    int (*run)(const Args& args);
};

const std::vector<Command>& commands();

int runSummary(const Args& args);
int runBreakdown(const Args& args);
int runProject(const Args& args);
int runRerun(const Args& args);
int runVerify(const Args& args);
int runFigures(const Args& args);
int runSlurm(const Args& args);
int runZeros(const Args& args);
int runMatrix(const Args& args);
int runReflag(const Args& args);

// Shared by commands: print a usage error or the help text and return the exit code.
class ArgParser;
int finishParse(const ArgParser& parser);

} // namespace kwb::cli
