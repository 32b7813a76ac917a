#include "traces/trace.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace kwb {

const char* traceFormatName(TraceFormat format)
{
    switch (format) {
    case TraceFormat::Kineto: return "kineto";
    case TraceFormat::NsysSqlite: return "nsys-sqlite";
    }
    return "unknown";
}

const char* activityKindName(ActivityKind kind)
{
    switch (kind) {
    case ActivityKind::Kernel: return "kernel";
    case ActivityKind::Memcpy: return "memcpy";
    case ActivityKind::Memset: return "memset";
    }
    return "unknown";
}

const char* phaseName(Phase phase)
{
    switch (phase) {
    case Phase::Unknown: return "unknown";
    case Phase::Forward: return "forward";
    case Phase::Backward: return "backward";
    case Phase::Optimizer: return "optimizer";
    }
    return "unknown";
}

std::string_view Trace::opName(const GpuActivity& a) const
{
    if (a.op < 0 || static_cast<std::size_t>(a.op) >= m_ops.size()) return {};
    return text(m_ops[static_cast<std::size_t>(a.op)].name);
}

std::string_view Trace::topLevelOpName(const GpuActivity& a) const
{
    if (a.op < 0 || static_cast<std::size_t>(a.op) >= m_ops.size()) return {};
    std::int32_t i = a.op;
    // Annotations (Optimizer.step, "## forward ##") are context, not operators.
    std::int32_t best = i;
    while (i >= 0) {
        const CpuOp& op = m_ops[static_cast<std::size_t>(i)];
        if (!op.annotation) best = i;
        i = op.parent;
    }
    return text(m_ops[static_cast<std::size_t>(best)].name);
}

std::string workloadNameFromPath(const std::string& path)
{
    std::string name = path;
    if (auto slash = name.find_last_of("/\\"); slash != std::string::npos) name = name.substr(slash + 1);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::string_view suffix : {".gz", ".json", ".sqlite", ".db", ".pt.trace", ".trace"}) {
            if (name.size() > suffix.size() && name.ends_with(suffix)) {
                name.resize(name.size() - suffix.size());
                changed = true;
            }
        }
    }
    return name;
}

TraceBuilder::TraceBuilder(std::string sourcePath, TraceFormat format)
    : m_trace(new Trace())
{
    m_trace->m_sourcePath = sourcePath;
    m_trace->m_name = workloadNameFromPath(sourcePath);
    m_trace->m_format = format;
    m_trace->m_report.file = std::move(sourcePath);
    m_trace->m_report.format = format;
}

void TraceBuilder::addRuntimeLaunch(std::int64_t correlation, std::int64_t externalId, std::int32_t thread, std::int64_t tsNs)
{
    m_launches.push_back({correlation, externalId, thread, tsNs});
}

void TraceBuilder::addFlowStart(std::int64_t correlation, std::int32_t thread, std::int64_t tsNs)
{
    m_flows.push_back({correlation, -1, thread, tsNs});
}

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The phase an operator's own name declares, if any.
Phase declaredPhase(std::string_view name)
{
    if (startsWith(name, "Optimizer.") || name.find("optimizer") != std::string_view::npos) return Phase::Optimizer;
    if (startsWith(name, "autograd::engine::evaluate_function") || name.find("Backward") != std::string_view::npos
        || startsWith(name, "## backward"))
        return Phase::Backward;
    if (startsWith(name, "## forward")) return Phase::Forward;
    return Phase::Unknown;
}

} // namespace

