#include "gpu/bridge/bridge_session.h"

#include <algorithm>

#include "gpu/checks/input_generator.h"
#include "gpu/checks/output_checks.h"
#include "gpu/device/gpu_check.h"
#include "gpu/pipeline/sanitizer_pass.h"
#include "gpu/timing/timed_run.h"
#include "rerun/own_kernels.h"
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
    m_ownKernels.clear();
    m_ownKernelsSet = false;
    m_timingBudgetS = 0.0;
}

TimingConfig BridgeSession::timingConfig(const RerunOptions& options) const
{
    TimingConfig cfg = timingConfigFor(options);
    if (m_timingBudgetS > 0.0) cfg.maxSeconds = m_timingBudgetS;
    return cfg;
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
    m_result.markCheck(check::kDeterminism);
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
    InputCheck& ic = input(index, name);
    addInputHashes(ic, it->second, h);
    ic.bytes = bytes;
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
    TimingWindow window(m_timer, stream, timingConfig(options), options.cupti);
    TaskContext none;
    if (reference) return window.time(launch, none, "reference", m_result.referenceTiming, m_result.referenceCupti);
    return window.time(launch, none, "timing", m_result.candidateTiming, m_result.candidateCupti);
}

Status BridgeSession::timeEx(bool reference, const LaunchFn& launch, const LaunchFn& refresh, cudaStream_t stream,
    const RerunOptions& options)
{
    KWB_RETURN_IF_ERROR(ensureDevice());
    TimingWindow window(m_timer, stream, timingConfig(options), options.cupti);
    TaskContext none;
    TrialHooks hooks;
    hooks.refresh = refresh;
    std::optional<double> hostMs;
    auto& stats = reference ? m_result.referenceTiming : m_result.candidateTiming;
    auto& cupti = reference ? m_result.referenceCupti : m_result.candidateCupti;
    KWB_RETURN_IF_ERROR(window.time(launch, none, reference ? "reference" : "timing", stats, cupti,
        refresh ? &hooks : nullptr, options.hostTimer ? &hostMs : nullptr));
    m_result.markCheck(check::kTiming);
    if (refresh) m_result.markCheck(check::kFreshInputs);
    if (options.resetPersistingL2) m_result.markCheck(check::kPersistingL2Reset);
    if (hostMs) {
        if (!m_result.hostTiming) m_result.hostTiming = HostTiming{};
        (reference ? m_result.hostTiming->referenceMs : m_result.hostTiming->candidateMs) = hostMs;
        m_result.hostTiming->trials = std::min(std::max(1, options.trials), kHostTimerCalls);
        m_result.hostTiming->measuredBy = "runner";
        m_result.markCheck(check::kHostTimer);
    }
    if (!reference && m_ownKernelsSet && cupti.available) {
        m_result.ownKernels = ownKernelsFrom(cupti, m_ownKernels);
        m_result.markCheck(check::kOwnKernels);
    }
    if (options.perCall) {
        TimingConfig cfg = window.config();
        cfg.trials = std::min(std::max(1, options.trials), 30);
        KWB_ASSIGN_OR_RETURN(auto ms, m_timer.timePerCall(launch, stream, cfg, refresh, {}));
        if (!m_result.perCallTiming) m_result.perCallTiming = PerCallTiming{};
        (reference ? m_result.perCallTiming->reference : m_result.perCallTiming->candidate) = summarizeTimings(ms, false);
        m_result.markCheck(check::kPerCall);
    }
    return Status::ok();
}

void BridgeSession::setOwnKernels(std::vector<std::string> names)
{
    m_ownKernels = std::move(names);
    m_ownKernelsSet = true;
}

Status BridgeSession::check(const std::string& which, int index, const std::string& name, const float* out,
    const float* ref, std::int64_t count, cudaStream_t stream)
{
    if (which != "post_timing" && which != "fresh_inputs" && which != "per_call" && which.rfind("adversarial:", 0) != 0)
        return Status(ErrorCode::InvalidArgument,
            "check: unknown kind '" + which + "' (post_timing, fresh_inputs, per_call, adversarial:<set>)");
    const ToleranceValues& tol = m_result.tolerance;
    KWB_ASSIGN_OR_RETURN(DeviceComparison d, m_metrics.compare(out ? out : ref, ref, count, tol.atol, tol.rtol, stream));
    const OutputMetrics m = out ? d.metrics : shapeMismatchMetrics(count);
    if (which == "post_timing") {
        const auto k = static_cast<std::size_t>(std::max(0, index));
        if (m_result.postTiming.size() <= k) m_result.postTiming.resize(k + 1);
        OutputCheck& c = m_result.postTiming[k];
        if (c.output.empty()) c.output = name;
        addCorrectnessTrial(c, m, false);
        finishCorrectness(c);
        m_result.markCheck(check::kPostTiming);
    } else if (which == "fresh_inputs") {
        if (!m_result.freshInputs) m_result.freshInputs = FreshInputsCheck{};
        auto& f = *m_result.freshInputs;
        ++f.checked;
        if (!m.allclose) ++f.failed;
        f.worstRelL2 = std::max(f.worstRelL2, m.relL2Error);
        m_result.markCheck(check::kFreshInputs);
    } else if (which == "per_call") {
        if (!m_result.perCallTiming) m_result.perCallTiming = PerCallTiming{};
        ++m_result.perCallTiming->checked;
        if (!m.allclose) ++m_result.perCallTiming->failed;
        m_result.markCheck(check::kPerCall);
    } else if (which.rfind("adversarial:", 0) == 0) {
        AdversarialCheck a;
        a.set = which.substr(12);
        a.passed = m.allclose;
        a.relL2 = m.relL2Error;
        a.maxAbsError = m.maxAbsError;
        if (!m.allclose) a.message = "output '" + name + "' fails allclose";
        m_result.adversarial.push_back(std::move(a));
        m_result.markCheck(check::kAdversarial);
    } else {
        return Status(ErrorCode::InvalidArgument,
            "check: unknown kind '" + which + "' (post_timing, fresh_inputs, per_call, adversarial:<set>)");
    }
    return Status::ok();
}

