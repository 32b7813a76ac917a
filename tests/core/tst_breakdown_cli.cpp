// kwb breakdown and kwb project, run as users run them.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

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

QString trace(const char* name)
{
    return QStringLiteral(KWB_DATASET_DIR "/traces/") + QString::fromLatin1(name);
}

} // namespace

class TestBreakdownCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jsonHasTheDocumentedShape()
    {
        const Run r = kwb({QStringLiteral("breakdown"), QStringLiteral("--format=json"), trace("gpt2_infer.json.gz"),
            trace("dlrm_train.json.gz")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonArray workloads = doc.value(QStringLiteral("workloads")).toArray();
        QCOMPARE(workloads.size(), 2);
        const QJsonObject w = workloads.at(0).toObject();
        QCOMPARE(w.value(QStringLiteral("name")).toString(), QStringLiteral("gpt2_infer"));
        for (const char* key : {"gpu_kernel_us", "busy_us", "span_us", "addressable_fraction"})
            QVERIFY2(w.value(QLatin1String(key)).isDouble(), key);
        QVERIFY(w.value(QStringLiteral("unclassified")).isArray());
        const QJsonObject fam = w.value(QStringLiteral("families")).toArray().at(0).toObject();
        for (const char* key : {"family", "library", "category"}) QVERIFY2(fam.value(QLatin1String(key)).isString(), key);
        QVERIFY(fam.value(QStringLiteral("addressable")).isBool());
        QVERIFY(fam.value(QStringLiteral("us")).isDouble());
        QVERIFY(fam.value(QStringLiteral("count")).isDouble());
    }

    void tableAndCsv()
    {
        const Run t = kwb({QStringLiteral("breakdown"), trace("resnet50_train.json.gz")});
        QCOMPARE(t.exitCode, 0);
        QVERIFY(t.out.contains("addressable:"));
        QVERIFY(t.out.contains("cudnn_conv"));
        const Run c = kwb({QStringLiteral("breakdown"), QStringLiteral("--format"), QStringLiteral("csv"), trace("vit_infer.json.gz")});
        QCOMPARE(c.exitCode, 0);
        QVERIFY(c.out.startsWith("workload,family,library,category,addressable,us"));
    }

    void ownRulesReplaceTheDefault()
    {
        QTemporaryDir dir;
        const QString rules = dir.filePath(QStringLiteral("rules.json"));
        QFile f(rules);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"schema":"kwb.kernel_families/1","version":"mine","rules":[{"pattern":"^nvjet","family":"nv","library":"cuBLAS","category":"gemm","addressable":false}]})");
        f.close();
        const Run r = kwb({QStringLiteral("breakdown"), QStringLiteral("--rules"), rules, QStringLiteral("--format=json"), trace("bert_infer.json.gz")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject w = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("workloads")).toArray().at(0).toObject();
        QCOMPARE(w.value(QStringLiteral("rules_version")).toString(), QStringLiteral("mine"));
        // Everything but nvjet is now unclassified and listed as such, never addressable.
        QCOMPARE(w.value(QStringLiteral("addressable_fraction")).toDouble(), 0.0);
        QVERIFY(!w.value(QStringLiteral("unclassified")).toArray().isEmpty());
    }

    void errorsExitOneAndNameTheFile()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("cut.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2},\n{\"ph\"");
        f.close();
        const Run r = kwb({QStringLiteral("breakdown"), bad, trace("bert_infer.json.gz")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cut.json:2:"), r.err.constData());
        QVERIFY(r.err.contains("truncated"));
        QVERIFY(r.out.contains("bert_infer")); // the good trace still reports
    }

    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("no traces") << QStringList{QStringLiteral("breakdown")};
        QTest::addRow("bad format") << QStringList{QStringLiteral("breakdown"), QStringLiteral("--format=xml"), QStringLiteral("x")};
        QTest::addRow("project without records") << QStringList{QStringLiteral("project"), QStringLiteral("--trace"), QStringLiteral("x")};
        QTest::addRow("project bad basis") << QStringList{QStringLiteral("project"), QStringLiteral("--trace=x"), QStringLiteral("--records=y"), QStringLiteral("--speedup=max")};
    }
    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, args);
        QCOMPARE(kwb(args).exitCode, 2);
    }

    void projectShowsItsInputs()
    {
        const Run r = kwb({QStringLiteral("project"), QStringLiteral("--trace"), trace("dlrm_train.json.gz"), QStringLiteral("--records"),
            QStringLiteral(KWB_TEST_DATA_DIR "/records/good.jsonl"), QStringLiteral("--format=json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject w = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("workloads")).toArray().at(0).toObject();
        for (const char* key : {"f", "w", "s", "expected_saving", "amdahl_speedup"}) QVERIFY2(w.value(QLatin1String(key)).isDouble(), key);
        const double f = w.value(QStringLiteral("f")).toDouble();
        const double wr = w.value(QStringLiteral("w")).toDouble();
        const double s = w.value(QStringLiteral("s")).toDouble();
        QVERIFY(qAbs(w.value(QStringLiteral("expected_saving")).toDouble() - f * wr * (1 - 1 / s)) < 1e-12);
        const Run text = kwb({QStringLiteral("project"), QStringLiteral("--trace"), trace("dlrm_train.json.gz"), QStringLiteral("--records"),
            QStringLiteral(KWB_TEST_DATA_DIR "/records/good.jsonl")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("f*w*(1-1/s)"));
        QVERIFY(text.out.contains("Amdahl"));
    }
};

QTEST_GUILESS_MAIN(TestBreakdownCli)
#include "tst_breakdown_cli.moc"
