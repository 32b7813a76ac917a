#pragma once
// The immutable table of one profiler trace: GPU activities (kernels, memcpy,
// memset), the CPU operators that launched them, ProfilerStep ranges and
// device properties. Names are interned once at load; events refer to them
// by StringId. Built by a reader (kineto_reader.h, nsys_reader.h) through
// TraceBuilder, then shared read-only as std::shared_ptr<const Trace>: every
// const member is safe to call from any thread.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/checked_int.h"
#include "base/status.h"
#include "base/string_interner.h"

namespace kwb {

enum class TraceFormat : std::uint8_t { Kineto, NsysSqlite };
const char* traceFormatName(TraceFormat format);

enum class ActivityKind : std::uint8_t { Kernel, Memcpy, Memset };
const char* activityKindName(ActivityKind kind);

// The training phase a GPU activity belongs to, as far as the trace tells:
// Unknown when the launching operator is not known or the trace has no markers.
enum class Phase : std::uint8_t { Unknown, Forward, Backward, Optimizer };
const char* phaseName(Phase phase);

inline constexpr std::int32_t kNoIndex = -1;

// One GPU activity. Times are integer nanoseconds on the trace's own clock
// (Kineto µs are scaled by 1000 and rounded; nsys is already ns).
struct GpuActivity {
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;
    std::int64_t correlation = -1; // CUPTI correlation id; -1 = none
    std::int64_t externalId = -1;  // Kineto "External id"; -1 = none
    StringId name = StringInterner::kEmpty;
    std::int32_t op = kNoIndex; // index into Trace::ops() of the launching operator
    std::int32_t stream = -1;
    std::int16_t device = -1;
    ActivityKind kind = ActivityKind::Kernel;
    Phase phase = Phase::Unknown;
    std::uint32_t grid[3] = {0, 0, 0};  // 0 = not recorded
    std::uint32_t block[3] = {0, 0, 0};

    std::int64_t endNs() const { return startNs + durationNs; }
};
static_assert(sizeof(GpuActivity) == 72, "GpuActivity is a hot packed row; keep its layout deliberate");

// One CPU operator (Kineto "cpu_op", and user annotations such as
// "Optimizer.step#SGD.step"). parent is the enclosing operator on the same
// thread (kNoIndex at top level).
struct CpuOp {
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;
    std::int64_t externalId = -1;
    StringId name = StringInterner::kEmpty;
    std::int32_t thread = 0;
    std::int32_t parent = kNoIndex;
    Phase phase = Phase::Unknown;
    bool annotation = false; // a user annotation, not an ATen operator
    std::uint8_t pad[2] = {0, 0};

    std::int64_t endNs() const { return startNs + durationNs; }
};
static_assert(sizeof(CpuOp) == 40, "CpuOp is a hot packed row; keep its layout deliberate");

// A ProfilerStep#N range (CPU side).
struct StepRange {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    StringId name = StringInterner::kEmpty;
};

// A GPU as the trace describes it (Kineto deviceProperties, nsys TARGET_INFO_GPU).
struct TraceDevice {
    std::int32_t id = 0;
    std::string name;
    std::int32_t computeMajor = 0;
    std::int32_t computeMinor = 0;
    std::int64_t totalMemoryBytes = 0;
    std::int32_t smCount = 0;
};

// What a reader noticed without failing: bad events are counted, the first
// few are described (file, position, reason), and the load goes on.
struct TraceLoadReport {
    std::string file;
    TraceFormat format = TraceFormat::Kineto;
    std::uint64_t bytesRead = 0;     // input bytes consumed (inflated size for .gz)
    std::uint64_t eventsSeen = 0;    // trace events (Kineto) or rows (nsys) looked at
    std::uint64_t badEvents = 0;     // skipped, see issues
    std::vector<Status> issues;      // capped at kMaxTraceIssues
    std::vector<std::string> notes;  // e.g. "no CUPTI_ACTIVITY_KIND_MEMSET table"
};
inline constexpr std::size_t kMaxTraceIssues = 50;

class TraceBuilder;

class Trace {
public:
    // The workload name: by default the file name without directories and
    // without .json/.gz/.pt.trace/.sqlite suffixes.
    const std::string& name() const { return m_name; }
    const std::string& sourcePath() const { return m_sourcePath; }
    TraceFormat format() const { return m_format; }

