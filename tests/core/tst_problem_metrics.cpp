// Host-side metrics: torch.allclose semantics, scale-invariant metrics, zero
// acceptance, coverage-grid math and the roofline floor, against hand-computed values.
#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

#include "problems/coverage_grid.h"
#include "problems/output_metrics.h"
#include "problems/roofline.h"

using namespace kwb;

namespace {
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
bool near(double a, double b, double eps = 1e-6) { return std::fabs(a - b) <= eps; }
} // namespace

class TestProblemMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void isCloseMatchesTorch_data();
    void isCloseMatchesTorch();
    void metricsByHand();
    void nonFiniteValues();
    void lengthMismatch();
    void largeOutputsAcrossChunks();
    void zeroAcceptance();
    void flatLayout();
    void matrixLayout();
    void layoutEdgeCases();
    void hostScan();
    void roofline();
    void halfConversions();
};

void TestProblemMetrics::isCloseMatchesTorch_data()
{
    QTest::addColumn<float>("out");
    QTest::addColumn<float>("ref");
    QTest::addColumn<double>("atol");
    QTest::addColumn<double>("rtol");
    QTest::addColumn<bool>("close");
    QTest::addRow("equal") << 1.0f << 1.0f << 0.0 << 0.0 << true;
    QTest::addRow("within atol") << 1.00005f << 1.0f << 1e-4 << 0.0 << true;
    QTest::addRow("boundary is inclusive") << 3.0f << 2.0f << 0.0 << 0.5 << true;
    QTest::addRow("boundary at rtol * |out|") << 4.0f << 2.0f << 0.0 << 0.5 << true;
    QTest::addRow("just past boundary") << std::nextafter(4.0f, 5.0f) << 2.0f << 0.0 << 0.5 << false;
    // KernelBench calls torch.allclose(reference, candidate): rtol scales |other|, the candidate.
    QTest::addRow("rtol uses |out| not |ref|") << 0.0f << 2.0f << 0.0 << 1.0 << false;
    QTest::addRow("rtol asymmetric") << 2.0f << 0.0f << 0.0 << 1.0 << true;
    QTest::addRow("fp32 1e-4 at 1.0002") << 1.0002f << 1.0f << 1e-4 << 1e-4 << false;
    QTest::addRow("nan vs nan") << kNan << kNan << 1.0 << 1.0 << false;
    QTest::addRow("nan vs 1") << kNan << 1.0f << 1.0 << 1.0 << false;
    QTest::addRow("inf vs inf") << kInf << kInf << 0.0 << 0.0 << true;
    QTest::addRow("inf vs -inf") << kInf << -kInf << 1.0 << 1.0 << false;
    QTest::addRow("inf vs big") << kInf << 3e38f << 1.0 << 1.0 << false;
    QTest::addRow("big vs inf") << 3e38f << kInf << 1.0 << 1.0 << false;
    QTest::addRow("negative zero") << -0.0f << 0.0f << 0.0 << 0.0 << true;
}

void TestProblemMetrics::isCloseMatchesTorch()
{
    QFETCH(float, out);
    QFETCH(float, ref);
    QFETCH(double, atol);
    QFETCH(double, rtol);
    QFETCH(bool, close);
    QCOMPARE(isClose(out, ref, {atol, rtol}), close);
}

void TestProblemMetrics::metricsByHand()
{
    const std::vector<float> ref{1.0f, 2.0f, 0.0f, -4.0f};
    const std::vector<float> out{1.00005f, 2.1f, 0.0f, -4.0f};
    const OutputMetrics m = compareOutputs(out, ref, {1e-4, 1e-4});
    QCOMPARE(m.count, std::int64_t{4});
    QVERIFY(!m.allclose);
    QCOMPARE(m.outOfTolerance, std::int64_t{1});
    QCOMPARE(m.outOfToleranceShare, 0.25);
    QCOMPARE(m.firstMismatch, std::int64_t{1});
    const double e0 = double(1.00005f) - 1.0;
    const double e1 = double(2.1f) - 2.0;
    QVERIFY(near(m.maxAbsError, e1, 1e-12));
    QVERIFY(near(m.relL2Error, std::sqrt(e0 * e0 + e1 * e1) / std::sqrt(21.0), 1e-12));
    QVERIFY(near(m.refRms, std::sqrt(21.0 / 4.0), 1e-12));
    QVERIFY(near(m.maxErrorOverRefRms, e1 / std::sqrt(21.0 / 4.0), 1e-12));
    QCOMPARE(m.nanCount, std::int64_t{0});

    const OutputMetrics same = compareOutputs(ref, ref, {0.0, 0.0});
    QVERIFY(same.allclose);
    QCOMPARE(same.relL2Error, 0.0);
    QCOMPARE(same.firstMismatch, std::int64_t{-1});

    // Scale invariance: multiplying both by 1000 leaves the relative metrics alone.
    std::vector<float> ref1000;
    std::vector<float> out1000;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref1000.push_back(ref[i] * 1024.0f);
        out1000.push_back(out[i] * 1024.0f);
    }
    const OutputMetrics scaled = compareOutputs(out1000, ref1000, {1e-4, 1e-4});
    QVERIFY(near(scaled.relL2Error, m.relL2Error, 1e-12));
    QVERIFY(near(scaled.maxErrorOverRefRms, m.maxErrorOverRefRms, 1e-12));
}

