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

namespace {

// Maps ids (External id, correlation) to indices. Profiler ids are mostly
// dense counters, so a flat table is used when it stays small; otherwise a
// sorted vector. Either way no per-entry allocation: traces have millions.
class IdIndex {
public:
    void build(std::vector<std::pair<std::int64_t, std::int32_t>> entries)
    {
        if (entries.empty()) return;
        std::int64_t lo = entries.front().first, hi = lo;
        for (const auto& e : entries) {
            lo = std::min(lo, e.first);
            hi = std::max(hi, e.first);
        }
        if (lo >= 0 && static_cast<std::uint64_t>(hi - lo) < 4 * entries.size() + 4096) {
            m_base = lo;
            m_dense.assign(static_cast<std::size_t>(hi - lo + 1), kNoIndex);
            // First entry wins, as in file order.
            for (const auto& e : entries) {
                std::int32_t& slot = m_dense[static_cast<std::size_t>(e.first - lo)];
                if (slot == kNoIndex) slot = e.second;
            }
            return;
        }
        std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        m_sorted = std::move(entries);
    }
    std::int32_t find(std::int64_t id) const
    {
        if (!m_dense.empty()) {
            if (id < m_base || id - m_base >= static_cast<std::int64_t>(m_dense.size())) return kNoIndex;
            return m_dense[static_cast<std::size_t>(id - m_base)];
        }
        auto it = std::lower_bound(m_sorted.begin(), m_sorted.end(), id, [](const auto& e, std::int64_t v) { return e.first < v; });
        return it != m_sorted.end() && it->first == id ? it->second : kNoIndex;
    }

private:
    std::int64_t m_base = 0;
    std::vector<std::int32_t> m_dense;
    std::vector<std::pair<std::int64_t, std::int32_t>> m_sorted;
};

} // namespace

void TraceBuilder::linkAndNest()
{
    Trace& t = *m_trace;
    auto& ops = t.m_ops;
    // Group by thread keeping file order (a stable counting sort), then sort
    // each thread by start, longer first, so a parent precedes its children.
    // Profilers write nearly sorted events, so the per-thread check usually
    // skips the sort.
    {
        std::int32_t maxThread = 0;
        for (const CpuOp& op : ops) maxThread = std::max(maxThread, op.thread);
        std::vector<std::size_t> start(static_cast<std::size_t>(maxThread) + 2, 0);
        for (const CpuOp& op : ops) ++start[static_cast<std::size_t>(op.thread) + 1];
        for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
        std::vector<CpuOp> grouped(ops.size());
        std::vector<std::size_t> next(start.begin(), start.end() - 1);
        for (const CpuOp& op : ops) grouped[next[static_cast<std::size_t>(op.thread)]++] = op;
        ops.swap(grouped);
        auto before = [](const CpuOp& a, const CpuOp& b) {
            if (a.startNs != b.startNs) return a.startNs < b.startNs;
            return a.durationNs > b.durationNs;
        };
        for (std::size_t th = 0; th + 1 < start.size(); ++th) {
            auto first = ops.begin() + static_cast<std::ptrdiff_t>(start[th]);
            auto last = ops.begin() + static_cast<std::ptrdiff_t>(start[th + 1]);
            if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
        }
    }
    // The phase a name declares, worked out once per distinct name.
    std::vector<std::int8_t> phaseOfName(t.m_strings.size(), -1);
    auto declared = [&](StringId name) {
        std::int8_t& p = phaseOfName[name];
        if (p < 0) p = static_cast<std::int8_t>(declaredPhase(t.text(name)));
        return static_cast<Phase>(p);
    };
    std::vector<std::int32_t> stack;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        CpuOp& op = ops[i];
        if (i == 0 || ops[i - 1].thread != op.thread) stack.clear();
        while (!stack.empty() && ops[static_cast<std::size_t>(stack.back())].endNs() <= op.startNs) stack.pop_back();
        // A child that outlives its parent (clock jitter) is still nested: the start decides.
        op.parent = stack.empty() ? kNoIndex : stack.back();
        const Phase own = declared(op.name);
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

    // Operators by External id; user annotations share the id space in some
    // versions, so an operator is preferred over an annotation with the same id.
    IdIndex byExternal;
    {
        std::vector<std::pair<std::int64_t, std::int32_t>> entries;
        entries.reserve(ops.size());
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t i = 0; i < ops.size(); ++i)
                if (ops[i].externalId >= 0 && ops[i].annotation == (pass == 1))
                    entries.emplace_back(ops[i].externalId, static_cast<std::int32_t>(i));
        byExternal.build(std::move(entries));
    }

    // Launches and flows are only consulted for activities without an operator by External id.
    std::vector<std::size_t> unlinked;
    for (std::size_t i = 0; i < t.m_activities.size(); ++i) {
        GpuActivity& a = t.m_activities[i];
        a.op = a.externalId >= 0 ? byExternal.find(a.externalId) : kNoIndex;
        if (a.op == kNoIndex && a.correlation >= 0) unlinked.push_back(i);
    }
    if (!unlinked.empty()) {
        // Only the correlation ids still unresolved are looked up: a small table.
        std::unordered_map<std::int64_t, std::pair<std::int32_t, std::int32_t>> wanted; // corr -> (launch, flow)
        wanted.reserve(unlinked.size());
        for (std::size_t i : unlinked) wanted.emplace(t.m_activities[i].correlation, std::pair{kNoIndex, kNoIndex});
        for (std::size_t i = 0; i < m_launches.size(); ++i)
            if (auto it = wanted.find(m_launches[i].correlation); it != wanted.end() && it->second.first == kNoIndex)
                it->second.first = static_cast<std::int32_t>(i);
        for (std::size_t i = 0; i < m_flows.size(); ++i)
            if (auto it = wanted.find(m_flows[i].correlation); it != wanted.end() && it->second.second == kNoIndex)
                it->second.second = static_cast<std::int32_t>(i);
        for (std::size_t i : unlinked) {
            GpuActivity& a = t.m_activities[i];
            const auto [li, fi] = wanted[a.correlation];
            if (li != kNoIndex) {
                const Launch& l = m_launches[static_cast<std::size_t>(li)];
                if (l.externalId >= 0) a.op = byExternal.find(l.externalId);
                if (a.op == kNoIndex) a.op = enclosing(l.thread, l.tsNs);
            } else if (fi != kNoIndex) {
                const Launch& f = m_flows[static_cast<std::size_t>(fi)];
                a.op = enclosing(f.thread, f.tsNs);
            }
        }
    }
    for (GpuActivity& a : t.m_activities) a.phase = a.op == kNoIndex ? Phase::Unknown : ops[static_cast<std::size_t>(a.op)].phase;
}

Status TraceBuilder::checkTimes() const
{
    if (m_activityNs > kMaxTimeNs || m_activityNs < 0)
        return Status(ErrorCode::SchemaError,
            "the GPU activities add up to more than 4e18 ns (126 years): the times in this trace are corrupt",
            SourcePosition{m_trace->m_sourcePath});
    return {};
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
