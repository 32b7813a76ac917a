// kwb: the command line over the Kernel Workbench core.
#include <cstdio>
#include <cstring>
#include <string>

#include "arg_parser.h"
#include "commands.h"

namespace kwb::cli {

int finishParse(const ArgParser& parser)
{
    if (parser.helpRequested()) {
        std::fputs(parser.help().c_str(), stdout);
        return kExitOk;
    }
    std::fprintf(stderr, "kwb: %s\n\n%s", parser.error().c_str(), parser.help().c_str());
    return kExitUsage;
}

} // namespace kwb::cli

namespace {

void printHelp(std::FILE* out)
{
    std::fputs("Usage: kwb <command> [options] [arguments]\n\n"
               "Kernel Workbench on the command line: statistics over evaluation records of\n"
               "LLM-generated GPU kernels, workload breakdowns from profiler traces, live\n"
               "re-runs on the local GPU and paper figures.\n\nCommands:\n",
        out);
    for (const auto& c : kwb::cli::commands()) std::fprintf(out, "  %-11s %s\n", c.name, c.summary);
    std::fputs("\nRun 'kwb <command> --help' for the options of a command.\n"
               "Exit status: 0 ok, 1 input or runtime errors, 2 usage error, 3 not in this build.\n",
        out);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        printHelp(stderr);
        return kwb::cli::kExitUsage;
    }
    const std::string name = argv[1];
    if (name == "-h" || name == "--help" || name == "help") {
        printHelp(stdout);
        return kwb::cli::kExitOk;
    }
    if (name == "--version") {
        std::puts("kwb 0.1.0");
        return kwb::cli::kExitOk;
    }
    for (const auto& c : kwb::cli::commands()) {
        if (name == c.name) return c.run(kwb::cli::Args(argv + 2, argv + argc));
    }
    std::fprintf(stderr, "kwb: unknown command '%s'\n\n", name.c_str());
    printHelp(stderr);
    return kwb::cli::kExitUsage;
}
