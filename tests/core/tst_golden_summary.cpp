// `kwb summary --format json`, a documented contract (docs/formats.md,
// "Summary JSON"), pinned byte for byte in tests/data/golden/summary/. The
// CLI is run as users run it, from a working directory that makes every file
// argument relative, so the output does not depend on where the checkout lives.
// KWB_REGENERATE_GOLDENS=1 rewrites the files (tests/data/golden/README.md).
#include <QtTest>

#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include "golden_util.h"

namespace {

struct Run {
    int exitCode = -1;
    std::string out;
    QByteArray err;
};

// Runs kwb in `cwd`; file arguments are given relative to it.
Run kwb(const QString& cwd, const QStringList& args)
{
    QProcess p;
    p.setWorkingDirectory(cwd);
    p.start(QStringLiteral(KWB_CLI), args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput().toStdString(), p.readAllStandardError()};
}

QString sharedRoot()
{
    return kwbtest::qs(kwbtest::sharedData(""));
}

QString testRoot()
{
    return kwbtest::qs(kwbtest::testData(""));
}

} // namespace

class TestGoldenSummary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void leaderboardByModel()
    {
        KWB_REQUIRE_SHARED_DATA();
        const Run r = kwb(sharedRoot(),
            {QStringLiteral("summary"), QStringLiteral("--by"), QStringLiteral("model"), QStringLiteral("--format"),
                QStringLiteral("json"), QStringLiteral("kernelbench/leaderboard/raw_data.json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        KWB_COMPARE_GOLDEN("summary/leaderboard_by_model.json", r.out);
    }

    // The v0 fixture joined to KernelBench's H100 baseline, grouped by
    // level and outcome, with the fast_p curve.
    void kernelBenchWithBaseline()
    {
        KWB_REQUIRE_SHARED_DATA();
        // The output names no file, but both arguments are relative anyway
        // (between canonical paths: ../shared may be a symbolic link).
        const QDir from(QFileInfo(sharedRoot()).canonicalFilePath());
        const QString eval = from.relativeFilePath(
            QFileInfo(testRoot() + QStringLiteral("kernelbench/runs/level1_v0_run/eval_results.json"))
                .canonicalFilePath());
        const Run r = kwb(from.path(),
            {QStringLiteral("summary"), QStringLiteral("--by=level,outcome"), QStringLiteral("--format=json"),
                QStringLiteral("--curve"), QStringLiteral("--baseline"),
                QStringLiteral("kernelbench/timing/H100_Modal/baseline_time_torch.json"), eval});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        KWB_COMPARE_GOLDEN("summary/kernelbench_level1_v0_run_h100_baseline.json", r.out);
    }

    // Both eval_results.json shapes, by problem, without a baseline: needs no
    // shared data, so this golden is checked everywhere.
    void kernelBenchRunsByProblem()
    {
        const Run r = kwb(testRoot(),
            {QStringLiteral("summary"), QStringLiteral("--by=run,problem"), QStringLiteral("--format=json"),
                QStringLiteral("kernelbench/runs/level1_v0_run/eval_results.json"),
                QStringLiteral("kernelbench/runs/level2_samples_run/eval_results.json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        KWB_COMPARE_GOLDEN("summary/kernelbench_runs_by_problem.json", r.out);
    }
};

QTEST_GUILESS_MAIN(TestGoldenSummary)
#include "tst_golden_summary.moc"
