// Zero acceptance (core/analysis/zero_acceptance, records/zero_acceptance_table,
// workbench/zero_run): the committed H200 tables read back with the counts the
// script's own summary states, core's verdicts against the table's, the
// accumulator's chunking, the bridge's reply, the problem walk over
// ../shared's KernelBench levels, and errors that name the line.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/zero_acceptance.h"
#include "base/mapped_file.h"
#include "problems/output_metrics.h"
#include "records/zero_acceptance_table.h"
#include "test_util.h"
#include "workbench/zero_run.h"

using namespace kwb;

namespace {

std::string tablePath()
{
    return std::string(KWB_DATASET_DIR) + "/zero_acceptance/zero_acceptance_levels.jsonl";
}

} // namespace

class TestZeroAcceptance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The reader's counts equal the summary the script wrote beside the table.
    void committedTableMatchesItsSummary()
    {
        auto t = readZeroAcceptanceTable(tablePath());
        QVERIFY2(t.isOk(), t.status().toString().c_str());
        QCOMPARE(t->rows.size(), std::size_t(500));
        QVERIFY(t->haveMeta);
        QCOMPARE(QString::fromStdString(t->meta.device), QStringLiteral("NVIDIA H200"));
        auto md = readFileContents(std::string(KWB_DATASET_DIR) + "/zero_acceptance/zero_acceptance_levels.md");
        QVERIFY(md.isOk());
        const std::regex line(R"(\| (v0|current) \| (\d) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|)");
        const auto groups = summarizeZeroAcceptance(t->rows);
        QCOMPARE(groups.size(), std::size_t(6));
        int matched = 0;
        for (std::sregex_iterator it(md->begin(), md->end(), line), end; it != end; ++it) {
            const auto& m = *it;
            const auto g = std::find_if(groups.begin(), groups.end(), [&](const ZeroAcceptanceGroup& x) {
                return x.version == m[1].str() && x.level == std::stoi(m[2].str());
            });
            QVERIFY(g != groups.end());
            QCOMPARE(g->problems, std::stoi(m[3].str()));
            QCOMPARE(g->ran, std::stoi(m[4].str()));
            QCOMPARE(g->zerosPass[0], std::stoi(m[5].str()));
            QCOMPARE(g->zerosPass[1], std::stoi(m[6].str()));
            QCOMPARE(g->meanPass[0], std::stoi(m[7].str()));
            QCOMPARE(g->meanPass[1], std::stoi(m[8].str()));
            QCOMPARE(g->skipped, std::stoi(m[9].str()));
            ++matched;
        }
        QCOMPARE(matched, 6);
        // Level 1: 4 of 100 in both versions, as the table's summary says; the problems named.
        const auto v0 = std::find_if(groups.begin(), groups.end(), [](auto& g) { return g.version == "v0" && g.level == 1; });
        QVERIFY(std::find(v0->zerosPassProblems[0].begin(), v0->zerosPassProblems[0].end(), "23_Softmax")
                != v0->zerosPassProblems[0].end());
    }

    // Core decides zeros from the values: a tensor whose largest |value| is a
    // row's max_abs gets the row's verdict at both tolerances (the script's
    // torch.allclose and core's isClose agree on every committed row).
    void coreZerosVerdictAgreesWithTable()
    {
        auto t = readZeroAcceptanceTable(tablePath());
        QVERIFY(t.isOk());
        int checked = 0;
        for (const auto& r : t->rows) {
            const float m = static_cast<float>(r.combined.maxAbs);
            const std::vector<float> values{m * 0.5f, -m, 0.0f, m * 0.25f};
            const auto s = measureZeroAcceptance(values, {4}, "float32");
            for (std::size_t k = 0; k < kZeroToleranceCount; ++k)
                QVERIFY2(s.zerosPass[k] == r.combined.zerosPass[k], (r.version + " " + r.problem).c_str());
            ++checked;
        }
        QCOMPARE(checked, 500);
    }

    void constantMeanAnswer()
    {
        // Values within 1e-2 of their mean pass at 1e-2, not at 1e-4.
        std::vector<float> v;
        for (int i = 0; i < 1000; ++i) v.push_back(3.0f + 0.008f * std::sin(0.37f * i));
        const auto s = measureZeroAcceptance(v, {1000}, "float32");
        QVERIFY(!s.zerosPass[0]);
        QVERIFY(s.meanPass[0].value_or(false));
        QVERIFY(!s.meanPass[1].value_or(true));
        QVERIFY(std::fabs(s.mean - 3.0) < 1e-3);
        QVERIFY(constantPassesAllclose(v, 3.0f, ToleranceValues{1e-2, 1e-2}));
        QVERIFY(!constantPassesAllclose(v, 3.0f, ToleranceValues{1e-4, 1e-4}));
        // One element: the mean is the answer itself, not counted.
        const float one[] = {0.5f};
        QVERIFY(!measureZeroAcceptance(one, {}, "float32").meanPass[0].has_value());
        // A non-finite value fails both answers and is counted.
        const float bad[] = {0.0f, std::nanf("")};
        const auto b = measureZeroAcceptance(bad, {2}, "float32");
        QCOMPARE(b.nonfinite, std::int64_t(1));
        QVERIFY(!b.zerosPass[0]);
    }

    // The device probe feeds chunks; any chunk size gives the same result.
    void chunkingDoesNotChangeTheVerdict()
    {
        std::vector<float> v;
        for (int i = 0; i < 10007; ++i) v.push_back(0.004f * std::cos(0.01f * i) + 1e-3f);
        const auto whole = measureZeroAcceptance(v, {10007}, "float32");
        ZeroAcceptanceAccumulator acc({10007}, "float32", 10007);
        for (std::size_t b = 0; b < v.size(); b += 1000) acc.addValues(std::span(v).subspan(b, std::min<std::size_t>(1000, v.size() - b)));
        acc.finishValues();
        for (std::size_t b = 0; b < v.size(); b += 333) acc.addMeanPass(std::span(v).subspan(b, std::min<std::size_t>(333, v.size() - b)));
        const auto c = acc.result();
        QCOMPARE(c.maxAbs, whole.maxAbs);
        QVERIFY(std::fabs(c.rms - whole.rms) < 1e-12);
        for (std::size_t k = 0; k < kZeroToleranceCount; ++k) {
            QCOMPARE(c.zerosPass[k], whole.zerosPass[k]);
            QVERIFY(c.meanPass[k] == whole.meanPass[k]);
        }
        QVERIFY(whole.zerosPass[0]);
    }

    void rowsRoundTrip()
    {
        auto t = readZeroAcceptanceTable(tablePath());
        QVERIFY(t.isOk());
        std::string text;
        for (const auto& r : t->rows) text += zeroAcceptanceRowJson(r) + "\n";
        auto back = parseZeroAcceptanceRows(text, "roundtrip.jsonl");
        QVERIFY2(back.isOk(), back.status().toString().c_str());
        QCOMPARE(back->size(), t->rows.size());
        QVERIFY(compareZeroAcceptance(t->rows, *back).empty());
        // One verdict flipped: named.
        auto changed = *back;
        changed[22].combined.zerosPass[0] = !changed[22].combined.zerosPass[0];
        const auto d = compareZeroAcceptance(t->rows, changed);
        QCOMPARE(d.size(), std::size_t(1));
        QVERIFY2(d[0].find(changed[22].problem) != std::string::npos, d[0].c_str());
    }

    void badRowsNameTheLine()
    {
        const std::string good = zeroAcceptanceRowJson(readZeroAcceptanceTable(tablePath())->rows[0]);
        auto bad = parseZeroAcceptanceRows(good + "\n\n{\"version\": \"v0\", \"level\": 1, \"problem\": \"x\", "
                                                  "\"status\": \"ok\", \"max_abs\": \"big\", \"rms\": 1}\n", "t.jsonl");
        QVERIFY(!bad.isOk());
        QCOMPARE(bad.status().where().line, std::int64_t(3));
        QCOMPARE(QString::fromStdString(bad.status().where().path), QStringLiteral("max_abs"));
        auto notJson = parseZeroAcceptanceRows(good + "\n{oops\n", "t.jsonl");
        QVERIFY(!notJson.isOk());
        QCOMPARE(notJson.status().where().line, std::int64_t(2));
        // A row that is not ok needs no statistics.
        auto timeout = parseZeroAcceptanceRows(
            "{\"version\": \"v0\", \"level\": 3, \"problem\": \"43_MinGPT\", \"status\": \"timeout\", \"reason\": \"60 s\"}\n", "t.jsonl");
        QVERIFY(timeout.isOk());
        QCOMPARE(summarizeZeroAcceptance(*timeout)[0].skipped, 1);
    }

    // The bridge's answer: several outputs, combined by core (every one must pass).
    void replyWithSeveralOutputs()
    {
        const auto a = measureZeroAcceptance(std::vector<float>{0.001f, -0.002f}, {2}, "float32");
        const auto b = measureZeroAcceptance(std::vector<float>{0.5f, 0.2f}, {2}, "float32");
        const std::string line = "{\"protocol\": \"kwb.rerun/1\", \"type\": \"zero_probe_result\", \"id\": \"0\", "
                                 "\"status\": \"ok\", \"outputs\": [" + zeroOutputStatsJson(a) + ", " + zeroOutputStatsJson(b) +
                                 "], \"setup_s\": 0.1, \"forward_ms\": 2.5, \"input_bytes\": 64}";
        ZeroJob job{"x/v0/KernelBench/level1/1_X.py", "v0", 1, "1_X"};
        auto r = zeroRowFromReply(line, job);
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        QCOMPARE(r->outputs.size(), std::size_t(2));
        QVERIFY(!r->combined.zerosPass[0]);
        QCOMPARE(r->combined.maxAbs, double(0.5f));
        QCOMPARE(*r->forwardMs, 2.5);
        // Written and read back with its outputs.
        auto back = parseZeroAcceptanceRows(zeroAcceptanceRowJson(*r), "r.jsonl");
        QVERIFY2(back.isOk(), back.status().toString().c_str());
        QCOMPARE((*back)[0].outputs.size(), std::size_t(2));
        auto refused = zeroRowFromReply("{\"type\": \"error\", \"message\": \"the bridge only serves hello\"}", job);
        QVERIFY(!refused.isOk());
    }

    // The problem walk over ../shared's KernelBench levels: versions and levels from the folders.
    void listsSharedKernelBenchLevels()
    {
        KWB_REQUIRE_SHARED_DATA();
        const std::string root = kwbtest::sharedData("kernelbench/problems");
        auto jobs = listZeroJobs({root + "/v0/KernelBench", root + "/current/KernelBench/level1"}, {1});
        QVERIFY2(jobs.isOk(), jobs.status().toString().c_str());
        QCOMPARE(jobs->size(), std::size_t(200));
        QCOMPARE(QString::fromStdString(jobs->front().problem), QStringLiteral("1_Square_matrix_multiplication_"));
        QCOMPARE(QString::fromStdString(jobs->front().version), QStringLiteral("current"));
        QCOMPARE(jobs->front().level, 1);
        auto all = listZeroJobs({root + "/v0/KernelBench"}, {});
        QVERIFY(all.isOk());
        QCOMPARE(all->size(), std::size_t(250));
        QCOMPARE(all->back().level, 3);
        QVERIFY(!listZeroJobs({root + "/nope"}, {}).isOk());
    }
};

QTEST_GUILESS_MAIN(TestZeroAcceptance)
#include "tst_zero_acceptance.moc"
