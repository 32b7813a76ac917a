#include "simulated_executor.h"

#include <algorithm>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include <unistd.h>

#include "problems/coverage_grid.h"
#include "problems/output_metrics.h"

namespace kwbtest {

using namespace kwb;

Result<Capabilities> SimulatedExecutor::capabilities()
{
    Capabilities c;
    c.runnerVersion = "simulated";
    c.devicePresent = m_devicePresent;
    if (m_devicePresent) {
        c.device.name = "Simulated GPU";
        c.device.smCount = 1;
        c.device.peakBandwidthBytesPerS = 1e12;
        c.device.peakFp32FlopsPerS = 1e13;
    } else {
        c.reason = "no CUDA device (simulated)";
    }
    c.references = {"vector_add", "relu", "scale"};
    return c;
}

Result<RerunResult> SimulatedExecutor::execute(const RerunRequest& request, const TaskContext& ctx)
{
    ++m_calls;
    const std::string& id = request.candidate.id;
    RerunResult r;
    r.id = request.id;
    r.problemId = request.problem.id;
    r.candidateId = id;
    r.device.name = "Simulated GPU";
    r.precision = request.problem.precision;
    r.tolerance = resolveTolerance(request.problem.tolerance, request.problem.precision);
    if (!m_devicePresent) {
        r.status = RerunStatus::NoDevice;
        r.message = "no CUDA device (simulated)";
        return r;
    }
    ctx.report("compile", 0, 1);
    if (id.find("crash") != std::string::npos) std::abort();
    if (id.find("segv") != std::string::npos) std::raise(SIGSEGV);
    if (id.find("hang") != std::string::npos)
        while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (id.find("slow") != std::string::npos) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // A compute-sanitizer pass: longer than the candidate's own limit, within the pass's.
    if (id.find("sanitized") != std::string::npos) std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    if (id.find("garbage") != std::string::npos && m_protocolFd >= 0) {
        const char stray[] = "this is not JSON\n{\"protocol\":\"kwb.rerun/0\",\"type\":\"result\"}\n\n[1,2,3]\n";
        (void)!::write(m_protocolFd, stray, sizeof stray - 1);
    }
    if (id.find("fatal") != std::string::npos) {
        r.status = RerunStatus::Fault;
        r.message = "an illegal memory access was encountered (simulated sticky error)";
        r.fatal = true;
        return r;
    }
    ctx.report("correctness", 1, 1);

    auto sizes = resolveSizes(request.problem, request.options.sizes);
    if (!sizes) return sizes.status();
    r.sizes = *sizes;
    auto outputs = resolveTensors(request.problem.outputs, *sizes);
    if (!outputs) return outputs.status();
    // A KernelBench sample's output shape is whatever its Model returns; the
    // bridge learns it by running it. Stand in with a fixed one.
    if (request.candidate.form == CandidateForm::KernelBenchSample)
        for (auto& out : *outputs) out.shape = {64, 64};

    const bool zeros = id.find("zeros") != std::string::npos;
    // "partial_last": only the last output is written partially (worst-output coverage).
    const bool partialLast = id.find("partial_last") != std::string::npos;
    for (std::size_t o = 0; o < outputs->size(); ++o) {
        const auto& out = (*outputs)[o];
        const bool partial = partialLast ? o + 1 == outputs->size() : id.find("partial") != std::string::npos;
        // The reference of "scale" with a tiny alpha is what makes zeros pass.
        const std::int64_t n = std::min<std::int64_t>(out.elementCount(), 4096);
        std::vector<float> ref(static_cast<std::size_t>(n));
        const double alpha = request.problem.reference.params.count("alpha") ? request.problem.reference.params.at("alpha") : 1.0;
        for (std::int64_t i = 0; i < n; ++i) ref[i] = static_cast<float>(alpha * double((i * 7919) % 1000) / 1000.0);
        std::vector<float> got = ref;
        if (zeros) std::fill(got.begin(), got.end(), 0.0f);
        if (id.find("half") != std::string::npos)
            for (auto& v : got) v = v * (1.0f + 4e-4f);
        const auto m = compareOutputs(got, ref, r.tolerance);
        OutputCheck check;
        check.output = out.name;
        check.trials = request.options.correctnessTrials;
        check.passed = m.allclose;
        check.trialsPassed = m.allclose ? check.trials : 0;
        check.zerosPass = zerosPassAllclose(ref, r.tolerance);
        check.deterministic = true;
        check.count = m.count;
        check.outOfTolerance = m.outOfTolerance;
        check.outOfToleranceShare = m.outOfToleranceShare;
        check.firstMismatch = m.firstMismatch;
        check.maxAbsError = m.maxAbsError;
        check.relL2Error = m.relL2Error;
        check.refRms = m.refRms;
        check.maxErrorOverRefRms = m.maxErrorOverRefRms;
        r.outputs.push_back(check);

        auto layout = planCoverageLayout(out.shape, request.options.coverageRows, request.options.coverageCols);
        if (!layout) return layout.status();
        std::vector<std::int64_t> perTile(static_cast<std::size_t>(layout->tileCount()));
        const std::int64_t written = partial ? out.elementCount() * 3 / 1000 : out.elementCount();
        for (std::int64_t t = 0; t < layout->tileCount(); ++t) perTile[t] = tileElementCount(*layout, t);
        std::vector<std::int64_t> firstUnwritten;
        if (partial) {
            std::fill(perTile.begin(), perTile.end(), 0);
            for (std::int64_t i = 0; i < written; ++i) ++perTile[tileOfElement(*layout, i)];
            firstUnwritten.push_back(written);
        }
        OutputCoverage cov;
        cov.output = out.name;
        cov.coverage = coverageFromCounts(*layout, perTile, firstUnwritten);
        cov.sentinelA = 0x7FC00001u;
        cov.sentinelB = 0xFFC00002u;
        r.coverage.push_back(std::move(cov));
    }
    for (const auto& in : request.problem.inputs) {
        InputCheck c{in.name, "00aa", "00aa", false};
        if (id.find("mutate") != std::string::npos) {
            c.hashAfter = "11bb";
            c.mutated = true;
        }
        r.inputs.push_back(c);
    }
    r.candidateTiming = summarizeTimings({0.10, 0.11, 0.10, 0.12, 0.10});
    r.referenceTiming = summarizeTimings({0.20, 0.21, 0.20, 0.22, 0.20});
    r.speedup = r.referenceTiming->medianMs / r.candidateTiming->medianMs;
    r.candidateCupti.available = true;
    r.candidateCupti.timedStreamId = 7;
    r.candidateCupti.kernelCount = 1;
    r.candidateCupti.timedStreamKernels = 1;
    r.candidateCupti.streams = {7};
    r.candidateCupti.kernels.push_back({id + "_kernel", 7, 1, 0.1, false});
    if (id.find("side") != std::string::npos) {
        r.candidateCupti.otherStreamKernels = 5;
        r.candidateCupti.otherStreamMs = 0.5;
        r.candidateCupti.streams.push_back(13);
        r.candidateCupti.kernels.push_back({"reluKernel", 13, 5, 0.5, false});
    }
    // Issue 12's checks as the GPU executor reports them, with the fixtures' exploits
    // acted out by candidate id (memoize, drift, host_compute, cublas_only, batch_skip,
    // identity, oob), so the protocol, the flags, the table and the matrix are exercised.
    const RerunOptions& o = request.options;
    for (std::string_view c : {check::kCoverage, check::kCorrectness, check::kDeterminism, check::kInputHashes,
             check::kTiming})
        r.markCheck(c);
    if (o.resetPersistingL2) r.markCheck(check::kPersistingL2Reset);
    if (o.freshInputs) {
        const bool stale = id.find("memoize") != std::string::npos || id.find("drift") != std::string::npos
            || id.find("batch_skip") != std::string::npos || id.find("host_compute") != std::string::npos;
        r.freshInputs = FreshInputsCheck{o.trials, std::max(1, o.trials / 10), stale ? std::max(1, o.trials / 10) : 0,
            stale ? 0.8 : 1e-7, "5eed5eed5eed5eed"};
        r.markCheck(check::kFreshInputs);
    }
    OwnKernels own;
    if (id.find("cublas_only") != std::string::npos) {
        r.candidateCupti.kernels = {{"sm90_xmma_gemm_f32f32_f32f32_f32_nn_n", 7, 1, 0.1, true}};
        own.libraryMs = own.totalMs = 0.1;
    } else {
        own.launched = {id + "_kernel"};
        own.ownMs = own.totalMs = 0.1;
        own.share = 1.0;
    }
    r.ownKernels = own;
    r.markCheck(check::kOwnKernels);
    if (o.postTiming && !r.outputs.empty()) {
        OutputCheck post = r.outputs.front();
        post.trials = 1;
        post.trialsPassed = id.find("drift") != std::string::npos ? 0 : 1;
        post.passed = post.trialsPassed == 1;
        if (!post.passed) post.relL2Error = 1.0;
        r.postTiming.push_back(post);
        r.markCheck(check::kPostTiming);
    }
    if (o.hostTimer) {
        HostTiming h;
        h.candidateMs = id.find("host_compute") != std::string::npos ? 0.7 : 0.105;
        h.trials = 5;
        r.hostTiming = h;
        r.markCheck(check::kHostTimer);
    }
    if (o.perCall) {
        PerCallTiming pc;
        const double perCallMs = id.find("batch_skip") != std::string::npos ? 0.5 : 0.11;
        pc.candidate = summarizeTimings({perCallMs, perCallMs});
        pc.checked = 2;
        r.perCallTiming = pc;
        r.markCheck(check::kPerCall);
    }
    if (o.adversarial) {
        const bool wrong = id.find("identity") != std::string::npos;
        r.adversarial.push_back({"signed", !wrong, wrong ? 1.2 : 1e-7, wrong ? 2.0 : 0.0, wrong ? "output 'out': relative L2 error above 0.001" : ""});
        r.markCheck(check::kAdversarial);
    }
    for (const auto& tool : o.sanitize) {
        const bool oob = id.find("oob") != std::string::npos && tool == "memcheck";
        r.sanitizer.push_back({tool, oob ? 4096 : 0, oob ? "Invalid __global__ read of size 4 bytes\nat relu_oob+0x90" : ""});
        r.markCheck(check::kSanitizer);
    }
    r.status = RerunStatus::Ok;
    r.wallMs = 1.0;
    ctx.report("timing", 1, 1);
    return r;
}

} // namespace kwbtest