    // Activities sorted by startNs; ops grouped by thread, each thread's by
    // startNs (a parent before its children); steps sorted by startNs.
    const std::vector<GpuActivity>& activities() const { return m_activities; }
    const std::vector<CpuOp>& ops() const { return m_ops; }
    const std::vector<StepRange>& steps() const { return m_steps; }
    const std::vector<TraceDevice>& devices() const { return m_devices; }
    const TraceLoadReport& report() const { return m_report; }

    std::string_view text(StringId id) const { return m_strings.view(id); }
    const StringInterner& strings() const { return m_strings; }

    // Operator name of an activity, or "" when the launching op is unknown.
    std::string_view opName(const GpuActivity& a) const;
    // The outermost operator enclosing the launching op (e.g. aten::linear
    // around aten::addmm), or "" when unknown.
    std::string_view topLevelOpName(const GpuActivity& a) const;

    // Earliest start and latest end over GPU activities, CPU ops and steps
    // (0,0 when empty): the profiled wall-clock span.
    std::int64_t spanStartNs() const { return m_spanStartNs; }
    std::int64_t spanEndNs() const { return m_spanEndNs; }

private:
    friend class TraceBuilder;
    Trace() = default;

    std::string m_name;
    std::string m_sourcePath;
    TraceFormat m_format = TraceFormat::Kineto;
    StringInterner m_strings;
    std::vector<GpuActivity> m_activities;
    std::vector<CpuOp> m_ops;
    std::vector<StepRange> m_steps;
    std::vector<TraceDevice> m_devices;
    TraceLoadReport m_report;
    std::int64_t m_spanStartNs = 0;
    std::int64_t m_spanEndNs = 0;
};

using TracePtr = std::shared_ptr<const Trace>;

// Collects rows while a reader streams, then links and freezes them.
// Readers and tests use it; finish() sorts activities and ops, nests ops per
// thread, links each activity to its launching op (External id, then the
// runtime launch with the same correlation id, then the ac2g flow start),
// derives phases, and computes the span.
class TraceBuilder {
public:
    TraceBuilder(std::string sourcePath, TraceFormat format);

    StringId intern(std::string_view s) { return m_trace->m_strings.intern(s); }
    std::string_view text(StringId id) const { return m_trace->m_strings.view(id); }
    void addActivity(const GpuActivity& a)
    {
        m_trace->m_activities.push_back(a);
        m_activityNs = saturatingAdd(m_activityNs, a.durationNs);
    }
    void addOp(const CpuOp& op) { m_trace->m_ops.push_back(op); }
    void addStep(const StepRange& s) { m_trace->m_steps.push_back(s); }
    void addDevice(TraceDevice d) { m_trace->m_devices.push_back(std::move(d)); }
    // A CPU-side runtime call (cudaLaunchKernel, cuLaunchKernel, ...) with its correlation id.
    void addRuntimeLaunch(std::int64_t correlation, std::int64_t externalId, std::int32_t thread, std::int64_t tsNs);
    // An ac2g flow start ("ph":"s"): the CPU thread and time of the launch with this correlation id.
    void addFlowStart(std::int64_t correlation, std::int32_t thread, std::int64_t tsNs);

    // Capacity hints from the input size, so millions of rows are not copied while the vectors grow.
    void reserve(std::size_t activities, std::size_t ops, std::size_t launches)
    {
        m_trace->m_activities.reserve(activities);
        m_trace->m_ops.reserve(ops);
        m_launches.reserve(launches);
        m_flows.reserve(launches);
    }

    TraceLoadReport& report() { return m_trace->m_report; }
    void setName(std::string name) { m_trace->m_name = std::move(name); }

    // Readers keep every start, end and duration within ±kMaxTimeNs; this
    // checks that the activities' total does not pass it either, so no sum
    // over them (breakdown, projection) can wrap. Call before finish().
    Status checkTimes() const;

    std::shared_ptr<const Trace> finish();

private:
    struct Launch {
        std::int64_t correlation;
        std::int64_t externalId;
        std::int32_t thread;
        std::int64_t tsNs;
    };
    void linkAndNest();
    std::shared_ptr<Trace> m_trace;
    std::vector<Launch> m_launches;
    std::vector<Launch> m_flows;
    std::int64_t m_activityNs = 0;
};

// "resnet50_train" from "/x/resnet50_train.pt.trace.json.gz".
std::string workloadNameFromPath(const std::string& path);

} // namespace kwb
