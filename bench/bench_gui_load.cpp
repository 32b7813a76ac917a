// GUI responsiveness with 100,000 records: generates the records in process,
// writes them as native JSONL, opens them in the workbench window through the
// same background path as File → Open, and measures the longest GUI-thread
// stall: a 1 ms precise timer records the gaps between its ticks while the
// window loads, computes its views, switches views, filters and searches.
//
// Usage: bench_gui_load [--records N] [--keep FILE]
// Runs with the offscreen platform unless QT_QPA_PLATFORM says otherwise.
#include <QApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <random>
#include <vector>

#include "main_window.h"
#include "models/record_filter_proxy.h"
#include "records/native_writer.h"
#include "models/record_table_model.h"
#include "views/distributions_view.h"
#include "views/records_view.h"

#include <QTableView>
#include <functional>

namespace {

std::vector<kwb::EvalRecord> generate(int n)
{
    std::mt19937_64 rng(20261129);
    std::lognormal_distribution<double> speed(0.0, 0.8);
    std::uniform_real_distribution<double> u(0, 1);
    const char* models[] = {"gpt-4o", "o1", "claude-3.5-sonnet", "deepseek-r1", "llama-3.1-405b", "qwen2.5-coder",
        "gemini-1.5-pro"};
    std::vector<kwb::EvalRecord> out;
    out.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        kwb::EvalRecord r;
        r.id = "rec-" + std::to_string(i);
        r.model = models[i % 7];
        r.run = "bench";
        r.problem.suite = "KernelBench";
        r.problem.level = 1 + (i / 7) % 3;
        r.problem.id = (i / 21) % 100 + 1;
        r.problem.name = std::to_string(*r.problem.id) + "_Problem";
        r.sample = i % 10;
        const double roll = u(rng);
        r.outcome = roll < 0.6 ? kwb::Outcome::Correct : roll < 0.85 ? kwb::Outcome::Incorrect : kwb::Outcome::CompileError;
        r.compiled = r.outcome != kwb::Outcome::CompileError;
        if (r.outcome == kwb::Outcome::Correct) {
            r.candidate.medianMs = 0.1 + u(rng);
            kwb::Baseline b;
            b.name = "torch_eager";
            r.speedup = speed(rng);
            b.stats.medianMs = *r.candidate.medianMs * *r.speedup;
            r.baselines.push_back(b);
            r.speedupBaseline = "torch_eager";
        }
        if (u(rng) < 0.05) {
            r.verification.flags.push_back({"excessive_speedup", "speedup far above the problem's roofline", "warning"});
            if (u(rng) < 0.3) {
                kwb::Coverage c;
                c.writtenFraction = u(rng);
                c.totalElements = 1 << 20;
                c.grid.rows = 32;
                c.grid.cols = 32;
                c.grid.writtenFraction.assign(1024, static_cast<float>(*c.writtenFraction));
                r.verification.coverage = c;
                r.verification.flags.push_back({"low_coverage", "kernel wrote part of its output", "error"});
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Gaps between ticks of a 1 ms timer on the GUI thread: wall-clock time, and
// the GUI thread's own CPU time in the same gap (on a loaded machine the wall
// gap also holds time the scheduler gave to other processes).
class StallMeter : public QObject {
public:
    StallMeter()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            const double cpu = threadCpuMs();
            m_gaps.push_back((now - m_last) / 1e6);
            m_cpuGaps.push_back(cpu - m_lastCpu);
            m_last = now;
            m_lastCpu = cpu;
        });
    }
    void start()
    {
        m_gaps.clear();
        m_cpuGaps.clear();
        m_clock.start();
        m_last = 0;
        m_lastCpu = threadCpuMs();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    double maxGap() const { return m_gaps.empty() ? 0 : *std::max_element(m_gaps.begin(), m_gaps.end()); }
    double maxCpuGap() const { return m_cpuGaps.empty() ? 0 : *std::max_element(m_cpuGaps.begin(), m_cpuGaps.end()); }
    double p99() const
    {
        if (m_gaps.empty()) return 0;
        std::vector<double> g = m_gaps;
        std::sort(g.begin(), g.end());
        return g[static_cast<std::size_t>(0.99 * static_cast<double>(g.size() - 1))];
    }
    std::size_t ticks() const { return m_gaps.size(); }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    double m_lastCpu = 0;
    std::vector<double> m_gaps;
    std::vector<double> m_cpuGaps;
};

// Keeps the event loop (and the meter) running for ms milliseconds.
void spin(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

struct Phase {
    std::string name;
    double wallMs;
    double maxGapMs;
    double p99Ms;
    double maxCpuGapMs;
};

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (qEnvironmentVariableIsSet("KWB_TIMING")) QLoggingCategory::setFilterRules(QStringLiteral("kwb.ui.timing.debug=true"));
    int n = 100000;
    QString keep;
    const QStringList args = QCoreApplication::arguments();
    for (qsizetype i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--records")) n = args[i + 1].toInt();
        if (args[i] == QLatin1String("--keep")) keep = args[i + 1];
    }

    QTemporaryDir dir;
    const QString file = keep.isEmpty() ? dir.filePath(QStringLiteral("records.jsonl")) : keep;
    QElapsedTimer t;
    t.start();
    const auto records = generate(n);
    if (auto s = kwb::writeRecordsFile(file.toStdString(), records); !s.isOk()) {
        std::fprintf(stderr, "bench_gui_load: %s\n", s.toString().c_str());
        return 1;
    }
    std::printf("generated and wrote %d records (%.1f MB) in %.0f ms\n", n,
        static_cast<double>(QFileInfo(file).size()) / 1e6, static_cast<double>(t.elapsed()));

    kwb::ui::MainWindow window;
    window.resize(1280, 800);
    window.show();
    spin(200);

    std::vector<Phase> phases;
    StallMeter meter;
    auto measure = [&](const std::string& name, const std::function<void()>& action, int settleMs) {
        meter.start();
        QElapsedTimer wall;
        wall.start();
        action();
        window.waitUntilIdle(120000);
        spin(settleMs);
        meter.stop();
        phases.push_back({name, static_cast<double>(wall.elapsed()), meter.maxGap(), meter.p99(), meter.maxCpuGap()});
    };

    measure("open 100k records (load, index, publish, views)", [&] {
        QSignalSpy loaded(&window, &kwb::ui::MainWindow::projectLoaded);
        window.openPaths({file});
        while (loaded.isEmpty()) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }, 300);
    if (window.projectData()->records->records.size() != static_cast<std::size_t>(n)) {
        std::fprintf(stderr, "bench_gui_load: loaded %zu records, expected %d\n",
            window.projectData()->records->records.size(), n);
        return 1;
    }
    for (const auto& name : window.viewNames())
        measure("show view " + name.toStdString(), [&] { window.showView(name); }, 200);
    window.showView(QStringLiteral("records"));
    measure("filter: status = correct", [&] {
        kwb::ui::RecordFilter f;
        f.status = QStringLiteral("correct");
        window.recordsView()->setFilter(f);
    }, 200);
    measure("search: 'claude 17_'", [&] {
        kwb::ui::RecordFilter f;
        f.search = QStringLiteral("claude 17_");
        window.recordsView()->setFilter(f);
    }, 200);
    measure("clear filters", [&] { window.recordsView()->setFilter({}); }, 200);
    auto sortBy = [&](int column, Qt::SortOrder order) {
        QSignalSpy sorted(window.recordsView()->model(), &kwb::ui::RecordTableModel::sortFinished);
        window.recordsView()->table()->sortByColumn(column, order);
        while (sorted.isEmpty()) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    };
    measure("sort 100k rows by speedup", [&] { sortBy(kwb::ui::RecordTableModel::Speedup, Qt::DescendingOrder); }, 200);
    measure("sort 100k rows by problem", [&] { sortBy(kwb::ui::RecordTableModel::Problem, Qt::AscendingOrder); }, 200);
    measure("distributions: group by level, then ECDF", [&] {
        window.showView(QStringLiteral("distributions"));
        window.distributionsView()->setGroupBy(QStringLiteral("level"));
        window.waitUntilIdle(60000);
        window.distributionsView()->setKind(kwb::ui::DistributionKind::Ecdf);
    }, 200);

    std::printf("\n%-48s %9s %13s %10s %15s\n", "phase", "wall ms", "max wall gap", "p99 gap", "max GUI CPU gap");
    double worst = 0;
    double worstCpu = 0;
    for (const auto& p : phases) {
        std::printf("%-48s %9.0f %10.1f ms %7.1f ms %12.1f ms\n", p.name.c_str(), p.wallMs, p.maxGapMs, p.p99Ms,
            p.maxCpuGapMs);
        worst = std::max(worst, p.maxGapMs);
        worstCpu = std::max(worstCpu, p.maxCpuGapMs);
    }
    std::printf("\nlongest GUI-thread stall: %.1f ms wall, %.1f ms of GUI-thread CPU (bound: 50 ms)\n", worst, worstCpu);
    return 0;
}
