#include <QtTest>

#include <random>

#include "records/native_reader.h"
#include "records/native_writer.h"
#include "records/record_loader.h"
#include "test_util.h"

using namespace kwb;
using kwbtest::qs;

class TestNativeRecords : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsEveryField()
    {
        const RecordSet set = loadNativeRecords(kwbtest::testData("records/good.jsonl"));
        QCOMPARE(set.records.size(), std::size_t(3));
        QCOMPARE(set.badRecordCount(), std::size_t(0));
        const EvalRecord& r = set.records[0];
        QCOMPARE(qs(r.id), QStringLiteral("r1"));
        QCOMPARE(qs(r.problem.suite), QStringLiteral("KernelBench"));
        QCOMPARE(*r.problem.level, std::int64_t(1));
        QCOMPARE(*r.problem.id, std::int64_t(23));
        QCOMPARE(qs(r.model), QStringLiteral("model-a"));
        QCOMPARE(r.outcome, Outcome::Correct);
        QCOMPARE(*r.candidate.medianMs, 0.49);
        QCOMPARE(qs(r.candidate.provenance.gpu), QStringLiteral("NVIDIA H200"));
        QCOMPARE(*r.candidate.provenance.l2Flush, true);
        QCOMPARE(*r.candidate.provenance.tolerance.atol, 1e-4);
        QCOMPARE(r.baselines.size(), std::size_t(1));
        QCOMPARE(*r.baselines[0].stats.medianMs, 1.0);
        QVERIFY(r.verification.coverage.has_value());
        QCOMPARE(r.verification.coverage->grid.rows, 2);
        QCOMPARE(r.verification.coverage->grid.writtenFraction.size(), std::size_t(4));
        QCOMPARE(r.verification.coverage->firstUnwritten.size(), std::size_t(3));
        QCOMPARE(r.verification.flags.size(), std::size_t(1));
        QCOMPARE(qs(r.verification.flags[0].code), QStringLiteral("low_coverage"));
        QCOMPARE(r.verification.flags[0].extra.size(), std::size_t(1)); // "threshold" kept verbatim
        QCOMPARE(r.verification.extra.size(), std::size_t(1)); // "reruns" kept verbatim
        QCOMPARE(qs(r.source.path), QStringLiteral("candidates/softmax_partial.cu"));
        QCOMPARE(r.extra.size(), std::size_t(1));
        QCOMPARE(qs(r.extra[0].key), QStringLiteral("reviewer"));
        QCOMPARE(qs(r.extra[0].json), QStringLiteral("{\"name\":\"x\",\"verdict\":\"exploit\"}"));
        QCOMPARE(set.records[1].outcome, Outcome::Incorrect);
        QCOMPARE(qs(set.records[1].error), QStringLiteral("max abs diff 0.5"));
    }

    void loadSaveLoadLosesNothing()
    {
        const RecordSet first = loadNativeRecords(kwbtest::testData("records/good.jsonl"));
        QTemporaryDir dir;
        const std::string out = dir.filePath(QStringLiteral("round.jsonl")).toStdString();
        QVERIFY(writeRecordsFile(out, first.records).isOk());
        const RecordSet second = loadNativeRecords(out);
        QCOMPARE(second.records.size(), first.records.size());
        for (std::size_t i = 0; i < first.records.size(); ++i) QVERIFY(first.records[i] == second.records[i]);
        // The second save is byte-identical to the first.
        const std::string out2 = dir.filePath(QStringLiteral("round2.jsonl")).toStdString();
        QVERIFY(writeRecordsFile(out2, second.records).isOk());
        QFile a(qs(out)), b(qs(out2));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), b.readAll());
    }

    void badLinesAreReportedAndCounted()
    {
        const std::string file = kwbtest::testData("records/bad_lines.jsonl");
        const RecordSet set = loadNativeRecords(file);
        QCOMPARE(set.records.size(), std::size_t(4)); // 3 good + the timeout record on the last line
        QCOMPARE(set.badRecordCount(), std::size_t(4));
        const auto& issues = set.files[0].issues;
        QCOMPARE(issues.size(), std::size_t(4));
        for (const auto& s : issues) QVERIFY2(s.toString().find(file) == 0, s.toString().c_str());
        QCOMPARE(issues[0].where().line, std::int64_t(4));
        QVERIFY2(issues[0].message().find("speedup") != std::string::npos, issues[0].toString().c_str());
        QVERIFY(issues[0].where().column > 1);
        QCOMPARE(issues[1].where().line, std::int64_t(5));
        QCOMPARE(issues[2].where().line, std::int64_t(6));
        QVERIFY2(issues[2].message().find("unsupported record schema version") != std::string::npos, issues[2].toString().c_str());
        QCOMPARE(issues[3].where().line, std::int64_t(7));
        QVERIFY2(issues[3].message().find("missing \"schema\"") != std::string::npos, issues[3].toString().c_str());
        QCOMPARE(set.records.back().outcome, Outcome::Timeout);
    }

    void truncatedFileKeepsWhatItCan()
    {
        const std::string file = kwbtest::testData("records/truncated.jsonl");
        const RecordSet set = loadNativeRecords(file);
        QCOMPARE(set.records.size(), std::size_t(0));
        QVERIFY(!set.files[0].ok()); // nothing valid: the whole file fails, naming line 1
        QVERIFY(set.files[0].fatal.toString().find(file + ":1") == 0);
    }

    void invalidUtf8LineIsReported()
    {
        const RecordSet set = loadNativeRecords(kwbtest::testData("records/invalid_utf8.jsonl"));
        QCOMPARE(set.records.size(), std::size_t(0));
        QCOMPARE(set.badRecordCount(), std::size_t(1));
        QVERIFY2(set.files[0].issues[0].message().find("UTF-8") != std::string::npos, set.files[0].issues[0].toString().c_str());
    }

    void hostileInputsNeverCrash_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addRow("deep nesting") << QByteArray(100000, '[');
        QTest::addRow("huge number") << QByteArray("{\"schema\":\"kwb.record/1\",\"sample\":123456789012345678901234567890}");
        QTest::addRow("null bytes") << QByteArray("{\"schema\":\"kwb.record/1\",\0\0\0}", 30);
        QTest::addRow("grid size mismatch")
            << QByteArray("{\"schema\":\"kwb.record/1\",\"verification\":{\"coverage\":{\"grid\":{\"rows\":100000,\"cols\":100000,\"written_fraction\":[1]}}}}");
        QTest::addRow("only whitespace") << QByteArray(" \n\t\n");
        QTest::addRow("array line") << QByteArray("[1,2,3]\n");
        QTest::addRow("negative grid") << QByteArray("{\"schema\":\"kwb.record/1\",\"verification\":{\"coverage\":{\"grid\":{\"rows\":-1,\"cols\":-1,\"written_fraction\":[1]}}}}");
    }
    void hostileInputsNeverCrash()
    {
        QFETCH(QByteArray, text);
        const RecordSet set = parseNativeRecords(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), "hostile.jsonl");
        QCOMPARE(set.records.size(), std::size_t(0));
        for (const auto& s : set.allIssues()) QVERIFY(s.toString().find("hostile.jsonl") == 0);
    }

    // Deterministic mutation fuzzing: flipped, deleted and inserted bytes and
    // truncations of a real file must give records or positioned errors, never a crash
    // (this test runs under ASan + UBSan in the test command).
    void mutatedFilesNeverCrash()
    {
        QFile f(kwbtest::qs(kwbtest::testData("records/good.jsonl")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string original = f.readAll().toStdString();
        std::mt19937 rng(1234);
        const char alphabet[] = "{}[]\",:0123456789.eE-+ntfalsr\\u\n\xff\x00";
        std::size_t loadedTotal = 0, issuesTotal = 0;
        for (int i = 0; i < 3000; ++i) {
            std::string text = original;
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits && !text.empty(); ++e) {
                const std::size_t pos = rng() % text.size();
                switch (rng() % 4) {
                case 0: text[pos] = alphabet[rng() % (sizeof alphabet - 1)]; break;
                case 1: text.erase(pos, 1 + rng() % 8); break;
                case 2: text.insert(pos, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
                case 3: text.resize(pos); break;
                }
            }
            const RecordSet set = parseNativeRecords(text, "fuzz.jsonl");
            loadedTotal += set.records.size();
            for (const auto& s : set.allIssues()) {
                QVERIFY(s.toString().rfind("fuzz.jsonl", 0) == 0);
                QVERIFY(!s.message().empty());
                ++issuesTotal;
            }
        }
        QVERIFY(loadedTotal > 0);
        QVERIFY(issuesTotal > 0);
    }

    void cancellationStopsTheLoad()
    {
        std::string text;
        const std::string line = kwb::recordToJsonLine(loadNativeRecords(kwbtest::testData("records/good.jsonl")).records[0]);
        for (int i = 0; i < 5000; ++i) text += line;
        CancelFlag cancel;
        cancel.cancel();
        TaskContext ctx;
        ctx.cancel = &cancel;
        const RecordSet set = parseNativeRecords(text, "big.jsonl", ctx);
        QVERIFY(set.records.size() < 5000);
        QCOMPARE(set.files[0].fatal.code(), ErrorCode::Cancelled);
    }

    void formatDetection_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<int>("format");
        QTest::addRow("jsonl ext") << "x.jsonl" << QByteArray("{}") << int(RecordFormat::Native);
        QTest::addRow("schema first") << "x.json" << QByteArray(" {\"schema\":\"kwb.record/1\"}") << int(RecordFormat::Native);
        QTest::addRow("leaderboard") << "raw_data.json" << QByteArray("[{\"problem_id\":1}]") << int(RecordFormat::Leaderboard);
        QTest::addRow("baseline") << "b.json" << QByteArray("{\"level1\": {}}") << int(RecordFormat::KernelBenchBaseline);
        QTest::addRow("eval") << "eval_results.json" << QByteArray("{\n    \"1\": {}}") << int(RecordFormat::KernelBenchEval);
        QTest::addRow("garbage") << "x.json" << QByteArray("hello") << int(RecordFormat::Auto);
    }
    void formatDetection()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, head);
        QFETCH(int, format);
        QCOMPARE(int(detectRecordFormat(name.toStdString(), head.toStdString())), format);
    }

    void unreadableFilesDoNotStopOthers()
    {
        const RecordSet set = loadRecordFiles({kwbtest::testData("records/not_records.json"),
            kwbtest::testData("records/empty.jsonl"), "/nonexistent.jsonl", kwbtest::testData("records/good.jsonl")});
        QCOMPARE(set.records.size(), std::size_t(3));
        QCOMPARE(set.failedFileCount(), std::size_t(2)); // not_records.json and the missing file
        const auto issues = set.allIssues();
        QVERIFY(issues[0].toString().find("not_records.json:1:1") != std::string::npos);
        QVERIFY(issues[0].message().find("not a recognised record format") != std::string::npos);
        QVERIFY(issues[1].toString().find("/nonexistent.jsonl") == 0);
    }

    // The leaderboard as it came and as kwb verify re-ran it on the H200, loaded together: each
    // record once, the re-run copy; said in the load's hints.
    void reverifiedCopiesStandForTheRecords()
    {
        KWB_REQUIRE_SHARED_DATA();
        const std::string raw = kwbtest::sharedData("kernelbench/leaderboard/raw_data.json");
        const std::string verified = KWB_DATASET_DIR "/evaluations/leaderboard_h200.jsonl.gz";
        const RecordSet set = loadRecordFiles({raw, verified});
        QCOMPARE(set.records.size(), std::size_t(413));
        QCOMPARE(set.supersededByVerified, std::size_t(413));
        for (const auto& r : set.records) QVERIFY(!r.verification.empty());
        const auto hints = recordLoadHints(set);
        QCOMPARE(hints.size(), std::size_t(1));
        QVERIFY(hints[0].find("413 records were loaded twice") == 0);
        // The raw leaderboard alone: nothing to supersede.
        const RecordSet alone = loadRecordFiles({raw});
        QCOMPARE(alone.records.size(), std::size_t(413));
        QCOMPARE(alone.supersededByVerified, std::size_t(0));
        // Two unverified copies of one record both stay (two evaluations that share a name).
        const RecordSet twice = loadRecordFiles({raw, raw});
        QCOMPARE(twice.records.size(), std::size_t(826));
    }
};

QTEST_GUILESS_MAIN(TestNativeRecords)
#include "tst_native_records.moc"
