#include "gpu/timing/timed_run.h"

#include <algorithm>
#include <functional>

#include "gpu/timing/cupti_summary.h"
#include "gpu/timing/cupti_tracer.h"

namespace kwb::gpu {

TimingConfig timingConfigFor(const RerunOptions& o)
{
    TimingConfig cfg;
    cfg.warmup = std::max(0, o.warmup);
    cfg.trials = std::max(1, o.trials);
    cfg.l2Flush = o.l2Flush;
    cfg.resetPersistingL2 = o.resetPersistingL2;
    cfg.maxSeconds = std::max(0.0, o.timingBudgetS);
    return cfg;
}

TimingWindow::TimingWindow(KernelTimer& timer, cudaStream_t stream, const TimingConfig& config, bool cupti)
    : m_timer(timer), m_stream(stream), m_config(config), m_cupti(cupti)
{
    auto& tracer = CuptiTracer::instance();
    if (m_cupti) {
        Status s = tracer.initialize();
        if (!s.isOk()) {
            m_cupti = false;
            m_cuptiNote = "CUPTI unavailable: " + s.message();
        }
    }
    if (m_cupti) {
        auto id = tracer.streamId(m_stream);
        if (id) m_timedStreamId = *id;
        else {
            m_cupti = false;
            m_cuptiNote = "CUPTI stream id unavailable: " + id.status().message();
        }
    }
    // The event bracket's constant cost, measured once per process and flush setting.
    if (m_cupti) {
        auto oh = m_timer.eventOverhead(m_stream, m_config);
        if (oh) m_eventOverheadMs = oh->ms;
        else m_calibrationNote = "event overhead not calibrated: " + oh.status().message();
    }
}

Status TimingWindow::time(const LaunchFn& launch, const TaskContext& ctx, const char* stage,
    std::optional<TimingStats>& stats, CuptiSummary& summary, const TrialHooks* hooks, std::optional<double>* hostMs)
{
    auto& tracer = CuptiTracer::instance();
    TaskContext sub;
    sub.cancel = ctx.cancel;
    sub.progress = [&](const Progress& p) { ctx.report(stage, p.done, p.total); };
    auto ms = m_timer.time(launch, m_stream, m_config, sub,
        m_cupti ? std::function<Status()>([&] { return tracer.begin(); }) : std::function<Status()>(),
        m_cupti ? std::function<Status()>([&] { return tracer.end(); }) : std::function<Status()>(), hooks);
    if (!ms) {
        if (m_cupti) (void)tracer.end();
        return ms.status();
    }
    const std::optional<int> ungated = m_timer.lastUngatedTrials();
    const KernelTimer::GateReport gate = m_timer.lastGateReport();
    if (hostMs) {
        if (m_config.resetPersistingL2) KWB_RETURN_IF_ERROR(resetPersistingL2(m_stream));
        KWB_ASSIGN_OR_RETURN(double h, m_timer.hostMsPerCall(launch, m_stream, std::min(m_config.trials, kHostTimerCalls)));
        *hostMs = h;
    }
    stats = summarizeTimings(*ms, false);
    stats->eventOverheadMs = m_eventOverheadMs;
    stats->ungatedTrials = ungated;
    if (gate.timeouts > 0) stats->gateTimeouts = gate.timeouts;
    if (!gate.blocked.empty()) stats->gateBlocked = gate.blocked;
    if (m_cupti) {
        summary = summarizeCupti(tracer.kernels(), tracer.memOps(), m_timedStreamId, tracer.droppedRecords());
        if (!m_calibrationNote.empty())
            summary.note = summary.note.empty() ? m_calibrationNote : summary.note + "; " + m_calibrationNote;
    } else {
        summary.note = m_cuptiNote.empty() ? "CUPTI not requested" : m_cuptiNote;
    }
    return Status::ok();
}

} // namespace kwb::gpu
