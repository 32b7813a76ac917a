// Measured substitutions (core/records/substitution_result): the committed
// DLRM run on the H200 (no projection of its own), the transformer script's
// shape with both projections, and errors that name the member.
#include <QtTest>

#include <fstream>

#include "records/substitution_result.h"
#include "test_util.h"

using namespace kwb;

class TestSubstitutionResult : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void committedDlrmRun()
    {
        auto r = readSubstitutionResult(std::string(KWB_DATASET_DIR) + "/kernelbench_dlrm/evaluations/substitution_h200.json");
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        QCOMPARE(r->phases.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(r->phases[0].phase), QStringLiteral("infer"));
        QVERIFY(std::fabs(r->phases[0].measuredSaving - 0.4236) < 1e-3); // docs/gpu-validation.md: 42.4%
        QVERIFY(std::fabs(r->phases[1].measuredSaving - 0.5498) < 1e-3); // 55.0%
        QVERIFY(r->projections.empty());
        QCOMPARE(QString::fromStdString(r->trace), QStringLiteral("datasets/traces/dlrm_train.json.gz"));
        QCOMPARE(r->swapped.size(), std::size_t(2));
        QVERIFY(r->checkOk);
    }

    void transformerShape()
    {
        const std::string path = QDir::tempPath().toStdString() + "/kwb_sub_gpt2.json";
        std::ofstream(path) << R"({"workload": {"model": "GPT2LMHeadModel 124m", "trace": "datasets/scale_sweep/gpt2_124m_infer.json.gz"},
            "device": "NVIDIA H200", "ops": {"layernorm": {}, "gelu": {}}, "check": {"ok": true},
            "results": [{"phase": "infer", "original_ms": 10.0, "substituted_ms": 9.0, "measured_saving": 0.1, "steps": 20}],
            "projection": {"isolated": {"expected_saving": 0.08, "amdahl_saving": 0.09,
                "per_op": {"layernorm": {"f": 0.05}, "gelu": {"f": 0.06}}}, "records": {"expected_saving": 0.07}}})";
        auto r = readSubstitutionResult(path);
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        QCOMPARE(r->projections.size(), std::size_t(2));
        const auto& iso = r->projections[0].basis == "isolated" ? r->projections[0] : r->projections[1];
        QCOMPARE(iso.expectedSaving, 0.08);
        QVERIFY(std::fabs(iso.f - 0.11) < 1e-12);
        QCOMPARE(r->swapped.size(), std::size_t(2));
        std::ofstream(path) << R"({"results": [{"phase": "infer", "original_ms": "slow"}]})";
        auto bad = readSubstitutionResult(path);
        QVERIFY(!bad.isOk());
        QCOMPARE(QString::fromStdString(bad.status().where().path), QStringLiteral("results[0].original_ms"));
        std::remove(path.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSubstitutionResult)
#include "tst_substitution_result.moc"
