// The Nsight Systems reader's output on a real export
// (../shared/data/nsys/mfu_2gpu_before.sqlite), pinned as a canonical text
// dump in tests/data/golden/nsys/mfu_2gpu_before.txt: counts, the load report,
// per-(device, stream, kind) totals and the first activities with names,
// times, launch geometry and their NVTX operator. KWB_REGENERATE_GOLDENS=1
// rewrites it (tests/data/golden/README.md).
#include <QtTest>

#include <map>
#include <sstream>
#include <tuple>

#include "golden_util.h"
#include "traces/nsys_reader.h"

using namespace kwb;

namespace {

constexpr std::size_t kFirstActivities = 60;

std::string sqlitePath()
{
    return kwbtest::sharedData("nsys/mfu_2gpu_before.sqlite");
}

std::string dims(const std::uint32_t (&d)[3])
{
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

// Tab-separated, one fact per line, in an order that does not depend on hashing.
std::string canonicalDump(const Trace& t)
{
    std::ostringstream o;
    o << "# kwb nsys reader dump (tests/core/tst_golden_nsys.cpp; tests/data/golden/README.md)\n";
    o << "name\t" << t.name() << "\n";
    o << "format\t" << traceFormatName(t.format()) << "\n";
    std::map<ActivityKind, std::size_t> perKind;
    for (const auto& a : t.activities()) ++perKind[a.kind];
    o << "activities\t" << t.activities().size() << "\n";
    for (const auto& [kind, n] : perKind) o << "activities." << activityKindName(kind) << "\t" << n << "\n";
    std::size_t annotations = 0;
    for (const auto& op : t.ops()) annotations += op.annotation ? 1 : 0;
    o << "ops\t" << t.ops().size() << "\n";
    o << "ops.annotations\t" << annotations << "\n";
    o << "steps\t" << t.steps().size() << "\n";
    for (const auto& s : t.steps()) o << "step\t" << t.text(s.name) << "\t" << s.startNs << "\t" << s.endNs << "\n";
    o << "devices\t" << t.devices().size() << "\n";
    for (const auto& d : t.devices())
        o << "device\t" << d.id << "\t" << d.name << "\t" << d.computeMajor << "." << d.computeMinor << "\t"
          << d.totalMemoryBytes << "\t" << d.smCount << "\n";
    o << "span_ns\t" << t.spanStartNs() << "\t" << t.spanEndNs() << "\n";
    const auto& r = t.report();
    o << "report.events_seen\t" << r.eventsSeen << "\n";
    o << "report.bad_events\t" << r.badEvents << "\n";
    o << "report.issues\t" << r.issues.size() << "\n";
    for (const auto& n : r.notes) o << "report.note\t" << n << "\n";

    // Per (device, stream, kind): count, busy time, first start, last end.
    struct Totals {
        std::size_t count = 0;
        std::int64_t totalNs = 0;
        std::int64_t firstNs = 0;
        std::int64_t lastEndNs = 0;
    };
    std::map<std::tuple<int, int, ActivityKind>, Totals> streams;
    for (const auto& a : t.activities()) {
        auto& s = streams[{a.device, a.stream, a.kind}];
        if (s.count == 0 || a.startNs < s.firstNs) s.firstNs = a.startNs;
        s.lastEndNs = std::max(s.lastEndNs, a.endNs());
        ++s.count;
        s.totalNs += a.durationNs;
    }
    o << "# stream\tdevice\tstream\tkind\tcount\ttotal_ns\tfirst_start_ns\tlast_end_ns\n";
    for (const auto& [key, s] : streams)
        o << "stream\t" << std::get<0>(key) << "\t" << std::get<1>(key) << "\t" << activityKindName(std::get<2>(key))
          << "\t" << s.count << "\t" << s.totalNs << "\t" << s.firstNs << "\t" << s.lastEndNs << "\n";

    o << "# activity\tindex\tkind\tstart_ns\tduration_ns\tdevice\tstream\tcorrelation\tgrid\tblock\tphase\top\tname\n";
    for (std::size_t i = 0; i < std::min(kFirstActivities, t.activities().size()); ++i) {
        const auto& a = t.activities()[i];
        o << "activity\t" << i << "\t" << activityKindName(a.kind) << "\t" << a.startNs << "\t" << a.durationNs << "\t"
          << a.device << "\t" << a.stream << "\t" << a.correlation << "\t" << dims(a.grid) << "\t" << dims(a.block)
          << "\t" << phaseName(a.phase) << "\t" << t.opName(a) << "\t" << t.text(a.name) << "\n";
    }
    return o.str();
}

} // namespace

class TestGoldenNsys : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void canonicalDumpMatches()
    {
        if (!QFileInfo::exists(kwbtest::qs(sqlitePath())))
            QSKIP("../shared/data/nsys/mfu_2gpu_before.sqlite is not beside this checkout (set KWB_SHARED_DATA_DIR)");
        auto trace = readNsysSqlite(sqlitePath(), {}, "mfu_2gpu_before");
        QVERIFY2(trace.isOk(), trace.status().toString().c_str());
        // The export's own figures (../shared/data/README.md), independent of the golden.
        std::size_t kernels = 0;
        for (const auto& a : (*trace)->activities()) kernels += a.kind == ActivityKind::Kernel ? 1 : 0;
        QCOMPARE(kernels, std::size_t {4010});
        KWB_COMPARE_GOLDEN("nsys/mfu_2gpu_before.txt", canonicalDump(**trace));
    }
};

QTEST_GUILESS_MAIN(TestGoldenNsys)
#include "tst_golden_nsys.moc"
