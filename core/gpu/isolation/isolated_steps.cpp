#include "gpu/isolation/isolated_steps.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "gpu/device/gpu_check.h"
#include "gpu/isolation/candidate_host.h"
#include "gpu/pipeline/run_steps.h"
#include "gpu/timing/timed_run.h"
#include "rerun/rerun_types.h"

namespace kwb::gpu {

namespace {

using Clock = std::chrono::steady_clock;

CandidateHost* hostOf(const RunContext& ctx)
{
    return ctx.library ? ctx.library->host.get() : nullptr;
}

double median(std::vector<double> v)
{
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Host-timed calls: enough to take a median, few enough to cost little.
constexpr int kHostTimedCalls = 10;

} // namespace

void beginIsolatedRun(RunContext& ctx)
{
    if (CandidateHost* h = hostOf(ctx)) h->beginRun(ctx.request.options.timeoutS);
}

RerunStatus candidateFailureStatus(const RunContext& ctx, RerunStatus hint)
{
    const CandidateHost* h = hostOf(ctx);
    return h ? h->failureStatus(hint) : hint;
}

bool timedByHost(const RunContext& ctx)
{
    return hostOf(ctx) != nullptr;
}

std::optional<HostFreshInputs> hostFreshInputs(const RunContext& ctx, std::uint64_t trialBase, int every,
    const std::vector<std::vector<DeviceBuffer>>& snapshots)
{
    const auto bufferOf = [&ctx](const void* p) -> int {
        auto it = std::find(ctx.soBuffers.begin(), ctx.soBuffers.end(), p);
        return it == ctx.soBuffers.end() ? -1 : static_cast<int>(it - ctx.soBuffers.begin());
    };
    HostFreshInputs f;
    const TimedSeeds seeds = timedSeeds(ctx);
    f.seedBase = seeds.base;
    f.fixed = seeds.fixed;
    f.trialBase = trialBase;
    f.every = every;
    for (const auto& in : ctx.inputs) {
        const int b = bufferOf(in.data.get());
        if (b < 0) continue; // not the candidate's to read: the runner draws it after the loop
        f.inputs.push_back({b, in.count(), in.type, inputParamsOf(in), static_cast<std::uint64_t>(in.index)});
    }
    for (const auto& out : ctx.outputs) {
        const int b = bufferOf(out.data.get());
        if (b < 0) return std::nullopt;
        f.outputBuffers.push_back(b);
        f.outputBytes.push_back(out.count() * elemBytes(out.type));
    }
    for (const auto& slot : snapshots) {
        std::vector<void*> ptrs;
        for (const auto& b : slot) ptrs.push_back(b.get());
        f.snapshots.push_back(std::move(ptrs));
    }
    return f;
}

Status timeIsolatedCandidate(RunContext& ctx, const HostFreshInputs* fresh, std::vector<int>& kept)
{
    CandidateHost& host = *hostOf(ctx);
    const RerunOptions& o = ctx.request.options;
    RerunResult& r = ctx.result;
    const TimingConfig config = timingConfigFor(o);
    KWB_RETURN_IF_ERROR(host.time(ctx.soBuffers, ctx.sizeArgs, ctx.gpu.stream, config, o.cupti, r.candidateTiming,
        r.candidateCupti, fresh, kept));
    // The runner's own clock: each call synchronised, the channel's round trip
    // taken out. The child cannot make this clock run slower, so a host that
    // reports event times its calls do not take shows here.
    const int calls = std::max(1, std::min(kHostTimedCalls, config.trials));
    std::vector<double> pings, candidate, reference;
    for (int i = 0; i < calls; ++i) {
        KWB_ASSIGN_OR_RETURN(double p, host.pingMs());
        pings.push_back(p);
    }
    const double ping = median(pings);
    KWB_RETURN_IF_ERROR(host.launch(ctx.soBuffers, ctx.sizeArgs, ctx.gpu.stream)); // attached, warm
    for (int i = 0; i < calls; ++i) {
        KWB_CUDA_CHECK(cudaStreamSynchronize(ctx.gpu.stream));
        const auto t0 = Clock::now();
        KWB_RETURN_IF_ERROR(host.relaunch(ctx.gpu.stream));
        candidate.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(Clock::now() - t0).count() - ping));
    }
    if (o.timeReference) {
        for (int i = 0; i < calls; ++i) {
            KWB_CUDA_CHECK(cudaStreamSynchronize(ctx.gpu.stream));
            const auto t0 = Clock::now();
            KWB_RETURN_IF_ERROR(runReference(ctx, ctx.gpu.stream));
            KWB_CUDA_CHECK(cudaDeviceSynchronize());
            reference.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
    }
    IsolationReport& rep = host.report();
    rep.hostCandidateMs = median(candidate);
    if (!reference.empty()) rep.hostReferenceMs = median(reference);
    rep.hostTrials = calls;
    return Status::ok();
}

void finishIsolation(RunContext& ctx)
{
    if (ctx.request.candidate.form != CandidateForm::SharedObject) return;
    if (CandidateHost* h = hostOf(ctx)) {
        h->detach(); // the buffers are freed with the request
        applyIsolationMembers(ctx.result, h->report());
        return;
    }
    IsolationReport rep;
    rep.separate = false;
    rep.whyNot = "isolation switched off (KWB_ISOLATION=off): the candidate ran in the runner";
    if (ctx.library) applyIsolationMembers(ctx.result, rep);
}

} // namespace kwb::gpu
