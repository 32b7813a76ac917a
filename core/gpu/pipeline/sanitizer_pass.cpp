#include "gpu/pipeline/sanitizer_pass.h"

#include <sys/wait.h>
#include <unistd.h>

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
    SanitizerReport r;
    r.tool = std::string(tool);
    std::string block;
    bool inBlock = false;
    bool haveFirst = false;
    std::size_t start = 0;
    while (start <= log.size()) {
        std::size_t end = log.find('\n', start);
        if (end == std::string_view::npos) end = log.size();
        std::string_view line = log.substr(start, end - start);
        start = end + 1;
        constexpr std::string_view prefix = "========= ";
        if (line.rfind(prefix, 0) != 0) {
            if (end == log.size()) break;
            continue;
        }
        std::string_view body = line.substr(prefix.size());
        if (body.rfind("ERROR SUMMARY:", 0) == 0) {
            r.errors = std::strtoll(std::string(body.substr(14)).c_str(), nullptr, 10);
            inBlock = false;
        } else if (!haveFirst && !body.empty() && body.front() != ' '
            && (body.find("Invalid") != std::string_view::npos || body.find("Uninitialized") != std::string_view::npos
                || body.find("Race") != std::string_view::npos || body.find("hazard") != std::string_view::npos
                || body.find("Error") != std::string_view::npos || body.find("error") != std::string_view::npos)
            && body.find("COMPUTE-SANITIZER") == std::string_view::npos && body.find("SUMMARY") == std::string_view::npos
            && body.find("Target application") == std::string_view::npos) {
            block = std::string(body);
            inBlock = true;
            haveFirst = true;
        } else if (inBlock && !body.empty() && body.front() == ' ') {
            if (block.size() < 600) block += "\n" + std::string(body.substr(body.find_first_not_of(' ')));
        } else {
            inBlock = false;
        }
        if (end == log.size()) break;
    }
    r.firstReport = block;
    return r;
}

std::vector<SanitizerReport> runSanitizerPass(const RerunRequest& request, const std::string& runnerPath,
    double timeoutS)
{
    std::vector<SanitizerReport> reports;
    const std::string sanitizer = computeSanitizerPath();
    RerunRequest child = request;
    child.options.sanitize.clear();
    child.options.trials = 0;
    child.options.perCall = false;
    child.options.adversarial = false;
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
        const long seconds = static_cast<long>(std::max(10.0, timeoutS * 10.0));
        const std::string cmd = "timeout " + std::to_string(seconds) + " " + shellQuote(sanitizer) + " --tool " + tool
            + " --log-file " + shellQuote(logPath.string()) + " --print-limit 20 " + shellQuote(runnerPath)
            + " --correctness-only > /dev/null 2>&1";
        FILE* pipe = ::popen(cmd.c_str(), "w");
        if (!pipe) {
            r.errors = -1;
            r.firstReport = "could not start " + sanitizer;
            reports.push_back(r);
            continue;
        }
        std::fwrite(input.data(), 1, input.size(), pipe);
        const int status = ::pclose(pipe);
        std::ifstream in(logPath);
        std::stringstream text;
        text << in.rdbuf();
        r = parseSanitizerLog(tool, text.str());
        if (text.str().empty()) {
            r.errors = -1;
            r.firstReport = "compute-sanitizer wrote no report (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
        }
        fs::remove_all(dir, ec);
        reports.push_back(r);
    }
    return reports;
}

} // namespace kwb::gpu
