// The scale sweep (core/analysis/scale_sweep) over the committed H200 captures:
// the manifest, the points from core's breakdowns of the 22 traces (equal to
// the golden breakdowns in tests/data/scale_sweep), and the shares
// docs/gpu-validation.md states.
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/scale_sweep.h"
#include "base/mapped_file.h"
#include "test_util.h"
#include "workbench/workload_analysis.h"

using namespace kwb;

namespace {

std::string manifestPath()
{
    return std::string(KWB_DATASET_DIR) + "/scale_sweep/manifest.json";
}

} // namespace

class TestScaleSweep : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pointsFromTheCommittedTraces()
    {
        auto m = readScaleSweepManifest(manifestPath());
        QVERIFY2(m.isOk(), m.status().toString().c_str());
        QCOMPARE(m->workloads.size(), std::size_t(22));
        QCOMPARE(QString::fromStdString(m->device), QStringLiteral("NVIDIA H200"));
        WorkloadAnalysisRequest req;
        req.traces = scaleSweepTraces(*m, manifestPath());
        auto analysis = analyseWorkloads(req);
        QVERIFY2(analysis.isOk(), analysis.status().toString().c_str());
        std::vector<const WorkloadBreakdown*> bs;
        for (const auto& w : analysis->workloads) bs.push_back(w.breakdown.get());
        const auto points = scaleSweepPoints(*m, manifestPath(), bs);
        QCOMPARE(points.size(), std::size_t(22));
        for (const auto& p : points) {
            // The golden breakdown of the same trace (tst_breakdown holds those to the traces).
            auto golden = readFileContents(kwbtest::testData(("scale_sweep/" + p.entry.name + ".breakdown.json").c_str()));
            QVERIFY2(golden.isOk(), p.entry.name.c_str());
            const auto g = nlohmann::json::parse(*golden)["workloads"][0];
            QVERIFY2(std::fabs(g["addressable_fraction"].get<double>() - p.addressableFraction) < 1e-5, p.entry.name.c_str());
            QVERIFY(p.entry.params > 0);
            QCOMPARE(p.training, p.entry.phase == "train");
        }
        auto find = [&](const char* name) {
            return *std::find_if(points.begin(), points.end(), [&](auto& p) { return p.entry.name == name; });
        };
        // docs/gpu-validation.md (b): BERT-base inference 77.6% GEMM + attention, 21.7% addressable;
        // GPT-2 124M inference 67.7%; DLRM training 83.0% addressable, above the paper's 58.2%.
        QVERIFY(std::fabs(find("bert_base_infer").vendorShare - 0.776) < 0.001);
        QVERIFY(std::fabs(find("bert_base_infer").addressableFraction - 0.217) < 0.001);
        QVERIFY(std::fabs(find("gpt2_124m_infer").vendorShare - 0.677) < 0.001);
        QVERIFY(find("dlrm_train").addressableFraction > kPaperAddressableHigh);
        QCOMPARE(find("llama_3b_infer").entry.params, std::int64_t(3212749824));
        // No transformer inference capture reaches the paper's 80%.
        for (const auto& p : points)
            if (!p.training && p.entry.domain == "transformer") QVERIFY(p.vendorShare < kPaperVendorShareLow);
    }

    void badManifestNamesTheMember()
    {
        const std::string dir = QDir::tempPath().toStdString();
        const std::string path = dir + "/kwb_bad_manifest.json";
        std::ofstream(path) << R"({"workloads": [{"name": "a", "status": "ok", "file": "a.json.gz", "params": "big"}]})";
        auto m = readScaleSweepManifest(path);
        QVERIFY(!m.isOk());
        QCOMPARE(QString::fromStdString(m.status().where().path), QStringLiteral("workloads[0].params"));
        std::remove(path.c_str());
    }
};

QTEST_GUILESS_MAIN(TestScaleSweep)
#include "tst_scale_sweep.moc"
