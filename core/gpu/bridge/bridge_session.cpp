#include "gpu/bridge/bridge_session.h"

#include <algorithm>

#include "gpu/checks/input_generator.h"
#include "gpu/checks/output_checks.h"
#include "gpu/device/gpu_check.h"
#include "gpu/timing/timed_run.h"
#include "problems/tolerance_policy.h"

namespace kwb::gpu {

namespace {

constexpr int kFirstUnwrittenListed = 16;

} // namespace

BridgeSession::~BridgeSession()
{
    if (m_hashScratch) cudaFree(m_hashScratch);
}

void BridgeSession::reset()
{
    m_result = RerunResult();
    m_hashBefore.clear();
}

Status BridgeSession::ensureDevice()
{
    if (!m_hashScratch) KWB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_hashScratch), 8));
    if (!m_timerReady) {
        int dev = 0;
        KWB_CUDA_CHECK(cudaGetDevice(&dev));
        int l2 = 0;
        KWB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        KWB_RETURN_IF_ERROR(m_timer.init(l2));
        m_timerReady = true;
    }
    return Status::ok();
}

Result<ToleranceValues> toleranceNamed(const std::string& policy, const std::string& precision, double atol,
    double rtol)
{
    TolerancePolicy p;
    if (policy == "kernelbench") p.kind = TolerancePolicy::Kind::KernelBench;
    else if (policy == "kernelbench_legacy") p.kind = TolerancePolicy::Kind::KernelBenchLegacy;
    else if (policy == "explicit") {
        p.kind = TolerancePolicy::Kind::Explicit;
        p.atol = atol;
        p.rtol = rtol;
    } else
        return Status(ErrorCode::InvalidArgument, "tolerance: unknown policy '" + policy + "'");
    const auto dtype = dtypeFromName(precision);
    if (!dtype) return Status(ErrorCode::InvalidArgument, "tolerance: unknown precision '" + precision + "'");
    return resolveTolerance(p, *dtype);
}

Status BridgeSession::setTolerance(const std::string& policy, const std::string& precision, double atol, double rtol)
{
    KWB_ASSIGN_OR_RETURN(m_result.tolerance, toleranceNamed(policy, precision, atol, rtol));
    m_result.precision = dtypeFromName(precision).value_or(DType::F32);
    return Status::ok();
}

OutputCheck& BridgeSession::output(int index, const std::string& name)
{
    const auto k = static_cast<std::size_t>(std::max(0, index));
    if (m_result.outputs.size() <= k) m_result.outputs.resize(k + 1);
    OutputCheck& c = m_result.outputs[k];
    if (c.output.empty()) c.output = name;
    return c;
}

InputCheck& BridgeSession::input(int index, const std::string& name)
{
    const auto k = static_cast<std::size_t>(std::max(0, index));
    if (m_result.inputs.size() <= k) m_result.inputs.resize(k + 1);
    InputCheck& c = m_result.inputs[k];
    if (c.input.empty()) c.input = name;
    return c;
}

Status BridgeSession::addCoverage(const std::string& name, BridgeScanner& s, cudaStream_t stream)
{
    if (!s.havePassB) return Status(ErrorCode::InvalidArgument, "coverage: collect before pass B");
    KWB_ASSIGN_OR_RETURN(CoverageCounts counts, s.scanner.collect(kFirstUnwrittenListed, stream));
    m_result.coverage.push_back(outputCoverageFrom(name, s.layout, counts, s.elemBytes));
    return Status::ok();
}

Status BridgeSession::addDeterminism(int index, const std::string& name, const void* a, const void* b,
    std::int64_t count, int elemBytes, cudaStream_t stream)
{
    std::int64_t differing = 0;
    if (coverageSupportsWidth(elemBytes)) {
        KWB_ASSIGN_OR_RETURN(differing, m_metrics.countDifferingWritten(a, b, count, elemBytes,
                                            sentinelBits(elemBytes, 0), sentinelBits(elemBytes, 1), stream));
    } else {
        KWB_ASSIGN_OR_RETURN(differing, m_metrics.countDiffering(a, b, count, elemBytes, stream));
    }
    OutputCheck& c = output(index, name);
    c.deterministic = differing == 0;
    c.nondeterministicElements = differing;
    return Status::ok();
}

Status BridgeSession::hashInput(int index, const std::string& name, const void* data, std::int64_t bytes, bool after,
    cudaStream_t stream)
{
    KWB_RETURN_IF_ERROR(ensureDevice());
    KWB_ASSIGN_OR_RETURN(std::uint64_t h, hashDeviceBytes(data, bytes, m_hashScratch, stream));
    if (!after) {
        m_hashBefore[index] = h;
        return Status::ok();
    }
    auto it = m_hashBefore.find(index);
    if (it == m_hashBefore.end())
        return Status(ErrorCode::InvalidArgument, "input " + std::to_string(index) + ": hashed after without before");
    addInputHashes(input(index, name), it->second, h);
    m_hashBefore.erase(it);
    return Status::ok();
}

Status BridgeSession::compare(int index, const std::string& name, const float* out, const float* ref,
    std::int64_t count, cudaStream_t stream)
{
    const ToleranceValues& tol = m_result.tolerance;
    // The reference against itself still answers zero acceptance when the output cannot be compared.
    KWB_ASSIGN_OR_RETURN(DeviceComparison d, m_metrics.compare(out ? out : ref, ref, count, tol.atol, tol.rtol, stream));
    addCorrectnessTrial(output(index, name), out ? d.metrics : shapeMismatchMetrics(count), d.zerosPass);
    return Status::ok();
}

Status BridgeSession::time(bool reference, const LaunchFn& launch, cudaStream_t stream, const RerunOptions& options)
{
    KWB_RETURN_IF_ERROR(ensureDevice());
    TimingWindow window(m_timer, stream, timingConfigFor(options), options.cupti);
    TaskContext none;
    if (reference) return window.time(launch, none, "reference", m_result.referenceTiming, m_result.referenceCupti);
    return window.time(launch, none, "timing", m_result.candidateTiming, m_result.candidateCupti);
}

void BridgeSession::finish()
{
    for (auto& c : m_result.outputs) finishCorrectness(c);
    const auto& cand = m_result.candidateTiming;
    const auto& ref = m_result.referenceTiming;
    if (cand && ref && cand->medianMs > 0) m_result.speedup = ref->medianMs / cand->medianMs;
}

} // namespace kwb::gpu
