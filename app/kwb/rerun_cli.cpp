#include "rerun_cli.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>

#include "base/mapped_file.h"
#include "commands.h"
#include "workbench/gpu_batch.h"
#include "workbench/run_summary.h"
#include "workbench/spec_index.h"

namespace kwb::cli {

namespace {

bool parseInt(const std::string& s, std::int64_t& out)
{
    try {
        std::size_t used = 0;
        out = std::stoll(s, &used);
        return used == s.size();
    } catch (const std::exception&) {
        return false;
    }
}

CancelFlag g_interrupted;

extern "C" void onInterrupt(int) { g_interrupted.cancel(); }

} // namespace

void addRerunOptions(ArgParser& p)
{
    p.option("trials", "N", "timed trials per kernel (candidate and reference)", "100");
    p.option("warmup", "N", "untimed runs before timing", "10");
    p.option("timing-budget", "SECONDS", "per timed kernel: fewer warm-ups and trials (at least 10) when a call is slow (0: none)", "0");
    p.option("correctness-trials", "N", "correctness trials, each on fresh inputs", "3");
    p.flag("no-l2-flush", "do not flush the L2 cache between timed trials");
    p.option("coverage", "ROWSxCOLS", "coverage-grid resolution", "32x32");
    p.option("timeout", "SECONDS", "kill the runner when a candidate takes longer than this", "120");
    p.option("seed", "N", "base seed of the input generator", "42");
    p.repeatedOption("size", "NAME=VALUE", "override a problem size");
    p.flag("no-reference-timing", "do not time the reference");
    p.flag("no-cupti", "no CUPTI activity tracing (no side-stream verdict)");
    p.option("excessive-speedup", "X", "flag speedups above X", "10");
    // Issue 12's checks (docs/security.md); the cheap ones are on by default.
    p.flag("no-fresh-inputs", "time every trial on the same inputs (no fresh contents, no check of timed outputs)");
    p.option("check-every", "K", "compare every K-th timed trial's output (rounded up to the timer's batch of 10)", "10");
    p.flag("no-post-timing", "no re-validation after the timing loop");
    p.flag("no-persisting-l2-reset", "leave persisting-L2 limits and access-policy windows as the candidate set them");
    p.flag("no-host-timer", "no host wall-clock timer beside the events and CUPTI");
    p.flag("legacy-checks", "only the checks of before issue 12 (for cost comparisons)");
    p.flag("per-call", "also time each call alone (synchronised) and check its output (batch-and-skip)");
    p.option("sanitize", "TOOLS", "re-run the correctness trials under compute-sanitizer: memcheck,initcheck,racecheck");
    p.flag("adversarial", "adversarial input sets (near max, near zero, mixed scales, all equal, signed) + bitwise runs");
    p.flag("odd-shapes", "one more correctness run at odd sizes (even sizes less one) where the problem allows; a failure is a note");
    p.option("runner", "PATH", "kwb-runner to use (default: $KWB_RUNNER, else next to kwb)");
    p.flag("verbose-runner", "copy the runner's stderr (compiler logs, device printf) to ours");
    p.flag("quiet", "no progress lines on stderr");
}

bool readRerunOptions(const ArgParser& p, const char* command, RerunOptions& o, FlagThresholds& t)
{
    const auto bad = [&](const char* what, const std::string& v) {
        std::fprintf(stderr, "kwb %s: --%s: invalid value '%s'\n", command, what, v.c_str());
        return false;
    };
    std::int64_t v = 0;
    for (const char* name : {"trials", "warmup", "correctness-trials"}) {
        const std::string s = *p.value(name);
        if (!parseInt(s, v) || v < 0 || v > 1000000) return bad(name, s);
        if (std::string(name) == "trials") o.trials = static_cast<std::int32_t>(v);
        else if (std::string(name) == "warmup") o.warmup = static_cast<std::int32_t>(v);
        else o.correctnessTrials = static_cast<std::int32_t>(v);
    }
    if (!parseDouble(*p.value("timing-budget"), o.timingBudgetS) || !(o.timingBudgetS >= 0) || o.timingBudgetS > 86400)
        return bad("timing-budget", *p.value("timing-budget"));
    o.l2Flush = !p.isSet("no-l2-flush");
    o.timeReference = !p.isSet("no-reference-timing");
    o.cupti = !p.isSet("no-cupti");
    {
        const std::string s = *p.value("coverage");
        const auto x = s.find('x');
        std::int64_t rows = 0;
        std::int64_t cols = 0;
        if (x == std::string::npos) {
            if (!parseInt(s, rows)) return bad("coverage", s);
            cols = rows;
        } else if (!parseInt(s.substr(0, x), rows) || !parseInt(s.substr(x + 1), cols)) {
            return bad("coverage", s);
        }
        if (rows < 1 || cols < 1 || rows > 4096 || cols > 4096) return bad("coverage", s);
        o.coverageRows = static_cast<std::int32_t>(rows);
        o.coverageCols = static_cast<std::int32_t>(cols);
    }
    if (!parseDouble(*p.value("timeout"), o.timeoutS) || !(o.timeoutS > 0)) return bad("timeout", *p.value("timeout"));
    if (!parseInt(*p.value("seed"), v) || v < 0) return bad("seed", *p.value("seed"));
    o.seed = static_cast<std::uint64_t>(v);
    for (const auto& s : p.values("size")) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0 || !parseInt(s.substr(eq + 1), v)) return bad("size", s);
        o.sizes[s.substr(0, eq)] = v;
    }
    const bool legacy = p.isSet("legacy-checks");
    o.freshInputs = !legacy && !p.isSet("no-fresh-inputs");
    o.postTiming = !legacy && !p.isSet("no-post-timing");
    o.resetPersistingL2 = !legacy && !p.isSet("no-persisting-l2-reset");
    o.hostTimer = !legacy && !p.isSet("no-host-timer");
    o.perCall = p.isSet("per-call");
    o.adversarial = p.isSet("adversarial");
    o.oddShapes = p.isSet("odd-shapes");
    if (!parseInt(*p.value("check-every"), v) || v < 1 || v > 1000000) return bad("check-every", *p.value("check-every"));
    o.checkEvery = static_cast<std::int32_t>(v);
    if (auto tools = p.value("sanitize")) {
        std::string rest = *tools;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const std::string tool = rest.substr(0, comma);
            if (!isSanitizerTool(tool))
                return bad("sanitize", *tools);
            o.sanitize.push_back(tool);
            rest = comma == std::string::npos ? std::string() : rest.substr(comma + 1);
        }
    }
    if (!parseDouble(*p.value("excessive-speedup"), t.excessiveSpeedup) || !(t.excessiveSpeedup > 0))
        return bad("excessive-speedup", *p.value("excessive-speedup"));
    return true;
}

