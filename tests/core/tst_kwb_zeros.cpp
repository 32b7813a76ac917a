// kwb zeros and kwb summary's claims table, run as users run them: --show on
// the committed H200 table, --compare, the refusal without a GPU (the reason
// said, a non-zero exit), and the claims table of kwb verify's records.
#include <QtTest>

#include <QTemporaryDir>

#include "test_util.h"

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run kwb(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(KWB_CLI), args);
    p.waitForFinished(300000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QString table()
{
    return QStringLiteral(KWB_DATASET_DIR "/zero_acceptance/zero_acceptance_levels.jsonl");
}

} // namespace

class TestKwbZeros : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsTheCommittedTable()
    {
        const Run r = kwb({QStringLiteral("zeros"), QStringLiteral("--show"), QStringLiteral("--level=1"), table()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("v0 level 1: 4 of 100 accept zeros at 1e-2 (23_Softmax, 37_FrobeniusNorm_, 38_L1Norm_, "
                                "50_Product_reduction_over_a_dimension)"),
            r.out.constData());
        QVERIFY(r.out.contains("current level 2: 4 of 100 accept zeros at 1e-2"));
        QVERIFY(r.out.contains("NVIDIA H200"));
        QVERIFY(r.out.contains("23_Softmax"));
        const Run same = kwb({QStringLiteral("zeros"), QStringLiteral("--show"), QStringLiteral("--compare"), table(), table()});
        QVERIFY2(same.exitCode == 0, same.err.constData());
        QVERIFY(same.out.contains("0 differences"));
    }

    void badTableNamesTheLine()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"version\": \"v0\", \"level\": 1, \"problem\": \"x\", \"status\": \"ok\", \"max_abs\": 1, \"rms\": 1}\n");
        f.close();
        const Run r = kwb({QStringLiteral("zeros"), QStringLiteral("--show"), bad});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bad.jsonl:1") && r.err.contains("zeros_pass_0.01"), r.err.constData());
    }

    // No GPU on this machine: kwb zeros says why and exits 3 (no table written).
    void refusesWithoutAGpu()
    {
        KWB_REQUIRE_SHARED_DATA();
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("z.jsonl"));
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QString()); // also on a GPU machine
        const Run r = kwb({QStringLiteral("zeros"), QStringLiteral("--out"), out,
                              kwbtest::qs(kwbtest::sharedData("kernelbench/problems/v0/KernelBench/level1/19_ReLU.py"))},
            env);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("kwb zeros: no GPU") || r.err.contains("kwb zeros: needs a GPU"), r.err.constData());
    }

    void usageErrors()
    {
        QCOMPARE(kwb({QStringLiteral("zeros")}).exitCode, 2);
        QCOMPARE(kwb({QStringLiteral("zeros"), QStringLiteral("--levels=x"), QStringLiteral("d")}).exitCode, 2);
        const Run missing = kwb({QStringLiteral("zeros"), QStringLiteral("/nonexistent/level1")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no such file or folder"));
    }

    void summaryPrintsTheClaimsTable()
    {
        const Run r = kwb({QStringLiteral("summary"),
            QStringLiteral(KWB_DATASET_DIR "/kernelbench_dlrm/evaluations/dlrm_bench_verified_h200.jsonl")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("Claimed speedups against their re-runs"), r.out.constData());
        QVERIFY(r.out.contains("dlrm-bench/sample0"));
        QVERIFY(r.out.contains("8 (80%)"));
        const Run off = kwb({QStringLiteral("summary"), QStringLiteral("--claims=no"),
            QStringLiteral(KWB_DATASET_DIR "/kernelbench_dlrm/evaluations/dlrm_bench_verified_h200.jsonl")});
        QVERIFY(!off.out.contains("Claimed speedups"));
    }
};

QTEST_GUILESS_MAIN(TestKwbZeros)
#include "tst_kwb_zeros.moc"
