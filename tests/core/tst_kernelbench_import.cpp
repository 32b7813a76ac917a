#include <QtTest>

#include <cmath>

#include "records/kernelbench_importer.h"
#include "records/leaderboard_importer.h"
#include "records/record_loader.h"
#include "test_util.h"

using namespace kwb;
using kwbtest::qs;

class TestKernelBenchImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void realBaselineFilesLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("gpu");
        QTest::addRow("H100 eager") << "kernelbench/timing/H100_Modal/baseline_time_torch.json" << "H100_Modal"
                                    << "torch_eager" << "NVIDIA H100 80GB HBM3";
        QTest::addRow("H100 compile") << "kernelbench/timing/H100_Modal/baseline_time_torch_compile_inductor_default.json"
                                      << "H100_Modal" << "torch_compile_inductor_default" << "NVIDIA H100 80GB HBM3";
        QTest::addRow("L40S") << "kernelbench/timing/L40S_modal/baseline_time_torch.json" << "L40S_modal" << "torch_eager"
                              << "";
        QTest::addRow("B200") << "kernelbench/timing/B200_together/baseline_time_torch.json" << "B200_together"
                              << "torch_eager" << "NVIDIA B200";
    }
    void realBaselineFilesLoad()
    {
        KWB_REQUIRE_SHARED_DATA();
        QFETCH(QString, file);
        QFETCH(QString, hardware);
        QFETCH(QString, name);
        QFETCH(QString, gpu);
        auto table = loadKernelBenchBaseline(kwbtest::sharedData(file.toUtf8().constData()));
        QVERIFY2(table.isOk(), table.status().toString().c_str());
        QCOMPARE(table->entries.size(), std::size_t(250));
        QCOMPARE(table->badEntries, std::size_t(0));
        QCOMPARE(qs(table->hardware), hardware);
        QCOMPARE(qs(table->name), name);
        const BaselineEntry* e = table->find(1, 23);
        QVERIFY(e);
        QCOMPARE(qs(e->problemName), QStringLiteral("23_Softmax"));
        QCOMPARE(*e->stats.provenance.trials, std::int64_t(100));
        if (!gpu.isEmpty()) QCOMPARE(qs(e->stats.provenance.gpu), gpu);
        QVERIFY(!e->stats.provenance.gpu.empty());
        QVERIFY(e->stats.extra.size() == 1); // "device" kept verbatim
    }

    void h100BaselineValues()
    {
        KWB_REQUIRE_SHARED_DATA();
        auto table = loadKernelBenchBaseline(kwbtest::sharedData("kernelbench/timing/H100_Modal/baseline_time_torch.json"));
        QVERIFY(table.isOk());
        QCOMPARE(*table->find(1, 1)->stats.meanMs, 2.66);
        QCOMPARE(*table->find(1, 23)->stats.meanMs, 8.52);
        QCOMPARE(*table->find(2, 19)->stats.meanMs, 12.3);
        QCOMPARE(qs(table->find(1, 1)->stats.provenance.config), QStringLiteral("H100_Modal/baseline_time_torch"));
    }

    void v0EvalResultsClassifyOutcomes()
    {
        const std::string file = kwbtest::testData("kernelbench/runs/level1_v0_run/eval_results.json");
        const RecordSet set = loadKernelBenchEval(file, {});
        QCOMPARE(set.records.size(), std::size_t(6));
        QCOMPARE(set.badRecordCount(), std::size_t(0));
        std::map<std::int64_t, const EvalRecord*> byId;
        for (const auto& r : set.records) byId[*r.problem.id] = &r;
        QCOMPARE(*byId[1]->problem.level, std::int64_t(1)); // from the folder name "level1_..."
        QCOMPARE(qs(byId[1]->run), QStringLiteral("level1_v0_run"));
        QCOMPARE(byId[1]->outcome, Outcome::Correct);
        QCOMPARE(*byId[1]->candidate.meanMs, 2.5);
        QCOMPARE(*byId[1]->candidate.provenance.trials, std::int64_t(100));
        QCOMPARE(qs(byId[1]->candidate.provenance.gpu), QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(byId[2]->outcome, Outcome::Incorrect);
        QVERIFY(!byId[2]->candidate.meanMs); // runtime -1: not timed
        QCOMPARE(byId[3]->outcome, Outcome::CompileError);
        QVERIFY(byId[3]->error.find("nvcc exited") != std::string::npos);
        QCOMPARE(byId[4]->outcome, Outcome::Timeout);
        QCOMPARE(byId[5]->outcome, Outcome::RuntimeError);
        QVERIFY(byId[5]->error.find("illegal memory access") != std::string::npos);
        QCOMPARE(byId[6]->outcome, Outcome::Correct);
        QVERIFY(findRaw(byId[6]->extra, "judge_notes")); // unknown field kept
        QVERIFY(findRaw(byId[6]->extra, "kernelbench_metadata"));
    }

    void listEvalResultsKeepEverySample()
    {
        const RecordSet set = loadKernelBenchEval(kwbtest::testData("kernelbench/runs/level2_samples_run/eval_results.json"), {});
        QCOMPARE(set.records.size(), std::size_t(5));
        int correct = 0, runtime = 0, timed = 0;
        for (const auto& r : set.records) {
            QCOMPARE(*r.problem.level, std::int64_t(2));
            correct += r.outcome == Outcome::Correct;
            runtime += r.outcome == Outcome::RuntimeError;
            timed += r.candidate.meanMs.has_value();
        }
        QCOMPARE(correct, 3);
        QCOMPARE(runtime, 2); // misaligned address; worker segfault written as compiled=false
        QCOMPARE(timed, 2);   // runtime 0.0 means not timed
    }

    void evalJoinsRealBaseline()
    {
        KWB_REQUIRE_SHARED_DATA();
        RecordLoadOptions options;
        const RecordSet set = loadRecordFiles({kwbtest::testData("kernelbench/runs/level1_v0_run/eval_results.json"),
                                                  kwbtest::sharedData("kernelbench/timing/H100_Modal/baseline_time_torch.json")},
            options);
        QCOMPARE(set.failedFileCount(), std::size_t(0));
        const EvalRecord* r1 = nullptr;
        for (const auto& r : set.records)
            if (*r.problem.id == 1) r1 = &r;
        QVERIFY(r1);
        QCOMPARE(qs(r1->problem.name), QStringLiteral("1_Square_matrix_multiplication_"));
        QVERIFY(r1->speedup.has_value());
        QCOMPARE(*r1->speedup, 2.66 / 2.5);
        QCOMPARE(qs(r1->speedupBaseline), QStringLiteral("torch_eager"));
        QCOMPARE(qs(r1->baselines[0].stats.provenance.config), QStringLiteral("H100_Modal/baseline_time_torch"));
    }

    void leaderboardLoads()
    {
        KWB_REQUIRE_SHARED_DATA();
        const RecordSet set = loadLeaderboard(kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"));
        QCOMPARE(set.records.size(), std::size_t(413));
        QCOMPARE(set.badRecordCount(), std::size_t(0));
        std::map<std::string, int> perModel;
        for (const auto& r : set.records) ++perModel[r.model];
        QCOMPARE(perModel.size(), std::size_t(7));
        QCOMPARE(perModel["o1-preview-2024-09-12"], 115);
        QCOMPARE(perModel["deepseek"], 76);
        const EvalRecord& first = set.records[0];
        QCOMPARE(*first.problem.id, std::int64_t(40)); // raw problem_id 39 counts from 0: 40_LayerNorm
        const RawField* rawId = findRaw(first.extra, "problem_id");
        QVERIFY(rawId != nullptr);
        QCOMPARE(kwbtest::qs(rawId->json), QStringLiteral("39"));
        QVERIFY(first.source.code.find("layernorm") != std::string::npos);
        QCOMPARE(*first.speedup, 0.0136585366);
        QCOMPARE(*first.candidate.meanMs, 451.0);
        QCOMPARE(first.baselines.size(), std::size_t(2));
        QVERIFY(first.source.code.find("load_inline") != std::string::npos);
        QCOMPARE(qs(first.id), QStringLiteral("leaderboard/f8c57e5701cb89874fcfc2fc3046da2e"));
    }

    void malformedInputsNameFilePositionReason_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("reason");
        QTest::addRow("truncated eval") << QByteArray("{\n  \"1\": {\"compiled\": true,\n") << int(RecordFormat::KernelBenchEval)
                                        << "bad.json:3:1" << "truncated";
        QTest::addRow("eval as list") << QByteArray("[1,2]") << int(RecordFormat::KernelBenchEval) << "bad.json" << "expected an object";
        QTest::addRow("baseline wrong") << QByteArray("{\"foo\": 1}") << int(RecordFormat::KernelBenchBaseline) << "bad.json" << "levelN";
        QTest::addRow("baseline syntax") << QByteArray("{\"level1\": {\"1_A.py\": {\"mean\": 1.0,}}}")
                                         << int(RecordFormat::KernelBenchBaseline) << "bad.json:1:" << "";
        QTest::addRow("leaderboard obj") << QByteArray("{}") << int(RecordFormat::Leaderboard) << "bad.json" << "expected a list";
    }
    void malformedInputsNameFilePositionReason()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, format);
        QFETCH(QString, where);
        QFETCH(QString, reason);
        Status s;
        const std::string body = text.toStdString();
        switch (RecordFormat(format)) {
        case RecordFormat::KernelBenchEval: s = importKernelBenchEval(body, "bad.json", {}).files[0].fatal; break;
        case RecordFormat::Leaderboard: s = importLeaderboard(body, "bad.json").files[0].fatal; break;
        case RecordFormat::KernelBenchBaseline: s = parseKernelBenchBaseline(body, "bad.json").status(); break;
        default: QFAIL("unexpected format");
        }
        QVERIFY(!s.isOk());
        const QString message = qs(s.toString());
        QVERIFY2(message.startsWith(where), qPrintable(message));
        QVERIFY2(message.contains(reason), qPrintable(message));
    }

    void badSamplesAreCountedNotFatal()
    {
        const QByteArray text = "{\"1\": {\"compiled\": \"yes\", \"correctness\": true}, \"x\": {}, \"2\": 5,"
                                " \"3\": {\"compiled\": true, \"correctness\": true, \"runtime\": 1.0}}";
        const RecordSet set = importKernelBenchEval(text.toStdString(), "run/eval_results.json", {});
        QCOMPARE(set.records.size(), std::size_t(1));
        QCOMPARE(set.badRecordCount(), std::size_t(3));
        QVERIFY(set.files[0].ok());
        QCOMPARE(qs(set.files[0].issues[0].where().path), QStringLiteral("1"));
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchImport)
#include "tst_kernelbench_import.moc"
