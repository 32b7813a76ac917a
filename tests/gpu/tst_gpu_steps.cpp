// The executor's steps (gpu/pipeline/run_steps.h) one at a time over a
// RunContext, each checked for what it adds: prepare resolves sizes and
// tensors without GPU work, compile loads the module, allocate gives every
// tensor its buffers, inputs depend on the trial's seed only, coverage scans
// both passes, correctness fills the per-output and per-input checks, timing
// the timings and CUPTI. Then the same request through serveRun and through
// GpuExecutor::execute must give the same verdict as the steps did.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/checks/input_generator.h"
#include "gpu/device/elem_type.h"
#include "gpu/pipeline/gpu_executor.h"
#include "gpu/pipeline/run_context.h"
#include "gpu/pipeline/run_steps.h"
#include "fixture_request.h"
#include "gpu_test.h"

namespace {

constexpr const char* kTestName = "tst_gpu_steps";

kwb::RerunRequest request(const std::string& problem, const std::string& candidate)
{
    return kwb::gputest::fixtureRequest(problem, candidate, 10, 2, 2);
}

std::uint64_t inputHash(kwb::gpu::RunContext& ctx, const kwb::gpu::Tensor& t)
{
    auto h = kwb::gpu::hashDeviceBytes(t.data.get(), t.count() * kwb::gpu::elemBytes(t.type), ctx.gpu.hashScratch,
        ctx.gpu.stream);
    GT_OK(h);
    return h ? *h : 0;
}

// Each step on its own, in order; returns the coverage the steps measured.
double stepByStep(kwb::gpu::GpuResources& gpu, const std::string& problem, const std::string& candidate)
{
    std::printf("%s/%s step by step\n", problem.c_str(), candidate.c_str());
    const kwb::RerunRequest req = request(problem, candidate);
    kwb::RerunResult r;
    kwb::TaskContext task;
    std::vector<std::string> stages;
    task.progress = [&](const kwb::Progress& p) {
        if (stages.empty() || stages.back() != p.stage) stages.push_back(p.stage);
    };
    kwb::gpu::RunContext ctx(gpu, req, task, r);

    GT_OK(kwb::gpu::prepareStep(ctx));
    GT_CHECK(!ctx.sizes.empty() && r.sizes == ctx.sizes);
    GT_CHECK(ctx.tolerance.atol > 0 && ctx.tolerance.rtol > 0);
    GT_CHECK_EQ(ctx.inputs.size(), req.problem.inputs.size());
    GT_CHECK_EQ(ctx.outputs.size(), req.problem.outputs.size());
    for (const auto& t : ctx.outputs) GT_CHECK(t.data.get() == nullptr); // nothing allocated yet
    GT_CHECK(r.rooflineFloorMs && *r.rooflineFloorMs > 0);
    GT_CHECK(stages.empty());

    GT_OK(kwb::gpu::compileStep(ctx));
    GT_CHECK(!ctx.stopped);
    GT_CHECK(ctx.module || ctx.library);
    GT_CHECK(!stages.empty() && stages.back() == "compile");

    GT_OK(kwb::gpu::allocateStep(ctx));
    for (const auto& t : ctx.inputs) GT_CHECK(t.data.get() != nullptr);
    for (const auto& t : ctx.outputs) GT_CHECK(t.data.get() != nullptr && t.reference.get() != nullptr);

    // Inputs are a function of the trial: trial 1 twice is the same bytes, trial 2 is not.
    GT_OK(kwb::gpu::inputsStep(ctx, 1));
    const std::uint64_t first = inputHash(ctx, ctx.inputs[0]);
    GT_OK(kwb::gpu::inputsStep(ctx, 2));
    const std::uint64_t second = inputHash(ctx, ctx.inputs[0]);
    GT_OK(kwb::gpu::inputsStep(ctx, 1));
    GT_CHECK_EQ(inputHash(ctx, ctx.inputs[0]), first);
    if (req.problem.seed.kind != kwb::SeedPolicy::Kind::Fixed) GT_CHECK(first != second);

    GT_CHECK(r.coverage.empty());
    GT_OK(kwb::gpu::coverageStep(ctx));
    GT_CHECK(!ctx.stopped);
    GT_CHECK_EQ(r.coverage.size(), ctx.outputs.size());
    GT_CHECK(r.outputs.empty()); // coverage alone fills no correctness checks

    GT_OK(kwb::gpu::correctnessStep(ctx));
    GT_CHECK(!ctx.stopped);
    GT_CHECK_EQ(r.outputs.size(), ctx.outputs.size());
    GT_CHECK_EQ(r.inputs.size(), ctx.inputs.size());
    for (const auto& o : r.outputs) GT_CHECK_EQ(o.trials, 2);
    GT_CHECK(!r.candidateTiming);

    GT_OK(kwb::gpu::timingStep(ctx));
    GT_CHECK(!ctx.stopped);
    GT_CHECK(r.candidateTiming && r.candidateTiming->trials == 10);
    GT_CHECK(r.referenceTiming && r.speedup);
    GT_CHECK(r.candidateCupti.available || !r.candidateCupti.note.empty());
    GT_CHECK(!stages.empty() && stages.back() == "reference");

    const double cov = r.minCoverage();
    std::printf("  coverage %.4f, passed %d, median %.4f ms\n", cov, r.allOutputsPassed(),
        r.candidateTiming ? r.candidateTiming->medianMs : -1.0);

    // The same request through the executor: the steps' verdict.
    kwb::gpu::GpuExecutor ex;
    auto whole = ex.execute(req, {});
    GT_OK(whole);
    if (whole) {
        GT_CHECK(whole->status == kwb::RerunStatus::Ok);
        GT_CHECK(whole->minCoverage() == cov);
        GT_CHECK_EQ(whole->allOutputsPassed(), r.allOutputsPassed());
        GT_CHECK_EQ(whole->coverage.size(), r.coverage.size());
        for (std::size_t i = 0; i < r.outputs.size() && i < whole->outputs.size(); ++i) {
            GT_CHECK_EQ(whole->outputs[i].trialsPassed, r.outputs[i].trialsPassed);
            GT_CHECK_EQ(whole->outputs[i].outOfTolerance, r.outputs[i].outOfTolerance);
            GT_CHECK(whole->outputs[i].deterministic == r.outputs[i].deterministic);
        }
        for (std::size_t i = 0; i < r.inputs.size() && i < whole->inputs.size(); ++i)
            GT_CHECK(whole->inputs[i].hashBefore == r.inputs[i].hashBefore);
    }
    return cov;
}

} // namespace

int main()
{
    kwb::gputest::requireDevice(kTestName);
    kwb::gpu::GpuResources gpu;
    GT_OK(gpu.open());
    GT_CHECK(gpu.deviceOk());
    if (!gpu.deviceOk()) return kwb::gputest::finish(kTestName);

    GT_CHECK(stepByStep(gpu, "vector_add", "honest") == 1.0);
    GT_CHECK(stepByStep(gpu, "relu", "honest_so") == 1.0);
    const double partial = stepByStep(gpu, "vector_add", "partial_write");
    GT_CHECK(partial > 0.002 && partial < 0.004);

    // A failing step stops the run and says why; later steps are not needed to know it.
    {
        kwb::RerunRequest req = request("vector_add", "honest");
        req.candidate.source = "this is not CUDA";
        kwb::RerunResult r;
        kwb::gpu::RunContext ctx(gpu, req, {}, r);
        GT_OK(kwb::gpu::prepareStep(ctx));
        GT_OK(kwb::gpu::compileStep(ctx));
        GT_CHECK(ctx.stopped);
        GT_CHECK(r.status == kwb::RerunStatus::CompileError);
        GT_CHECK(!r.message.empty());
    }
    return kwb::gputest::finish(kTestName);
}
