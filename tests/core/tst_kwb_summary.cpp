#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "test_util.h"

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run kwb(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(KWB_CLI), args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QString data(const char* rel)
{
    return kwbtest::qs(kwbtest::testData(rel));
}

} // namespace

class TestKwbSummary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void helpExplainsEveryOption()
    {
        const Run top = kwb({QStringLiteral("--help")});
        QCOMPARE(top.exitCode, 0);
        QVERIFY(top.out.contains("summary"));
        const Run r = kwb({QStringLiteral("summary"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const char* opt : {"--by", "--format", "--baseline", "--level", "--model", "--p", "--k", "--bootstrap", "--input-format"})
            QVERIFY2(r.out.contains(opt), opt);
    }

    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("no files") << QStringList{QStringLiteral("summary")};
        QTest::addRow("bad format") << QStringList{QStringLiteral("summary"), QStringLiteral("--format=xml"), QStringLiteral("x")};
        QTest::addRow("unknown option") << QStringList{QStringLiteral("summary"), QStringLiteral("--bogus"), QStringLiteral("x")};
        QTest::addRow("unknown command") << QStringList{QStringLiteral("frobnicate")};
    }
    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, args);
        QCOMPARE(kwb(args).exitCode, 2);
    }

    void leaderboardByModelJson()
    {
        KWB_REQUIRE_SHARED_DATA();
        const Run r = kwb({QStringLiteral("summary"), QStringLiteral("--by"), QStringLiteral("model"), QStringLiteral("--format"),
            QStringLiteral("json"), kwbtest::qs(kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"))});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        const QJsonArray groups = doc.object().value(QStringLiteral("groups")).toArray();
        QCOMPARE(groups.size(), 7);
        QVERIFY(doc.object().value(QStringLiteral("errors")).toArray().isEmpty());
        int total = 0;
        for (const auto& gv : groups) {
            const QJsonObject g = gv.toObject();
            total += g.value(QStringLiteral("records")).toInt();
            for (const char* k : {"records", "correct", "correctness_rate", "median_speedup", "geomean_speedup", "win_rate", "fast_p"})
                QVERIFY2(g.contains(QLatin1String(k)), k);
            const QJsonObject fp = g.value(QStringLiteral("fast_p")).toObject();
            for (const char* p : {"0", "0.5", "0.8", "1", "1.5", "2"}) QVERIFY2(fp.contains(QLatin1String(p)), p);
            if (g.value(QStringLiteral("key")).toObject().value(QStringLiteral("model")).toString() == QStringLiteral("deepseek")) {
                QCOMPARE(g.value(QStringLiteral("records")).toInt(), 76);
                QVERIFY(std::abs(g.value(QStringLiteral("median_speedup")).toDouble() - 0.6154038973) < 1e-12);
            }
        }
        QCOMPARE(total, 413);
    }

    // The leaderboard as kwb verify re-ran it on the H200: the JSON carries core's claim verdicts
    // (what scripts/leaderboard_findings.py prints); the unverified leaderboard has none by default.
    void claimVerdictsInJson()
    {
        const Run r = kwb({QStringLiteral("summary"), QStringLiteral("--format=json"),
            QStringLiteral(KWB_DATASET_DIR "/evaluations/leaderboard_h200.jsonl.gz")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject claims = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("claims")).toObject();
        QCOMPARE(claims.value(QStringLiteral("hold_ratio")).toDouble(), 0.8);
        const QJsonArray tallies = claims.value(QStringLiteral("tallies")).toArray();
        QVERIFY(!tallies.isEmpty());
        const QJsonObject all = tallies.last().toObject();
        QCOMPARE(all.value(QStringLiteral("model")).toString(), QStringLiteral("all"));
        QCOMPARE(all.value(QStringLiteral("records")).toInt(), 413);
        QCOMPARE(all.value(QStringLiteral("claims")).toInt(), 78);
        QCOMPARE(all.value(QStringLiteral("survived")).toInt(),
            all.value(QStringLiteral("holds")).toInt() + all.value(QStringLiteral("shrank")).toInt());
        int diagonalHolds = 0;
        const QJsonArray points = claims.value(QStringLiteral("points")).toArray();
        QCOMPARE(points.size(), 413);
        for (const auto& pv : points) {
            const QJsonObject p = pv.toObject();
            if (p.value(QStringLiteral("problem")).toString().startsWith(QStringLiteral("L1/12_"))
                && p.value(QStringLiteral("claimed")).toDouble() > 10.0)
                diagonalHolds += p.value(QStringLiteral("verdict")).toString() == QStringLiteral("holds");
        }
        QCOMPARE(diagonalHolds, 4); // the diagonal-matmul claims of 10-13x hold on the H200
        KWB_REQUIRE_SHARED_DATA();
        const Run raw = kwb({QStringLiteral("summary"), QStringLiteral("--format=json"),
            kwbtest::qs(kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"))});
        QVERIFY(!QJsonDocument::fromJson(raw.out).object().contains(QStringLiteral("claims")));
    }

    void brokenFilesAreNamedAndOthersStillCount()
    {
        const Run r = kwb({QStringLiteral("summary"), QStringLiteral("--format=json"), data("records/bad_lines.jsonl"),
            data("records/not_records.json")});
        QCOMPARE(r.exitCode, 1); // one file failed outright
        QVERIFY(r.err.contains("not_records.json:1:1"));
        QVERIFY(r.err.contains("bad_lines.jsonl:4:"));
        const QJsonObject root = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(root.value(QStringLiteral("groups")).toArray().at(0).toObject().value(QStringLiteral("records")).toInt(), 4);
        const QJsonArray errors = root.value(QStringLiteral("errors")).toArray();
        QCOMPARE(errors.size(), 5);
        QVERIFY(errors.at(0).toObject().value(QStringLiteral("file")).toString().endsWith(QStringLiteral("not_records.json")));
        QCOMPARE(errors.at(1).toObject().value(QStringLiteral("line")).toInt(), 4);
    }

    void kernelBenchRunWithBaselineCsv()
    {
        KWB_REQUIRE_SHARED_DATA();
        const Run r = kwb({QStringLiteral("summary"), QStringLiteral("--by=outcome"), QStringLiteral("--format=csv"),
            QStringLiteral("--baseline"), kwbtest::qs(kwbtest::sharedData("kernelbench/timing/H100_Modal/baseline_time_torch.json")),
            data("kernelbench/runs/level1_v0_run/eval_results.json")});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 6); // header + compile_error, correct, incorrect, runtime_error, timeout
        QVERIFY(lines[0].startsWith("group,records,correct"));
        QVERIFY(lines[2].startsWith("correct,2,2,1.000,"));
    }

    // A baseline timing JSON alone holds no evaluations: say which file it is and how to pass
    // it with its eval_results.json, and fail (it used to print "0 records from 1 file", exit 0).
    void loneBaselineFileSaysWhatItPairsWith()
    {
        KWB_REQUIRE_SHARED_DATA();
        const QString baseline = kwbtest::qs(kwbtest::sharedData("kernelbench/timing/H100_Modal/baseline_time_torch.json"));
        const Run r = kwb({QStringLiteral("summary"), baseline});
        QCOMPARE(r.exitCode, 1);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(baseline + QStringLiteral(": KernelBench baseline timings")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("eval_results.json")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("--baseline ") + baseline), qPrintable(err));
        // With its eval_results.json the same file is no longer called alone.
        const Run both = kwb({QStringLiteral("summary"), baseline, data("kernelbench/runs/level1_v0_run/eval_results.json")});
        QCOMPARE(both.exitCode, 0);
        QVERIFY(!both.err.contains("baseline timings"));
    }

    void noRecordsAtAllExitsNonZero()
    {
        QTemporaryDir dir;
        const QString empty = dir.filePath(QStringLiteral("empty.jsonl"));
        QFile f(empty);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\n");
        f.close();
        const Run r = kwb({QStringLiteral("summary"), empty});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no records"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestKwbSummary)
#include "tst_kwb_summary.moc"
