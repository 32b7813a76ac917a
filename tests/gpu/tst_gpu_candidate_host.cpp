// The shared-object candidate host (gpu/isolation): its channel and its
// timing check everywhere; its start-up (spawn, sandbox, CUDA) on any machine
// (without a device it must fail cleanly, naming the sandbox it entered);
// with a device, the tampering fixtures of tests/data/candidates/tamper and
// the honest shared objects isolated and in-process: honest verdicts equal,
// each tampering attempt failing to cheat, and what the separation costs per
// re-run (cold: the host starts; warm: it is up), printed as ISOLATION_COST.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/isolation/candidate_host.h"
#include "gpu/isolation/host_channel.h"
#include "gpu/pipeline/run_context.h"
#include "gpu/pipeline/run_steps.h"
#include "fixture_request.h"
#include "gpu_test.h"
#include "sandbox/sandbox.h"

namespace {

constexpr const char* kTestName = "tst_gpu_candidate_host";
using Clock = std::chrono::steady_clock;

void channelFrames()
{
    std::printf("channel frames\n");
    int p[2];
    GT_CHECK(::pipe(p) == 0);
    GT_OK(kwb::gpu::writeFrame(p[1], {{"reply", "pong"}}));
    auto j = kwb::gpu::readFrame(p[0], 1.0);
    GT_OK(j);
    GT_CHECK(j && (*j)["reply"] == "pong");
    // A forged result line written into the channel is not a frame.
    const char forged[] = "{\"protocol\":\"kwb.rerun/1\",\"type\":\"result\"}\n";
    GT_CHECK(::write(p[1], forged, sizeof forged - 1) > 0);
    auto bad = kwb::gpu::readFrame(p[0], 1.0);
    GT_CHECK(!bad && bad.status().code() == kwb::ErrorCode::ParseError);
    int q[2];
    GT_CHECK(::pipe(q) == 0);
    auto late = kwb::gpu::readFrame(q[0], 0.05);
    GT_CHECK(!late && late.status().code() == kwb::ErrorCode::Timeout);
    ::close(q[1]);
    auto eof = kwb::gpu::readFrame(q[0], 1.0);
    GT_CHECK(!eof && eof.status().code() == kwb::ErrorCode::IoError);
    for (int fd : {p[0], p[1], q[0]}) ::close(fd);
}

void timingCheck()
{
    std::printf("strict timing check\n");
    kwb::TimingStats t = kwb::summarizeTimings({1.0, 1.1, 1.2, 1.0, 0.9});
    GT_CHECK(kwb::gpu::implausibleHostTiming(t, 5, 20.0).empty());
    GT_CHECK(!kwb::gpu::implausibleHostTiming(t, 10, 20.0).empty()); // not the trials asked for
    GT_CHECK(!kwb::gpu::implausibleHostTiming(t, 5, 2.0).empty());   // more time than the batch took
    // Under a time budget the host may stop early, never below the least asked for.
    GT_CHECK(kwb::gpu::implausibleHostTiming(t, 100, 20.0, 5).empty());
    GT_CHECK(!kwb::gpu::implausibleHostTiming(t, 100, 20.0, 6).empty());
    GT_CHECK(!kwb::gpu::implausibleHostTiming(t, 4, 20.0, 2).empty()); // more than asked for
    kwb::TimingStats bad = t;
    bad.medianMs = bad.maxMs * 2;
    GT_CHECK(!kwb::gpu::implausibleHostTiming(bad, 5, 20.0).empty());
    // The trials a host set aside for fresh inputs: exactly the checked trials of what it ran.
    GT_CHECK(kwb::gpu::implausibleKeptTrials({9, 19}, 20, 10, 2).empty());
    GT_CHECK(kwb::gpu::implausibleKeptTrials({9}, 10, 10, 2).empty()); // a budget cut it to 10
    GT_CHECK(!kwb::gpu::implausibleKeptTrials({19}, 20, 10, 2).empty()); // one left out
    GT_CHECK(!kwb::gpu::implausibleKeptTrials({9, 18}, 20, 10, 2).empty()); // not a checked trial
    GT_CHECK(!kwb::gpu::implausibleKeptTrials({}, 20, 10, 2).empty());
}

void hostStartsOrSaysWhy(bool device)
{
    std::printf("host start-up (%s)\n", device ? "device" : "no device");
    auto h = kwb::gpu::CandidateHost::start("/nonexistent/libmissing.so", "missing.cu");
    GT_CHECK(!h);
    if (h) return;
    const std::string m = h.status().message();
    std::printf("  %s\n", m.c_str());
    if (device) {
        GT_CHECK(h.status().code() == kwb::ErrorCode::InvalidArgument);
        GT_CHECK(m.find("dlopen failed") != std::string::npos);
    } else {
        GT_CHECK(m.find("CUDA initialisation in the candidate host failed") != std::string::npos);
        // The sandbox is entered after CUDA starts (the default order): CUDA failed first.
        GT_CHECK(m.find("sandbox none") != std::string::npos);
        // Entered before CUDA (KWB_SANDBOX_ORDER=early) the report names what was applied.
        ::setenv("KWB_SANDBOX_ORDER", "early", 1);
        auto early = kwb::gpu::CandidateHost::start("/nonexistent/libmissing.so", "missing.cu");
        ::unsetenv("KWB_SANDBOX_ORDER");
        GT_CHECK(!early);
        if (!early && kwb::sandbox::landlockAbi() > 0)
            GT_CHECK(early.status().message().find("landlock+seccomp") != std::string::npos);
    }
}

struct Run {
    kwb::RerunResult result;
    kwb::gpu::IsolationReport report;
    double ms = 0;
};

Run runOnce(kwb::gpu::GpuResources& gpu, const std::string& problem, const std::string& candidate,
    double timingBudgetS = 0.0)
{
    kwb::RerunRequest req = kwb::gputest::fixtureRequest(problem, candidate, 20, 3, 2);
    req.options.timingBudgetS = timingBudgetS;
    Run run;
    kwb::TaskContext task;
    const auto t0 = Clock::now();
    {
        kwb::gpu::RunContext ctx(gpu, req, task, run.result);
        GT_OK(kwb::gpu::serveRun(ctx));
        if (ctx.library && ctx.library->host) run.report = ctx.library->host->report();
    }
    run.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const auto& r = run.result;
    std::printf("  %s/%s: %s%s%s, %.1f ms, host %s, violations %zu\n", problem.c_str(), candidate.c_str(),
        kwb::rerunStatusName(r.status), r.message.empty() ? "" : ": ", r.message.c_str(), run.ms,
        run.report.separate ? run.report.sandbox.c_str() : "none", run.report.violations.size());
    for (const auto& v : run.report.violations) std::printf("    violation: %s\n", v.c_str());
    return run;
}

void setIsolation(bool on)
{
    ::setenv("KWB_ISOLATION", on ? "on" : "off", 1);
}

bool sameVerdict(const kwb::RerunResult& a, const kwb::RerunResult& b)
{
    if (a.status != b.status || a.outputs.size() != b.outputs.size() || a.coverage.size() != b.coverage.size())
        return false;
    for (std::size_t i = 0; i < a.outputs.size(); ++i)
        if (a.outputs[i].passed != b.outputs[i].passed || a.outputs[i].deterministic != b.outputs[i].deterministic)
            return false;
    for (std::size_t i = 0; i < a.coverage.size(); ++i)
        if (a.coverage[i].coverage.writtenFraction != b.coverage[i].coverage.writtenFraction) return false;
    return true;
}

void honestEqualBothWays(kwb::gpu::GpuResources& gpu, const std::string& problem, const std::string& candidate)
{
    setIsolation(false);
    const Run local = runOnce(gpu, problem, candidate);
    setIsolation(true);
    const Run isolated = runOnce(gpu, problem, candidate);
    GT_CHECK(isolated.report.separate);
    GT_CHECK(isolated.report.violations.empty());
    GT_CHECK(sameVerdict(local.result, isolated.result));
    GT_CHECK(isolated.result.candidateTiming.has_value());
    GT_CHECK(isolated.report.hostCandidateMs && *isolated.report.hostCandidateMs > 0);
    if (kwb::sandbox::landlockAbi() > 0) GT_CHECK(isolated.report.sandbox == "landlock+seccomp");
}

void tampering(kwb::gpu::GpuResources& gpu)
{
    setIsolation(true);
    const Run forged = runOnce(gpu, "relu", "../tamper/forged_result_line");
    GT_CHECK(forged.result.status == kwb::RerunStatus::Fault);
    GT_CHECK(!forged.report.violations.empty());
    for (const char* honest : {"../tamper/proc_mem_write", "../tamper/ptrace_parent", "../tamper/scan_device_allocations"}) {
        const Run r = runOnce(gpu, "relu", honest);
        GT_CHECK(r.result.status == kwb::RerunStatus::Ok && r.result.allOutputsPassed());
        GT_CHECK(r.report.violations.empty());
    }
    // The patch fails to cheat when the events it reports are the honest ones (it
    // did not reach the host's timer), or is caught when the runner's clock disagrees.
    const Run honestRun = runOnce(gpu, "relu", "honest_so");
    const Run timer = runOnce(gpu, "relu", "../tamper/patched_event_timer");
    GT_CHECK(timer.result.status == kwb::RerunStatus::Ok);
    GT_CHECK(timer.result.candidateTiming && timer.report.hostCandidateMs && honestRun.result.candidateTiming);
    if (timer.result.candidateTiming && timer.report.hostCandidateMs && honestRun.result.candidateTiming) {
        const double events = timer.result.candidateTiming->medianMs;
        const double honestEvents = honestRun.result.candidateTiming->medianMs;
        const double ratio = *timer.report.hostCandidateMs / std::max(1e-6, events);
        std::printf("  patched timer: host %.4f ms per call, events %.4f ms (x%.1f), honest events %.4f ms\n",
            *timer.report.hostCandidateMs, events, ratio, honestEvents);
        GT_CHECK(events > 0.5 * honestEvents || ratio > 5.0);
    }
    // In-process the reach works: the mem write opens and the fixture skips its work.
    setIsolation(false);
    const Run reached = runOnce(gpu, "relu", "../tamper/proc_mem_write");
    GT_CHECK(!reached.result.allOutputsPassed());
    setIsolation(true);
}

// Fresh input contents inside the host's loop: the content-memoization fixture
// serves stale outputs there as in the runner, an honest one passes; under a
// budget that cuts 20 trials to 10 the checked trial is the last that ran.
void freshInputsInTheHost(kwb::gpu::GpuResources& gpu)
{
    auto fresh = [](const Run& r) { return r.result.freshInputs.value_or(kwb::FreshInputsCheck{}); };
    for (bool isolated : {true, false}) {
        setIsolation(isolated);
        const Run honest = runOnce(gpu, "relu", "honest_so");
        GT_CHECK(honest.result.freshInputs.has_value());
        GT_CHECK(fresh(honest).timedIterations == 20 && fresh(honest).checked == 2 && fresh(honest).failed == 0);
        GT_CHECK(honest.report.violations.empty());
        const Run memo = runOnce(gpu, "relu", "memoize_timing");
        std::printf("  memoize_timing (%s): fresh inputs checked %d, failed %d\n", isolated ? "isolated" : "in-process",
            fresh(memo).checked, fresh(memo).failed);
        GT_CHECK(memo.result.freshInputs.has_value() && fresh(memo).failed > 0);
        const Run cut = runOnce(gpu, "relu", "honest_so", 1e-6);
        std::printf("  honest_so under a budget (%s): %d trials, fresh checked %d, failed %d\n",
            isolated ? "isolated" : "in-process", cut.result.candidateTiming ? cut.result.candidateTiming->trials : -1,
            fresh(cut).checked, fresh(cut).failed);
        GT_CHECK(cut.result.candidateTiming && cut.result.candidateTiming->trials == 10);
        GT_CHECK(fresh(cut).timedIterations == 10 && fresh(cut).checked == 1 && fresh(cut).failed == 0);
        GT_CHECK(cut.result.status == kwb::RerunStatus::Ok && cut.report.violations.empty());
    }
    setIsolation(true);
}

// Cold: fresh GPU resources, so a fresh library cache and (isolated) a host
// that starts inside the timed re-run; warm: the next re-runs on the same ones.
// The compile cache on disk is warm for both (compilation is not the separation's cost).
void cost()
{
    std::printf("cost per re-run (relu/honest_so)\n");
    auto measure = [](bool isolated) {
        setIsolation(isolated);
        kwb::gpu::GpuResources g;
        GT_OK(g.open());
        std::vector<double> ms;
        for (int i = 0; i < 4; ++i) ms.push_back(runOnce(g, "relu", "honest_so").ms);
        return ms;
    };
    const std::vector<double> iso = measure(true);
    const std::vector<double> local = measure(false);
    setIsolation(true);
    auto warm = [](const std::vector<double>& v) { return (v[1] + v[2] + v[3]) / 3.0; };
    std::printf("ISOLATION_COST {\"isolated_cold_ms\": %.2f, \"isolated_warm_ms\": %.2f, \"in_process_cold_ms\": %.2f, "
                "\"in_process_warm_ms\": %.2f}\n",
        iso[0], warm(iso), local[0], warm(local));
}

} // namespace

int main()
{
    channelFrames();
    timingCheck();
    std::string why;
    const bool device = kwb::gpu::deviceCount(&why) > 0;
    hostStartsOrSaysWhy(device);
    if (!device) {
        std::printf("SKIP: %s: device part: no CUDA device (%s)\n", kTestName, why.c_str());
        return kwb::gputest::failures() ? kwb::gputest::finish(kTestName) : 77;
    }
    kwb::gputest::requireDevice(kTestName);
    kwb::gpu::GpuResources gpu;
    GT_OK(gpu.open());
    // Compile first (cold cache), so the cost below is the separation's alone.
    setIsolation(true);
    (void)runOnce(gpu, "relu", "honest_so");
    cost();
    honestEqualBothWays(gpu, "relu", "honest_so");
    honestEqualBothWays(gpu, "softmax_rows", "two_pass_so");
    tampering(gpu);
    freshInputsInTheHost(gpu);
    return kwb::gputest::finish(kTestName);
}
