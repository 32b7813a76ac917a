#include <QtTest>

#include "analysis/statistics.h"
#include "records/leaderboard_importer.h"
#include "test_util.h"

using namespace kwb;

namespace {

EvalRecord rec(const char* problem, Outcome outcome, std::optional<double> speedup, const char* model = "m")
{
    EvalRecord r;
    r.problem.suite = "KernelBench";
    r.problem.level = 1;
    r.problem.name = problem;
    r.model = model;
    r.outcome = outcome;
    r.compiled = outcome != Outcome::CompileError;
    r.speedup = speedup;
    return r;
}

std::vector<const EvalRecord*> ptrs(const std::vector<EvalRecord>& v)
{
    std::vector<const EvalRecord*> out;
    for (const auto& r : v) out.push_back(&r);
    return out;
}

} // namespace

class TestStatistics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void medianQuantileGeomean()
    {
        QCOMPARE(*median({3, 1, 2}), 2.0);
        QCOMPARE(*median({4, 1, 2, 3}), 2.5);
        QVERIFY(!median({}).has_value());
        QCOMPARE(*quantile({1, 2, 3, 4, 5}, 0.25), 2.0);
        const std::vector<double> g{1, 4, 16};
        QCOMPARE(*geometricMean(g), 4.0);
        const std::vector<double> withZero{1, 0};
        QVERIFY(!geometricMean(withZero).has_value());
    }

    // KernelBench: fast_p = |correct and speedup > p| / |all|, strictly greater.
    void fastPCountsIncorrectInDenominator()
    {
        const std::vector<EvalRecord> v{rec("a", Outcome::Correct, 2.0), rec("b", Outcome::Correct, 1.0),
            rec("c", Outcome::Incorrect, 5.0), rec("d", Outcome::CompileError, std::nullopt),
            rec("e", Outcome::Correct, std::nullopt)};
        const auto p = ptrs(v);
        QCOMPARE(fastP(p, 0.0), 2.0 / 5.0);
        QCOMPARE(fastP(p, 1.0), 1.0 / 5.0); // 1.0 is not > 1.0
        QCOMPARE(fastP(p, 2.0), 0.0);
        QCOMPARE(fastP(p, 1.999), 1.0 / 5.0);
        const FastPCurve curve = fastPCurve(p);
        for (double q : {0.0, 0.5, 0.99, 1.0, 1.5, 1.999, 2.0, 3.0}) QCOMPARE(curve.evaluate(q), fastP(p, q));
    }

    void passAtKMatchesUnbiasedEstimator_data()
    {
        QTest::addColumn<qint64>("n");
        QTest::addColumn<qint64>("c");
        QTest::addColumn<qint64>("k");
        QTest::addColumn<double>("expected");
        // 1 - C(n-c,k)/C(n,k), computed independently with exact binomials.
        QTest::addRow("10/3 k1") << qint64(10) << qint64(3) << qint64(1) << 0.3;
        QTest::addRow("10/3 k5") << qint64(10) << qint64(3) << qint64(5) << 0.9166666666666666;
        QTest::addRow("5/0 k1") << qint64(5) << qint64(0) << qint64(1) << 0.0;
        QTest::addRow("20/2 k10") << qint64(20) << qint64(2) << qint64(10) << 0.7631578947368421;
        QTest::addRow("all correct") << qint64(4) << qint64(4) << qint64(2) << 1.0;
    }
    void passAtKMatchesUnbiasedEstimator()
    {
        QFETCH(qint64, n);
        QFETCH(qint64, c);
        QFETCH(qint64, k);
        QFETCH(double, expected);
        QVERIFY(std::abs(passAtK(n, c, k) - expected) < 1e-12);
    }

    void projectionReproducesThePaper()
    {
        const Projection p = project(0.582, 0.417, 1.552);
        QVERIFY(std::abs(p.expectedSaving - 0.086319) < 1e-6); // 8.63%
        QVERIFY(std::abs(p.amdahlSpeedup - 1.2610340479192939) < 1e-9);
        QVERIFY(std::abs(p.amdahlSaving - 0.582 * (1 - 1 / 1.552)) < 1e-12);
    }

    void groupingAndPassAtK()
    {
        const std::vector<EvalRecord> v{rec("a", Outcome::Correct, 2.0, "x"), rec("a", Outcome::Incorrect, std::nullopt, "x"),
            rec("b", Outcome::Correct, 0.5, "x"), rec("b", Outcome::Correct, 0.7, "x"), rec("a", Outcome::Correct, 1.2, "y")};
        SummaryOptions o;
        o.groupBy = {"model"};
        o.passK = {1, 2};
        const auto groups = summarize(v, o);
        QCOMPARE(groups.size(), std::size_t(2));
        const GroupSummary& x = groups[0];
        QCOMPARE(QString::fromStdString(x.key[0].second), QStringLiteral("x"));
        QCOMPARE(x.records, std::size_t(4));
        QCOMPARE(x.correct, std::size_t(3));
        QCOMPARE(x.problems, std::size_t(2));
        QCOMPARE(*x.medianSpeedup, 0.7);
        QCOMPARE(*x.winRate, 1.0 / 3.0);
        QVERIFY(std::abs(*x.geomeanSpeedup - std::cbrt(2.0 * 0.5 * 0.7)) < 1e-12);
        // pass@1: problem a 1/2, problem b 2/2 -> mean 0.75; pass@2: a 1, b 1.
        QCOMPARE(x.passAtK[0].second, 0.75);
        QCOMPARE(x.passAtK[1].second, 1.0);
        QCOMPARE(groups[1].records, std::size_t(1));
        QCOMPARE(groups[1].passAtK.size(), std::size_t(1)); // k=2 needs n >= 2
    }

    void bootstrapIsDeterministicAndBracketsTheMedian()
    {
        std::vector<double> s;
        for (int i = 1; i <= 200; ++i) s.push_back(0.5 + 0.01 * i);
        auto medianOf = [](const std::vector<double>& v) { return *median(v); };
        const auto a = bootstrapCi(s, medianOf, 1000, 7);
        const auto b = bootstrapCi(s, medianOf, 1000, 7);
        QVERIFY(a && b);
        QCOMPARE(a->low, b->low);
        QCOMPARE(a->high, b->high);
        const double m = *median(s);
        QVERIFY(a->low < m && m < a->high);
        QVERIFY(a->high - a->low < 0.3);
    }

    // Per-model counts and medians checked against an independent computation
    // (Python statistics.median over torch_speedup of raw_data.json).
    void leaderboardPerModel_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("medianSpeedup");
        QTest::addColumn<double>("geomean");
        QTest::addColumn<double>("fast1");
        QTest::addRow("405B") << "Meta-Llama-3.1-405B-Instruct" << 42 << 0.3420725321 << 0.2402846008057917 << 0.09523809523809523;
        QTest::addRow("claude") << "claude-3-5-sonnet-20241022" << 69 << 0.6545454545 << 0.3922629886099494 << 0.2028985507246377;
        QTest::addRow("deepseek") << "deepseek" << 76 << 0.6154038973 << 0.45038217412594594 << 0.06578947368421052;
        QTest::addRow("gemini") << "gemini-1.5-flash-002" << 30 << 0.59488304095 << 0.3940746837592373 << 0.2;
        QTest::addRow("gpt-4o") << "gpt-4o-2024-08-06" << 55 << 0.5842105263 << 0.43682213444293894 << 0.2;
        QTest::addRow("70B") << "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo" << 26 << 0.2499445676 << 0.16516085382421575
                             << 0.07692307692307693;
        QTest::addRow("o1") << "o1-preview-2024-09-12" << 115 << 0.8525345622 << 0.7048234726082591 << 0.3130434782608696;
    }
    void leaderboardPerModel()
    {
        KWB_REQUIRE_SHARED_DATA();
        QFETCH(QString, model);
        QFETCH(int, count);
        QFETCH(double, medianSpeedup);
        QFETCH(double, geomean);
        QFETCH(double, fast1);
        const RecordSet set = loadLeaderboard(kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"));
        SummaryOptions o;
        o.groupBy = {"model"};
        const auto groups = summarize(set.records, o);
        QCOMPARE(groups.size(), std::size_t(7));
        const GroupSummary* g = nullptr;
        for (const auto& x : groups)
            if (QString::fromStdString(x.key[0].second) == model) g = &x;
        QVERIFY(g);
        QCOMPARE(int(g->records), count);
        QVERIFY(std::abs(*g->medianSpeedup - medianSpeedup) < 1e-12);
        QVERIFY(std::abs(*g->geomeanSpeedup - geomean) < 1e-12);
        QVERIFY(std::abs(g->fastP[3].second - fast1) < 1e-12); // p grid index 3 is p = 1
        QVERIFY(g->medianCi && g->medianCi->low <= *g->medianSpeedup && *g->medianSpeedup <= g->medianCi->high);
    }
};

QTEST_GUILESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