void TestProblemMetrics::nonFiniteValues()
{
    const std::vector<float> ref{1.0f, kNan, kInf, 2.0f, 3.0f};
    const std::vector<float> out{1.0f, kNan, kInf, kNan, -kInf};
    const OutputMetrics m = compareOutputs(out, ref, {1e-4, 1e-4});
    QVERIFY(!m.allclose);
    QCOMPARE(m.outOfTolerance, std::int64_t{3}); // NaN==NaN is not close; inf==inf is
    QCOMPARE(m.firstMismatch, std::int64_t{1});
    QCOMPARE(m.nanCount, std::int64_t{2});
    QCOMPARE(m.infCount, std::int64_t{2});
    QCOMPARE(m.refNanCount, std::int64_t{1});
    QCOMPARE(m.refInfCount, std::int64_t{1});
    QCOMPARE(m.maxAbsError, 0.0); // only finite pairs enter the error metrics
    QVERIFY(near(m.refRms, std::sqrt((1.0 + 4.0 + 9.0) / 3.0)));

    const std::vector<float> zeroRef{0.0f, 0.0f};
    const std::vector<float> someOut{0.0f, 1.0f};
    const OutputMetrics z = compareOutputs(someOut, zeroRef, {1e-4, 1e-4});
    QVERIFY(std::isinf(z.relL2Error));
    QVERIFY(std::isinf(z.maxErrorOverRefRms));
}

void TestProblemMetrics::lengthMismatch()
{
    const std::vector<float> ref{1.0f, 2.0f, 3.0f};
    const std::vector<float> out{1.0f};
    const OutputMetrics m = compareOutputs(out, ref, {1e-4, 1e-4});
    QVERIFY(!m.allclose);
    QCOMPARE(m.count, std::int64_t{3});
    QCOMPARE(m.outOfTolerance, std::int64_t{2});
    QCOMPARE(m.firstMismatch, std::int64_t{1});
}

void TestProblemMetrics::largeOutputsAcrossChunks()
{
    // Several 1M-element chunks, scanned in parallel: counts, the first
    // mismatch and the sums must be those of one sequential pass.
    const std::size_t chunk = std::size_t{1} << 20;
    const std::size_t n = 3 * chunk + 7;
    std::vector<float> ref(n);
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        ref[i] = static_cast<float>((i * 2654435761u) % 1000) / 997.0f - 0.5f;
        out[i] = ref[i] + ((i % 3 == 0) ? 1e-6f : 0.0f);
    }
    out[chunk + 5] = ref[chunk + 5] + 0.5f;
    out[3 * chunk + 3] = ref[3 * chunk + 3] - 0.25f;
    out[2 * chunk] = kNan;
    double errSq = 0.0;
    double refSq = 0.0;
    double maxAbs = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(out[i])) continue;
        const double d = std::fabs(double(out[i]) - double(ref[i]));
        errSq += d * d;
        refSq += double(ref[i]) * double(ref[i]);
        maxAbs = std::max(maxAbs, d);
    }
    const OutputMetrics m = compareOutputs(out, ref, {1e-4, 1e-4});
    QCOMPARE(m.count, std::int64_t(n));
    QCOMPARE(m.outOfTolerance, std::int64_t{3});
    QCOMPARE(m.firstMismatch, std::int64_t(chunk + 5));
    QCOMPARE(m.nanCount, std::int64_t{1});
    QCOMPARE(m.maxAbsError, maxAbs);
    QVERIFY2(std::fabs(m.relL2Error - std::sqrt(errSq / refSq)) <= 1e-9 * std::sqrt(errSq / refSq),
        qPrintable(QString::number(m.relL2Error, 'g', 17) + QLatin1Char(' ') + QString::number(std::sqrt(errSq / refSq), 'g', 17)));
    const OutputMetrics again = compareOutputs(out, ref, {1e-4, 1e-4});
    QCOMPARE(again.relL2Error, m.relL2Error); // bitwise: the merge order is fixed
    QCOMPARE(again.refRms, m.refRms);
}

