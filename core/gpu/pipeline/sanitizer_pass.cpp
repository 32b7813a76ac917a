#include "gpu/pipeline/sanitizer_pass.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kwb::gpu {

namespace {

std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

bool executable(const std::string& p)
{
    return !p.empty() && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

std::string computeSanitizerPath()
{
    if (const char* e = std::getenv("KWB_COMPUTE_SANITIZER"); e && executable(e)) return e;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(var)) {
            const std::string p = std::string(home) + "/bin/compute-sanitizer";
            if (executable(p)) return p;
        }
    if (executable("/usr/local/cuda/bin/compute-sanitizer")) return "/usr/local/cuda/bin/compute-sanitizer";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':')) {
            const std::string p = dir + "/compute-sanitizer";
            if (executable(p)) return p;
        }
    }
    return {};
}

SanitizerReport parseSanitizerLog(std::string_view tool, std::string_view log)
{
    // Error blocks: a line naming the error, then indented lines ("at kernel+0x90", ...).
    // Blocks in the harness's own kernels (namespace kwb::gpu: fills, scans, references)
    // are not the candidate's and are left out.
    struct Block {
        std::string text;
        bool internal = false;
    };
    std::vector<Block> blocks;
    bool inBlock = false;
    std::int64_t summary = 0;
    std::size_t start = 0;
    while (start < log.size()) {
        std::size_t end = log.find('\n', start);
        if (end == std::string_view::npos) end = log.size();
        const std::string_view line = log.substr(start, end - start);
        start = end + 1;
        constexpr std::string_view prefix = "========= ";
        if (line.rfind(prefix, 0) != 0) continue;
        const std::string_view body = line.substr(prefix.size());
        if (body.empty()) continue;
        if (body.rfind("ERROR SUMMARY:", 0) == 0) {
            // "N errors", then with a print limit also "M errors were not printed" (M < N).
            summary = std::max<std::int64_t>(summary, std::strtoll(std::string(body.substr(14)).c_str(), nullptr, 10));
            inBlock = false;
        } else if (body.front() != ' '
            && (body.find("Invalid") != std::string_view::npos || body.find("Uninitialized") != std::string_view::npos
                || body.find("Race") != std::string_view::npos || body.find("hazard") != std::string_view::npos
                || body.find("Error") != std::string_view::npos || body.find("error") != std::string_view::npos)
            && body.find("COMPUTE-SANITIZER") == std::string_view::npos && body.find("SUMMARY") == std::string_view::npos
            && body.find("Target application") == std::string_view::npos
            && body.find("process didn't terminate") == std::string_view::npos) { // the tool's own status lines
            blocks.push_back({std::string(body), false});
            inBlock = true;
        } else if (inBlock && body.front() == ' ') {
            const std::string_view detail = body.substr(body.find_first_not_of(' '));
            if (detail.rfind("at ", 0) == 0 && (detail.find("kwb::gpu::") != std::string_view::npos
                                                   || detail.find("3kwb3gpu") != std::string_view::npos))
                blocks.back().internal = true;
            if (blocks.back().text.size() < 600) blocks.back().text += "\n" + std::string(detail);
        } else {
            inBlock = false;
        }
    }
    SanitizerReport r;
    r.tool = std::string(tool);
    std::int64_t own = 0;
    std::int64_t internal = 0;
    for (const auto& b : blocks) {
        if (b.internal) {
            ++internal;
            continue;
        }
        if (own++ == 0) r.firstReport = b.text;
    }
    // The summary counts every error; with harness errors among the printed ones only
    // the candidate's printed blocks are certain.
    r.errors = internal == 0 ? std::max(summary, own) : own;
    return r;
}

