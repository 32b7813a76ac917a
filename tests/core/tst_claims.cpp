// Claimed against verified (core/analysis/claims) on the records kwb verify
// wrote on the H200: DLRM-Bench's 12 samples (claims timed by the evaluation
// script, re-measured by kwb verify) and the problem suite.
#include <QtTest>

#include <cmath>
#include <cstdlib>

#include "analysis/claims.h"
#include "records/record_loader.h"
#include "test_util.h"

using namespace kwb;

namespace {

RecordSet load(const char* relative)
{
    return loadRecordFiles({std::string(KWB_DATASET_DIR) + "/" + relative}, {});
}

const ClaimPoint& byId(const std::vector<ClaimPoint>& points, const std::string& id)
{
    for (const auto& p : points)
        if (p.id == id) return p;
    qFatal("no point %s", id.c_str());
    std::abort();
}

} // namespace

class TestClaims : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dlrmBenchClaims()
    {
        const RecordSet set = load("kernelbench_dlrm/evaluations/dlrm_bench_verified_h200.jsonl");
        QCOMPARE(set.records.size(), std::size_t(12));
        const auto points = analyzeClaims(set.records);
        QCOMPARE(points.size(), std::size_t(12));
        // Table-batched embedding: claimed 9.71x by the script, 4.24x re-measured — still a win, not the claim.
        const auto& tbe = byId(points, "dlrm_bench/5_TableBatchedEmbedding/sample0");
        QVERIFY(tbe.isClaim);
        QVERIFY(tbe.verdict == ClaimVerdict::Shrank);
        QVERIFY(std::fabs(*tbe.claimed - 9.714) < 1e-3);
        QVERIFY(std::fabs(*tbe.reMeasured - 4.238) < 1e-3);
        QCOMPARE(QString::fromStdString(tbe.claimedGpu), QStringLiteral("NVIDIA H200"));
        QCOMPARE(QString::fromStdString(tbe.reMeasuredGpu), QStringLiteral("NVIDIA H200"));
        // Warnings make a claim suspect: fp16 table (excessive speedup, precision downgrade), atomic scatter.
        QVERIFY(byId(points, "dlrm_bench/12_EmbeddingBagSumHalfTable/sample0").verdict == ClaimVerdict::Suspect);
        QVERIFY(byId(points, "dlrm_bench/11_EmbeddingBagBackward/sample0").verdict == ClaimVerdict::Suspect);
        QVERIFY(byId(points, "dlrm_bench/1_EmbeddingBagSum/sample0").verdict == ClaimVerdict::Holds);
        // A claimed loss is not a claim: the MLPs lose to cuBLAS in both timings.
        const auto& mlp = byId(points, "dlrm_bench/8_TopMLP/sample0");
        QVERIFY(!mlp.isClaim);
        QVERIFY(mlp.verdict == ClaimVerdict::NotAClaim);

        const auto tallies = tallyClaims(points);
        QCOMPARE(tallies.size(), std::size_t(2)); // one model, then "all"
        const ClaimTally& t = tallies.front();
        QCOMPARE(QString::fromStdString(t.model), QStringLiteral("dlrm-bench/sample0"));
        QCOMPARE(t.records, 12);
        QCOMPARE(t.claims, 10);
        QCOMPARE(t.reMeasured, 10);
        QCOMPARE(t.byVerdict[int(ClaimVerdict::Holds)], 7);
        QCOMPARE(t.byVerdict[int(ClaimVerdict::Shrank)], 1);
        QCOMPARE(t.byVerdict[int(ClaimVerdict::Suspect)], 2);
        QCOMPARE(t.survived(), 8);
        QVERIFY(t.medianRatio && *t.medianRatio > 1.0);
        const std::string text = claimTallyText(tallies, {});
        QVERIFY2(text.find("8 (80%)") != std::string::npos, text.c_str());
    }

    // Errors invalidate a claim even when the outcome says correct (side-stream work).
    void suiteErrorsFailClaims()
    {
        const RecordSet set = load("evaluations/suite_h200.jsonl");
        const auto points = analyzeClaims(set.records);
        QVERIFY(byId(points, "kb1_40_layernorm.side_stream").verdict == ClaimVerdict::Failed);
        QVERIFY(byId(points, "kb1_19_relu.partial_write").verdict == ClaimVerdict::Failed);
        QVERIFY(byId(points, "kb1_89_cumsum.in_place_then_copy").verdict == ClaimVerdict::Failed);
        QVERIFY(byId(points, "kb1_23_softmax.online_vec4").verdict == ClaimVerdict::Suspect);
        QVERIFY(byId(points, "kb1_89_cumsum.warp_scan_vec4").verdict == ClaimVerdict::Holds);
        int failed = 0;
        for (const auto& p : points) failed += p.verdict == ClaimVerdict::Failed;
        QCOMPARE(failed, 7);
    }

    // A record never re-run, and one whose re-run did not build.
    void notReMeasuredAndFailedRuns()
    {
        RecordSet set = load("kernelbench_dlrm/evaluations/dlrm_bench_verified_h200.jsonl");
        std::vector<EvalRecord> records{set.records[0], set.records[1]};
        records[0].verification.extra.clear();
        for (auto& f : records[1].verification.extra)
            if (f.key == "rerun") f.json = R"({"status": "compile_error", "message": "nvcc failed"})";
        const auto points = analyzeClaims(records);
        QVERIFY(points[0].verdict == ClaimVerdict::NotReMeasured);
        QVERIFY(points[1].verdict == ClaimVerdict::Failed);
        QVERIFY(!points[1].reMeasured);
        const auto t = tallyClaims(points).back();
        QCOMPARE(t.claims, 2);
        QCOMPARE(t.reMeasured, 1);
        QCOMPARE(t.survived(), 0);
        // A stricter hold ratio turns a holding claim into a smaller win.
        ClaimOptions strict;
        strict.holdRatio = 1.2;
        const auto p = analyzeClaims({set.records[0]}, strict);
        QVERIFY(p[0].verdict == ClaimVerdict::Shrank);
    }
};

QTEST_GUILESS_MAIN(TestClaims)
#include "tst_claims.moc"
