// kwb matrix: the exploit x check matrix of re-run results (core/analysis/exploit_matrix.h).
#include <cstdio>

#include "analysis/exploit_matrix.h"
#include "arg_parser.h"
#include "base/mapped_file.h"
#include "commands.h"

namespace kwb::cli {

int runMatrix(const Args& args)
{
    ArgParser p("matrix", "kwb matrix RESULTS... [--format table|json|markdown]",
        "The exploit x check matrix of fixture re-runs: fixtures as rows, checks as\n"
        "columns, which check caught which. RESULTS are `kwb rerun --format json`\n"
        "documents (or arrays of their outcomes); each fixture's expectation (honest,\n"
        "or the flags it must raise) comes from its candidate spec through the result.\n"
        "A file may prefix its outcomes with a label: LABEL=FILE (e.g. reset_off=r.json).\n"
        "Exit status 1 when a fixture's expectation is not met.");
    p.option("format", "table|json|markdown", "output format", "table");
    p.positional("RESULTS...", "kwb rerun JSON files");
    if (!p.parse(args)) return finishParse(p);
    const std::string format = *p.value("format");
    if (format != "table" && format != "json" && format != "markdown") {
        std::fprintf(stderr, "kwb matrix: unknown format '%s' (table, json or markdown)\n", format.c_str());
        return kExitUsage;
    }
    if (p.positionals().empty()) {
        std::fprintf(stderr, "kwb matrix: needs at least one results file\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    std::vector<MatrixInput> inputs;
    for (const auto& arg : p.positionals()) {
        std::string label;
        std::string path = arg;
        if (const auto eq = arg.find('='); eq != std::string::npos && eq > 0) {
            label = arg.substr(0, eq);
            path = arg.substr(eq + 1);
        }
        auto text = readFileContents(path);
        if (!text) {
            std::fprintf(stderr, "kwb matrix: %s\n", text.status().toString().c_str());
            return kExitErrors;
        }
        nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
        if (doc.is_discarded()) {
            std::fprintf(stderr, "kwb matrix: %s: not valid JSON\n", path.c_str());
            return kExitErrors;
        }
        auto rows = matrixInputsFromJson(doc, path);
        if (!rows) {
            std::fprintf(stderr, "kwb matrix: %s\n", rows.status().toString().c_str());
            return kExitErrors;
        }
        for (auto& r : *rows) {
            if (!label.empty()) r.label = label;
            inputs.push_back(std::move(r));
        }
    }
    const ExploitMatrix m = buildExploitMatrix(inputs);
    if (format == "json") std::fputs((exploitMatrixJson(m).dump(2) + "\n").c_str(), stdout);
    else if (format == "markdown") std::fputs(exploitMatrixMarkdown(m).c_str(), stdout);
    else std::fputs(exploitMatrixTable(m).c_str(), stdout);
    for (const auto& r : m.rows)
        if (!r.expectationMet) return kExitErrors;
    return kExitOk;
}

} // namespace kwb::cli