bool parseDouble(const std::string& s, double& out)
{
    try {
        std::size_t used = 0;
        out = std::stod(s, &used);
        return used == s.size();
    } catch (const std::exception&) {
        return false;
    }
}

std::optional<int> gpuBuildCheck(const char* command)
{
#ifdef KWB_WITH_GPU
    (void)command;
    return std::nullopt;
#else
    std::fprintf(stderr,
        "kwb %s: this build has no GPU support (configured with KWB_ENABLE_CUDA=OFF); rebuild with the CUDA "
        "toolkit to re-run kernels\n",
        command);
    return kExitNotInBuild;
#endif
}

workbench::ExecutorConfig executorConfig(const ArgParser& p)
{
    workbench::ExecutorConfig c;
    c.runnerPath = p.value("runner").value_or(std::string());
    c.python = p.value("python").value_or(std::string());
    c.forwardStderr = p.isSet("verbose-runner");
    return c;
}

bool requireExecutor(workbench::ExecutorSet& executors, workbench::ExecutorKind kind, const char* command,
    int& exitCode)
{
    const workbench::Availability& a = executors.probe(kind);
    if (a.available) return true;
    std::fprintf(stderr, "kwb %s: %s\n", command, a.reason.c_str());
    exitCode = kExitErrors;
    return false;
}

Result<ProblemSpec> findProblem(const std::string& pathOrId, const std::vector<std::string>& dirs)
{
    std::error_code ec;
    if (std::filesystem::is_regular_file(pathOrId, ec)) return loadProblemSpec(pathOrId);
    if (pathOrId.size() > 5 && pathOrId.ends_with(".json"))
        return Status(ErrorCode::NotFound, "no such problem spec file", SourcePosition{pathOrId});
    workbench::SpecIndex index;
    std::string looked;
    for (const auto& dir : dirs) {
        looked += (looked.empty() ? "" : ", ") + dir;
        index.addDirectory(dir);
    }
    if (const ProblemSpec* p = index.problem(pathOrId)) return *p;
    return Status(ErrorCode::NotFound, "no problem spec with id '" + pathOrId + "' (looked in: " + looked + ")");
}

std::vector<std::string> defaultProblemDirs() { return {std::string(KWB_DATASET_DIR) + "/problems"}; }

std::vector<std::string> defaultCandidateDirs(const ProblemSpec& problem)
{
    namespace fs = std::filesystem;
    std::vector<std::string> dirs;
    std::error_code ec;
    if (!problem.specPath.empty()) {
        const fs::path sibling = fs::absolute(problem.specPath, ec).parent_path().parent_path() / "candidates";
        if (fs::is_directory(sibling, ec)) dirs.push_back(sibling.lexically_normal().string());
    }
    const fs::path dataset = fs::path(KWB_DATASET_DIR) / "candidates";
    if (fs::is_directory(dataset, ec)) {
        const std::string d = fs::absolute(dataset, ec).lexically_normal().string();
        if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    }
    return dirs;
}