SanitizerReport sanitizerReportOfRun(std::string_view tool, std::string_view log, bool answered,
    std::string_view detail)
{
    SanitizerReport r = parseSanitizerLog(tool, log);
    if (log.empty()) {
        r.errors = -1;
        r.firstReport = "compute-sanitizer wrote no report" + (detail.empty() ? std::string() : " (" + std::string(detail) + ")");
    } else if (!answered && r.errors > 0) {
        // Errors the tool saw before the program died are a finding (memcheck makes the faulting
        // kernel's launch fail, and a worker may abort on that: the leaderboard's sample form of
        // oob_read on the H200, 162,434 errors, then status 6), not "did not run".
        r.firstReport += "\n(the program then returned no result" +
                         (detail.empty() ? std::string() : ": " + std::string(detail)) + ")";
    } else if (!answered) {
        const std::string_view tail = log.size() > 600 ? log.substr(log.size() - 600) : log;
        r.errors = -1;
        r.firstReport = "the program under compute-sanitizer returned no result" +
                        (detail.empty() ? std::string() : " (" + std::string(detail) + ")") + "; log: " + std::string(tail);
    }
    return r;
}

std::vector<SanitizerReport> runSanitizerPass(const RerunRequest& request, const std::string& runnerPath,
    double timeoutS)
{
    std::vector<SanitizerReport> reports;
    const std::string sanitizer = computeSanitizerPath();
    // The runner's own path, resolved here: handed on as /proc/self/exe it would name
    // compute-sanitizer itself once that execs its target (the H200 run of 2026-12-02:
    // "Target application terminated before first instrumented API call").
    std::string target = runnerPath;
    if (target.rfind("/proc/self/", 0) == 0) {
        std::error_code linkError;
        const std::filesystem::path resolved = std::filesystem::read_symlink(target, linkError);
        if (!linkError) target = resolved.string();
    }
    RerunRequest child = request;
    child.options.sanitize.clear();
    child.options.trials = 0;
    child.options.perCall = false;
    child.options.adversarial = false;
    // The child's own watchdogs (the candidate host's) at the tool's pace, inside its limit.
    child.options.timeoutS = sanitizerToolLimitS(timeoutS) * 0.9;
    const std::string input = encodeMessage(child) + encodeMessage(ShutdownRequest{"sanitizer-end"});
    for (const auto& tool : request.options.sanitize) {
        SanitizerReport r;
        r.tool = tool;
        if (sanitizer.empty()) {
            r.errors = -1;
            r.firstReport = "compute-sanitizer not found (KWB_COMPUTE_SANITIZER, CUDA_HOME/bin, /usr/local/cuda/bin, PATH)";
            reports.push_back(r);
            continue;
        }
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path dir = fs::temp_directory_path(ec) / ("kwb-sanitizer-" + std::to_string(::getpid()));
        fs::create_directories(dir, ec);
        const fs::path logPath = dir / (tool + ".log");
        fs::remove(logPath, ec);
        const long seconds = static_cast<long>(sanitizerToolLimitS(timeoutS));
        const std::string cmd = "timeout " + std::to_string(seconds) + " " + shellQuote(sanitizer) + " --tool " + tool
            + " --log-file " + shellQuote(logPath.string()) + " --print-limit 20 " + shellQuote(target)
            + " --correctness-only > " + shellQuote((dir / (tool + ".out")).string()) + " 2> "
            + shellQuote((dir / (tool + ".err")).string());
        FILE* pipe = ::popen(cmd.c_str(), "w");
        if (!pipe) {
            r.errors = -1;
            r.firstReport = "could not start " + sanitizer;
            reports.push_back(r);
            continue;
        }
        std::fwrite(input.data(), 1, input.size(), pipe);
        const int status = ::pclose(pipe);
        const auto slurp = [](const fs::path& p) {
            std::ifstream f(p);
            std::stringstream t;
            t << f.rdbuf();
            return t.str();
        };
        // "0 errors" means something only if the candidate ran under the tool: the
        // runner must have answered with a result line.
        const std::string out = slurp(dir / (tool + ".out"));
        std::string err = slurp(dir / (tool + ".err"));
        if (err.size() > 400) err = err.substr(err.size() - 400);
        r = sanitizerReportOfRun(tool, slurp(logPath), out.find("\"type\":\"result\"") != std::string::npos,
            "exit status " + std::to_string(WEXITSTATUS(status)) + (err.empty() ? "" : ": " + err));
        fs::remove_all(dir, ec);
        reports.push_back(r);
    }
    return reports;
}

} // namespace kwb::gpu