Status BridgeSession::setMember(const std::string& member, const std::string& text)
{
    // The sanitizer pass's raw runs, parsed here by the pass's own parser: a list of
    // {tool, log, answered, detail} (the judge ran the worker under each tool).
    if (member == "sanitizer_logs") {
        nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (!j.is_array() || j.size() > 8)
            return Status(ErrorCode::InvalidArgument, "set_member sanitizer_logs: not a list of at most 8 runs");
        std::vector<SanitizerReport> reports;
        for (const auto& run : j) {
            if (!run.is_object() || !run.contains("tool") || !run["tool"].is_string() || !run.contains("log") ||
                !run["log"].is_string() || !run.contains("answered") || !run["answered"].is_boolean())
                return Status(ErrorCode::InvalidArgument,
                    "set_member sanitizer_logs: each run needs tool (string), log (string), answered (bool)");
            const std::string tool = run["tool"].get<std::string>();
            if (!isSanitizerTool(tool))
                return Status(ErrorCode::InvalidArgument, "set_member sanitizer_logs: unknown tool '" + tool + "'");
            const std::string detail = run.contains("detail") && run["detail"].is_string() ? run["detail"].get<std::string>() : "";
            reports.push_back(sanitizerReportOfRun(tool, run["log"].get<std::string>(), run["answered"].get<bool>(), detail));
        }
        m_result.sanitizer = std::move(reports);
        m_result.markCheck(check::kSanitizer);
        return Status::ok();
    }
    static const std::vector<std::string> allowed{"candidate_timing", "reference_timing", "candidate_cupti",
        "reference_cupti", "host_timing", "per_call_timing", "own_kernels", "sanitizer", "adversarial", "isolation",
        "fresh_inputs", "post_timing", "checks_run"};
    if (std::find(allowed.begin(), allowed.end(), member) == allowed.end())
        return Status(ErrorCode::InvalidArgument, "set_member: '" + member + "' is not a member the session takes");
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return Status(ErrorCode::InvalidArgument, "set_member " + member + ": not valid JSON");
    // Decoded by the protocol's own decoder, as a result holding only this member.
    nlohmann::json whole{{"status", "ok"}, {member, j}};
    KWB_ASSIGN_OR_RETURN(RerunResult d, rerunResultFromJson(whole));
    RerunResult& r = m_result;
    if (member == "candidate_timing") r.candidateTiming = d.candidateTiming;
    else if (member == "reference_timing") r.referenceTiming = d.referenceTiming;
    else if (member == "candidate_cupti") r.candidateCupti = d.candidateCupti;
    else if (member == "reference_cupti") r.referenceCupti = d.referenceCupti;
    else if (member == "host_timing") { r.hostTiming = d.hostTiming; r.markCheck(check::kHostTimer); }
    else if (member == "per_call_timing") { r.perCallTiming = d.perCallTiming; r.markCheck(check::kPerCall); }
    else if (member == "own_kernels") { r.ownKernels = d.ownKernels; r.markCheck(check::kOwnKernels); }
    else if (member == "sanitizer") { r.sanitizer = d.sanitizer; r.markCheck(check::kSanitizer); }
    else if (member == "adversarial") { r.adversarial = d.adversarial; r.markCheck(check::kAdversarial); }
    else if (member == "isolation") { r.isolation = d.isolation; r.markCheck(check::kIsolation); }
    else if (member == "fresh_inputs") { r.freshInputs = d.freshInputs; r.markCheck(check::kFreshInputs); }
    else if (member == "post_timing") { r.postTiming = d.postTiming; r.markCheck(check::kPostTiming); }
    else if (member == "checks_run") for (const auto& c : d.checksRun) r.markCheck(c);
    return Status::ok();
}

void BridgeSession::finish()
{
    for (auto& c : m_result.outputs) finishCorrectness(c);
    if (!m_result.outputs.empty()) m_result.markCheck(check::kCorrectness);
    if (!m_result.coverage.empty()) m_result.markCheck(check::kCoverage);
    if (!m_result.inputs.empty()) m_result.markCheck(check::kInputHashes);
    const auto& cand = m_result.candidateTiming;
    const auto& ref = m_result.referenceTiming;
    if (cand && ref && cand->medianMs > 0) m_result.speedup = ref->medianMs / cand->medianMs;
}

} // namespace kwb::gpu
