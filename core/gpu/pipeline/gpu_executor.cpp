#include "gpu/pipeline/gpu_executor.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "gpu/isolation/isolated_steps.h"
#include "gpu/pipeline/run_context.h"
#include "gpu/pipeline/run_steps.h"
#include "gpu/pipeline/sanitizer_pass.h"
#include "gpu/references/reference_kernels.h"

namespace kwb::gpu {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

constexpr const char* kRunnerVersion = "0.1.0";

} // namespace

struct GpuExecutor::State {
    GpuResources gpu;
};

GpuExecutor::GpuExecutor() : m_state(std::make_unique<State>()) {}

GpuExecutor::~GpuExecutor() = default;

std::vector<std::string> GpuExecutor::referenceNames()
{
    std::vector<std::string> names{"gemm", "diag_matmul"};
    for (const auto& n : ownReferenceNames()) names.push_back(n);
    return names;
}

Result<Capabilities> GpuExecutor::capabilities()
{
    GpuResources& gpu = m_state->gpu;
    KWB_RETURN_IF_ERROR(gpu.open());
    Capabilities c;
    c.runnerVersion = kRunnerVersion;
    c.devicePresent = gpu.deviceOk();
    c.reason = gpu.deviceOk() ? std::string() : gpu.whyNot();
    if (gpu.deviceOk()) c.device = gpu.info;
    c.references = referenceNames();
    return c;
}

Result<RerunResult> GpuExecutor::execute(const RerunRequest& request, const TaskContext& ctx)
{
    const auto t0 = Clock::now();
    GpuResources& gpu = m_state->gpu;
    KWB_RETURN_IF_ERROR(gpu.open());
    RerunResult r;
    r.id = request.id;
    r.problemId = request.problem.id;
    r.candidateId = request.candidate.id;
    r.precision = request.problem.precision;
    if (!gpu.deviceOk()) {
        r.status = RerunStatus::NoDevice;
        r.message = gpu.whyNot();
        return r;
    }
    r.device = gpu.info;
    cudaGetLastError(); // a non-sticky error left by an earlier request must not be blamed on this one
    if (request.candidate.form != CandidateForm::Nvrtc && request.candidate.form != CandidateForm::SharedObject) {
        r.status = RerunStatus::Unsupported;
        r.message = std::string("kwb-runner does not run candidates of form ") +
                    candidateFormName(request.candidate.form) + " (KernelBench samples go through the PyTorch bridge)";
        return r;
    }
    {
        RunContext run(gpu, request, ctx, r);
        run.correctnessOnly = m_correctnessOnly;
        KWB_RETURN_IF_ERROR(serveRun(run));
        finishIsolation(run);
    }
    // The sanitizer pass re-executes the correctness runs in a child (after this
    // run: a tool's slowdown must not reach the timing above).
    if (!m_correctnessOnly && !request.options.sanitize.empty() && r.status == RerunStatus::Ok) {
        ctx.report("sanitizer", 0, static_cast<std::int64_t>(request.options.sanitize.size()));
        r.sanitizer = runSanitizerPass(request, m_runnerPath, request.options.timeoutS);
        r.markCheck(check::kSanitizer);
    }
    r.wallMs = msSince(t0);
    double timedMs = 0;
    const double warm = std::max(0, request.options.warmup);
    for (const auto* t : {&r.candidateTiming, &r.referenceTiming})
        if (*t) timedMs += (*t)->meanMs * (static_cast<double>((*t)->trials) + warm);
    r.overheadMs = std::max(0.0, r.wallMs - timedMs);
    return r;
}

} // namespace kwb::gpu