void TestProblemMetrics::zeroAcceptance()
{
    const ToleranceValues fp32{1e-4, 1e-4};
    QVERIFY(zerosPassAllclose(std::vector<float>{1e-6f, -5e-5f, 0.0f}, fp32));
    QVERIFY(!zerosPassAllclose(std::vector<float>{1e-6f, 2e-4f}, fp32));
    QVERIFY(zerosPassAllclose(std::vector<float>{}, fp32));
    QVERIFY(!zerosPassAllclose(std::vector<float>{kNan}, fp32));
    // KernelBench's legacy 1e-2 accepts zeros for outputs up to 0.01.
    QVERIFY(zerosPassAllclose(std::vector<float>{0.009f, -0.0099f}, {1e-2, 1e-2}));
}

void TestProblemMetrics::flatLayout()
{
    const std::vector<std::int64_t> shape{10};
    auto l = planCoverageLayout(shape, 2, 2);
    QVERIFY(l.isOk());
    QVERIFY(l->flat);
    QCOMPARE(l->tileCols, std::int64_t{3});
    QCOMPARE(l->gridRows, 2);
    QCOMPARE(l->gridCols, 2);
    QCOMPARE(tileElementCount(*l, 0), std::int64_t{3});
    QCOMPARE(tileElementCount(*l, 3), std::int64_t{1});
    QCOMPARE(tileOfElement(*l, 9), std::int64_t{3});
    QCOMPARE(tileOfElement(*l, 10), std::int64_t{-1});
    QCOMPARE(tileOfElement(*l, -1), std::int64_t{-1});
    std::int64_t sum = 0;
    for (std::int64_t t = 0; t < l->tileCount(); ++t) sum += tileElementCount(*l, t);
    QCOMPARE(sum, std::int64_t{10});

    // More tiles requested than elements: one element per tile, no empty rows.
    auto small = planCoverageLayout(std::vector<std::int64_t>{5}, 32, 32);
    QVERIFY(small.isOk());
    QCOMPARE(small->tileCols, std::int64_t{1});
    QCOMPARE(small->gridCols, 5);
    QCOMPARE(small->gridRows, 1);

    // 4M elements at 32 x 32: 1024 tiles of 4096.
    auto big = planCoverageLayout(std::vector<std::int64_t>{4194304}, 32, 32);
    QVERIFY(big.isOk());
    QCOMPARE(big->tileCount(), std::int64_t{1024});
    QCOMPARE(big->tileCols, std::int64_t{4096});
}

void TestProblemMetrics::matrixLayout()
{
    auto l = planCoverageLayout(std::vector<std::int64_t>{5, 7}, 2, 3);
    QVERIFY(l.isOk());
    QVERIFY(!l->flat);
    QCOMPARE(l->rows, std::int64_t{5});
    QCOMPARE(l->cols, std::int64_t{7});
    QCOMPARE(l->tileRows, std::int64_t{3});
    QCOMPARE(l->tileCols, std::int64_t{3});
    QCOMPARE(l->gridRows, 2);
    QCOMPARE(l->gridCols, 3);
    QCOMPARE(tileElementCount(*l, 0), std::int64_t{9});
    QCOMPARE(tileElementCount(*l, 5), std::int64_t{2}); // rows 3..4, col 6
    QCOMPARE(tileOfElement(*l, 4 * 7 + 6), std::int64_t{5});
    QCOMPARE(tileOfElement(*l, 0 * 7 + 3), std::int64_t{1});
    std::int64_t sum = 0;
    for (std::int64_t t = 0; t < l->tileCount(); ++t) sum += tileElementCount(*l, t);
    QCOMPARE(sum, std::int64_t{35});

    // Higher ranks collapse the leading extents.
    auto r3 = planCoverageLayout(std::vector<std::int64_t>{2, 3, 4}, 64, 64);
    QVERIFY(r3.isOk());
    QCOMPARE(r3->rows, std::int64_t{6});
    QCOMPARE(r3->cols, std::int64_t{4});
    QCOMPARE(r3->gridRows, 6);
    QCOMPARE(r3->gridCols, 4);
}