ProgressFn StderrProgress::forItem(std::size_t index, std::size_t count, const std::string& name)
{
    if (!m_enabled) return {};
    // Each item keeps its own last stage: with one runner per GPU several run at once. Each line
    // says how long the stage before took, so a batch's log shows where a record's time goes.
    struct Last {
        std::string stage;
        std::chrono::steady_clock::time_point since;
    };
    auto last = std::make_shared<Last>();
    return [this, index, count, name, last](const Progress& p) {
        if (p.stage == last->stage) return;
        const auto now = std::chrono::steady_clock::now();
        char took[96] = "";
        if (!last->stage.empty())
            std::snprintf(took, sizeof took, " (after %.2f s of %s)",
                std::chrono::duration<double>(now - last->since).count(), last->stage.c_str());
        last->stage = p.stage;
        last->since = now;
        std::fprintf(stderr, "kwb %s: [%zu/%zu] %s: %s%s\n", m_command, index + 1, count, name.c_str(), p.stage.c_str(), took);
    };
}

const CancelFlag* installInterruptFlag()
{
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return &g_interrupted;
}

nlohmann::json placementJson(const GpuPlacement& gpu) { return nlohmann::json::parse(placementJsonText(gpu)); }

std::string placementsLine(const std::vector<GpuPlacement>& placements)
{
    std::map<std::int32_t, std::pair<std::string, int>> by; // GPU -> (name, jobs)
    for (const auto& g : placements) {
        auto& e = by[g.index];
        e.first = g.name.empty() ? g.visibleDevices : g.name;
        ++e.second;
    }
    std::string s = "ran on " + std::to_string(by.size()) + " GPU" + (by.size() == 1 ? "" : "s") + ":";
    for (const auto& [gpu, e] : by)
        s += " " + std::to_string(gpu) + " (" + e.first + ", " + std::to_string(e.second) + " job" + (e.second == 1 ? "" : "s") + ")";
    return s + "\n";
}

void addGpusOption(ArgParser& p)
{
    p.option("gpus", "LIST|all", "one isolated runner per GPU: all, or indices/UUIDs such as 0,1,3 (default: one runner)");
}

bool readGpusOption(const ArgParser& p, const char* command, std::vector<GpuPlacement>& gpus)
{
    auto g = p.value("gpus");
    if (!g) return true;
    auto resolved = resolveGpus(*g, GpuEnvironment::fromProcess());
    if (!resolved) {
        std::fprintf(stderr, "kwb %s: %s\n", command, resolved.status().toString().c_str());
        return false;
    }
    gpus = std::move(*resolved);
    return true;
}

std::optional<BatchRun> runBatch(workbench::ExecutorSet& executors, const std::vector<workbench::RerunJob>& jobs,
    const FlagThresholds& thresholds, const char* command, bool quiet, const std::vector<GpuPlacement>& gpus)
{
    const CancelFlag* interrupted = installInterruptFlag();
    StderrProgress progress(command, !quiet);
    BatchRun run;
    if (!gpus.empty()) {
        auto batch = workbench::runJobsOnGpus(executors, jobs, gpus, thresholds, interrupted,
            [&](std::size_t job, std::size_t gpu) {
                return progress.forItem(job, jobs.size(), jobs[job].request.candidate.id + " (GPU " + std::to_string(gpu) + ")");
            });
        if (!batch) {
            std::fprintf(stderr, "kwb %s: %s\n", command, batch.status().toString().c_str());
            return std::nullopt;
        }
        if (batch->cancelled) {
            std::fprintf(stderr, "kwb %s: interrupted\n", command);
            return std::nullopt;
        }
        run.outcomes = std::move(batch->outcomes);
        run.placements = std::move(batch->placements);
        run.poolRestarts = batch->restarts;
        return run;
    }
    std::vector<RerunOutcome>& outcomes = run.outcomes;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        TaskContext ctx;
        ctx.cancel = interrupted;
        ctx.progress = progress.forItem(i, jobs.size(), jobs[i].request.candidate.id);
        RerunOutcome o = workbench::runJob(executors, jobs[i], thresholds, ctx);
        if (o.error.code() == ErrorCode::Cancelled || interrupted->isCancelled()) {
            std::fprintf(stderr, "kwb %s: interrupted\n", command);
            return std::nullopt;
        }
        outcomes.push_back(std::move(o));
    }
    return run;
}

} // namespace kwb::cli