void TraceBuilder::linkAndNest()
{
    Trace& t = *m_trace;
    auto& ops = t.m_ops;
    // Per thread: by start, longer first, so a parent precedes its children.
    std::sort(ops.begin(), ops.end(), [](const CpuOp& a, const CpuOp& b) {
        if (a.thread != b.thread) return a.thread < b.thread;
        if (a.startNs != b.startNs) return a.startNs < b.startNs;
        return a.durationNs > b.durationNs;
    });
    std::vector<std::int32_t> stack;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        CpuOp& op = ops[i];
        if (i == 0 || ops[i - 1].thread != op.thread) stack.clear();
        while (!stack.empty() && ops[static_cast<std::size_t>(stack.back())].endNs() <= op.startNs) stack.pop_back();
        // A child that outlives its parent (clock jitter) is still nested: the start decides.
        op.parent = stack.empty() ? kNoIndex : stack.back();
        const Phase own = declaredPhase(t.text(op.name));
        if (own != Phase::Unknown) op.phase = own;
        else if (op.parent != kNoIndex) op.phase = ops[static_cast<std::size_t>(op.parent)].phase;
        else op.phase = Phase::Forward;
        stack.push_back(static_cast<std::int32_t>(i));
    }

    // Thread ranges into the sorted ops, for "innermost op enclosing (thread, ts)".
    std::unordered_map<std::int32_t, std::pair<std::size_t, std::size_t>> threadRange;
    for (std::size_t i = 0; i < ops.size();) {
        std::size_t j = i;
        while (j < ops.size() && ops[j].thread == ops[i].thread) ++j;
        threadRange[ops[i].thread] = {i, j};
        i = j;
    }
    auto enclosing = [&](std::int32_t thread, std::int64_t ts) -> std::int32_t {
        auto it = threadRange.find(thread);
        if (it == threadRange.end()) return kNoIndex;
        auto first = ops.begin() + static_cast<std::ptrdiff_t>(it->second.first);
        auto last = ops.begin() + static_cast<std::ptrdiff_t>(it->second.second);
        auto pos = std::upper_bound(first, last, ts, [](std::int64_t v, const CpuOp& op) { return v < op.startNs; });
        if (pos == first) return kNoIndex;
        auto idx = static_cast<std::int32_t>(std::distance(ops.begin(), pos) - 1);
        while (idx != kNoIndex && ops[static_cast<std::size_t>(idx)].endNs() < ts) idx = ops[static_cast<std::size_t>(idx)].parent;
        return idx;
    };

    std::unordered_map<std::int64_t, std::int32_t> byExternal;
    byExternal.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const CpuOp& op = ops[i];
        if (op.externalId < 0) continue;
        auto [it, inserted] = byExternal.emplace(op.externalId, static_cast<std::int32_t>(i));
        // Annotations share id space with operators in some versions: prefer the operator.
        if (!inserted && ops[static_cast<std::size_t>(it->second)].annotation && !op.annotation)
            it->second = static_cast<std::int32_t>(i);
    }
    std::unordered_map<std::int64_t, const Launch*> launchByCorr;
    launchByCorr.reserve(m_launches.size());
    for (const Launch& l : m_launches) launchByCorr.emplace(l.correlation, &l);
    std::unordered_map<std::int64_t, const Launch*> flowByCorr;
    flowByCorr.reserve(m_flows.size());
    for (const Launch& l : m_flows) flowByCorr.emplace(l.correlation, &l);

    for (GpuActivity& a : t.m_activities) {
        std::int32_t op = kNoIndex;
        if (a.externalId >= 0) {
            if (auto it = byExternal.find(a.externalId); it != byExternal.end()) op = it->second;
        }
        if (op == kNoIndex && a.correlation >= 0) {
            if (auto it = launchByCorr.find(a.correlation); it != launchByCorr.end()) {
                const Launch& l = *it->second;
                if (l.externalId >= 0) {
                    if (auto e = byExternal.find(l.externalId); e != byExternal.end()) op = e->second;
                }
                if (op == kNoIndex) op = enclosing(l.thread, l.tsNs);
            } else if (auto f = flowByCorr.find(a.correlation); f != flowByCorr.end()) {
                op = enclosing(f->second->thread, f->second->tsNs);
            }
        }
        a.op = op;
        a.phase = op == kNoIndex ? Phase::Unknown : ops[static_cast<std::size_t>(op)].phase;
    }
}

std::shared_ptr<const Trace> TraceBuilder::finish()
{
    Trace& t = *m_trace;
    std::stable_sort(t.m_activities.begin(), t.m_activities.end(),
        [](const GpuActivity& a, const GpuActivity& b) { return a.startNs < b.startNs; });
    std::sort(t.m_steps.begin(), t.m_steps.end(), [](const StepRange& a, const StepRange& b) { return a.startNs < b.startNs; });
    linkAndNest();

    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    auto extend = [&](std::int64_t s, std::int64_t e) {
        lo = std::min(lo, s);
        hi = std::max(hi, e);
    };
    for (const auto& a : t.m_activities) extend(a.startNs, a.endNs());
    for (const auto& o : t.m_ops) extend(o.startNs, o.endNs());
    for (const auto& s : t.m_steps) extend(s.startNs, s.endNs);
    if (lo <= hi) {
        t.m_spanStartNs = lo;
        t.m_spanEndNs = hi;
    }
    m_launches.clear();
    m_flows.clear();
    return std::move(m_trace);
}

} // namespace kwb