void TestProblemMetrics::layoutEdgeCases()
{
    auto scalar = planCoverageLayout(std::vector<std::int64_t>{}, 8, 8);
    QVERIFY(scalar.isOk());
    QCOMPARE(scalar->elementCount(), std::int64_t{1});
    QCOMPARE(scalar->tileCount(), std::int64_t{1});

    auto empty = planCoverageLayout(std::vector<std::int64_t>{0}, 8, 8);
    QVERIFY(empty.isOk());
    QCOMPARE(empty->elementCount(), std::int64_t{0});
    const Coverage c = coverageFromCounts(*empty, std::vector<std::int64_t>{0}, {});
    QCOMPARE(*c.writtenFraction, 1.0);
    QCOMPARE(c.grid.writtenFraction, std::vector<float>{1.0f});

    auto clamped = planCoverageLayout(std::vector<std::int64_t>{100000, 100000}, 1 << 30, -5);
    QVERIFY(clamped.isOk());
    QCOMPARE(clamped->tileRows, std::int64_t{25}); // ceil(100000 / 4096)
    QCOMPARE(clamped->gridRows, 4000);
    QVERIFY(clamped->gridRows <= kMaxCoverageResolution);
    QCOMPARE(clamped->gridCols, 1);

    QVERIFY(!planCoverageLayout(std::vector<std::int64_t>{-1}, 2, 2).isOk());
    QVERIFY(!planCoverageLayout(std::vector<std::int64_t>{1LL << 40, 1LL << 40}, 2, 2).isOk());
}

void TestProblemMetrics::hostScan()
{
    auto l = planCoverageLayout(std::vector<std::int64_t>{10}, 2, 2);
    QVERIFY(l.isOk());
    const std::uint32_t a = 0x7FC0000Au;
    const std::uint32_t b = 0x7FC0000Bu;
    std::vector<std::uint32_t> afterA(10, 1u);
    std::vector<std::uint32_t> afterB(10, 1u);
    afterA[2] = a; // untouched in run A
    afterB[7] = b; // untouched in run B
    afterA[5] = b; // wrote B's pattern in run A and A's in run B: still written
    afterB[5] = a;
    const Coverage c = scanCoverageHost(*l, afterA, afterB, a, b);
    QCOMPARE(*c.writtenElements, std::int64_t{8});
    QCOMPARE(*c.totalElements, std::int64_t{10});
    QCOMPARE(*c.writtenFraction, 0.8);
    QCOMPARE(c.firstUnwritten, (std::vector<std::int64_t>{2, 7}));
    QCOMPARE(c.grid.rows, 2);
    QCOMPARE(c.grid.cols, 2);
    QCOMPARE(c.grid.writtenFraction, (std::vector<float>{2.0f / 3.0f, 1.0f, 2.0f / 3.0f, 1.0f}));

    // 0.3% written, as the partial-write exploit does.
    auto big = planCoverageLayout(std::vector<std::int64_t>{100000}, 4, 4);
    std::vector<std::uint32_t> ra(100000, a);
    std::vector<std::uint32_t> rb(100000, b);
    for (int i = 0; i < 300; ++i) ra[i] = rb[i] = 0u;
    const Coverage p = scanCoverageHost(*big, ra, rb, a, b, 3);
    QCOMPARE(*p.writtenElements, std::int64_t{300});
    QVERIFY(near(*p.writtenFraction, 0.003));
    QCOMPARE(p.firstUnwritten, (std::vector<std::int64_t>{300, 301, 302}));
    QVERIFY(near(p.grid.writtenFraction[0], 300.0 / 6250.0));
    QCOMPARE(p.grid.writtenFraction[1], 0.0f);
}

void TestProblemMetrics::roofline()
{
    const DevicePeaks peaks{1e13, 1e12};
    QVERIFY(near(*rooflineFloorMs(2e12, 1e9, peaks), 200.0));
    QVERIFY(near(*rooflineFloorMs(1e6, 1e9, peaks), 1.0));
    QVERIFY(near(*rooflineFloorMs(std::nullopt, 1e9, peaks), 1.0));
    QVERIFY(!rooflineFloorMs(std::nullopt, std::nullopt, peaks));
    QVERIFY(!rooflineFloorMs(1e9, 1e9, DevicePeaks{}));
    QVERIFY(near(*rooflineFloorMs(1e9, 1e9, DevicePeaks{0.0, 1e12}), 1.0));
}

void TestProblemMetrics::halfConversions()
{
    QCOMPARE(halfToFloat(0x3C00), 1.0f);
    QCOMPARE(halfToFloat(0xC000), -2.0f);
    QCOMPARE(halfToFloat(0x7C00), kInf);
    QCOMPARE(halfToFloat(0xFC00), -kInf);
    QVERIFY(std::isnan(halfToFloat(0x7E00)));
    QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
    QCOMPARE(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
    QCOMPARE(halfToFloat(0x3555), 0.333251953125f);
    QCOMPARE(halfToFloat(0x7BFF), 65504.0f);
    QCOMPARE(bfloat16ToFloat(0x3F80), 1.0f);
    QCOMPARE(bfloat16ToFloat(0xC0A0), -5.0f);
}

QTEST_GUILESS_MAIN(TestProblemMetrics)
#include "tst_problem_metrics.moc"
