// GpuExecutor in-process on the honest fixtures and on the 0.3%-coverage
// exploit (the faulting and hanging ones need the isolated runner: kwb rerun
// covers those). Checks that every measured field is filled in and plausible:
// coverage and its grid, correctness on fresh inputs, determinism, input
// hashes, events and CUPTI on the timed stream, reference timing, roofline.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpu/pipeline/gpu_executor.h"
#include "fixture_request.h"
#include "gpu_test.h"

namespace {

constexpr const char* kTestName = "tst_gpu_executor";

kwb::RerunRequest request(const std::string& problem, const std::string& candidate)
{
    return kwb::gputest::fixtureRequest(problem, candidate, 20, 3, 2);
}

void checkHonest(kwb::gpu::GpuExecutor& ex, const std::string& problem, const std::string& candidate)
{
    std::printf("%s/%s\n", problem.c_str(), candidate.c_str());
    auto req = request(problem, candidate);
    int progressLines = 0;
    kwb::TaskContext ctx;
    ctx.progress = [&](const kwb::Progress&) { ++progressLines; };
    auto res = ex.execute(req, ctx);
    GT_OK(res);
    if (!res) return;
    const kwb::RerunResult& r = *res;
    std::printf("  status %s, %s\n", kwb::rerunStatusName(r.status), r.message.c_str());
    GT_CHECK(r.status == kwb::RerunStatus::Ok);
    GT_CHECK(!r.fatal);
    GT_CHECK(progressLines > 0);
    GT_CHECK(r.id == req.id);
    GT_CHECK_EQ(r.coverage.size(), req.problem.outputs.size());
    for (const auto& oc : r.coverage) {
        GT_CHECK(oc.coverage.writtenFraction && *oc.coverage.writtenFraction == 1.0);
        GT_CHECK(oc.coverage.firstUnwritten.empty());
        GT_CHECK(oc.coverage.grid.rows > 0 && oc.coverage.grid.cols > 0);
    }
    GT_CHECK_EQ(r.outputs.size(), req.problem.outputs.size());
    for (const auto& o : r.outputs) {
        std::printf("  %s: %d/%d passed, rel L2 %.3g, deterministic %d\n", o.output.c_str(), o.trialsPassed, o.trials,
            o.relL2Error, o.deterministic.value_or(false));
        GT_CHECK(o.passed);
        GT_CHECK_EQ(o.trials, 2);
        GT_CHECK(o.deterministic.value_or(false));
        GT_CHECK_EQ(o.nanCount, 0);
        GT_CHECK(o.relL2Error < 1e-5);
    }
    for (const auto& i : r.inputs) {
        GT_CHECK(!i.mutated);
        GT_CHECK(i.hashBefore == i.hashAfter && i.hashBefore.size() == 16);
    }
    GT_CHECK(r.candidateTiming && r.candidateTiming->trials == 20 && r.candidateTiming->medianMs > 0);
    GT_CHECK(r.referenceTiming && r.referenceTiming->medianMs > 0);
    GT_CHECK(r.speedup && *r.speedup > 0);
    GT_CHECK(r.candidateCupti.available);
    GT_CHECK(r.candidateCupti.timedStreamKernels >= 20);
    GT_CHECK_EQ(r.candidateCupti.otherStreamKernels, 0);
    // Events include a fixed dispatch gap, so they are never below the kernels' own time.
    if (r.candidateTiming && r.candidateCupti.timedStreamKernels > 0)
        GT_CHECK(r.candidateTiming->meanMs * 20 >= 0.95 * r.candidateCupti.kernelMs);
    GT_CHECK(r.rooflineFloorMs && *r.rooflineFloorMs > 0 && *r.rooflineFloorMs < r.candidateTiming->medianMs);
    GT_CHECK(r.wallMs > 0 && r.overheadMs >= 0 && r.overheadMs <= r.wallMs);
    std::printf("  median %.4f ms, reference %.4f ms, CUPTI %.4f ms/trial, compile %.1f ms (cached %d), overhead %.0f ms\n",
        r.candidateTiming->medianMs, r.referenceTiming->medianMs, r.candidateCupti.kernelMs / 20.0, r.compileMs,
        r.compileCacheHit, r.overheadMs);
}

} // namespace

int main()
{
    kwb::gputest::requireDevice(kTestName);
    kwb::gpu::GpuExecutor ex;
    auto caps = ex.capabilities();
    GT_OK(caps);
    if (caps) {
        GT_CHECK(caps->devicePresent);
        GT_CHECK(!caps->device.name.empty() && caps->device.smCount > 0);
        GT_CHECK(caps->device.peakBandwidthBytesPerS > 1e11);
    }
    checkHonest(ex, "vector_add", "honest");
    checkHonest(ex, "relu", "honest_so");
    checkHonest(ex, "softmax_rows", "honest");
    checkHonest(ex, "gemm", "honest");

    // The 0.3% exploit: counted exactly, first unwritten index right after the written prefix.
    auto req = request("vector_add", "partial_write");
    auto res = ex.execute(req, {});
    GT_OK(res);
    if (res) {
        GT_CHECK(res->status == kwb::RerunStatus::Ok);
        GT_CHECK_EQ(res->coverage.size(), 1u);
        if (!res->coverage.empty()) {
            const auto& c = res->coverage[0].coverage;
            const std::int64_t n = req.problem.sizes.at("N");
            GT_CHECK(c.writtenElements && *c.writtenElements == n * 3 / 1000);
            GT_CHECK(!c.firstUnwritten.empty() && c.firstUnwritten[0] == n * 3 / 1000);
            std::printf("partial_write: %lld of %lld written\n", static_cast<long long>(c.writtenElements.value_or(-1)),
                static_cast<long long>(n));
        }
        GT_CHECK(!res->outputs.empty() && !res->outputs[0].passed);
    }
    return kwb::gputest::finish(kTestName);
}
