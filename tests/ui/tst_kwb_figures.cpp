// kwb figures, run as users run it.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "ui_test_util.h"

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runKwb(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(KWB_CLI), args);
    p.waitForFinished(180000);
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TstKwbFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void standardSetInAllFormats()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.kwbproject.json"));
        {
            QFile f(project);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QStringList records{QStringLiteral("\"") + kwbuitest::testData("records/good.jsonl") + QStringLiteral("\"")};
            if (kwbuitest::hasLeaderboard()) records << QStringLiteral("\"") + kwbuitest::leaderboardPath() + QStringLiteral("\"");
            f.write(QStringLiteral("{\"schema\":\"kwb.project/1\",\"files\":{\"records\":[%1],\"traces\":[\"%2\"]},"
                                   "\"figures\":{\"group_by\":\"model\"}}")
                        .arg(records.join(QLatin1Char(',')), QStringLiteral(KWB_SOURCE_DATASETS "/traces"))
                        .toUtf8());
        }
        const QString out = dir.filePath(QStringLiteral("figs"));
        const Run r = runKwb({QStringLiteral("figures"), QStringLiteral("--preset"), QStringLiteral("double-column"),
            QStringLiteral("--out"), out, project});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList expected{QStringLiteral("speedup_histogram"), QStringLiteral("speedup_ecdf"),
            QStringLiteral("speedup_fastp"), QStringLiteral("speedup_box"), QStringLiteral("coverage_heatmap")};
        const bool traces = !r.err.contains(QStringLiteral("skipped addressable-fraction pies"));
        if (traces) expected << QStringLiteral("addressable_pies");
        for (const auto& base : expected) {
            for (const char* suffix : {".pdf", ".svg", ".png"}) {
                const QString path = out + QLatin1Char('/') + base + QLatin1String(suffix);
                QVERIFY2(QFileInfo(path).size() > 500, qPrintable(path));
                QVERIFY2(r.out.contains(path), qPrintable(r.out));
            }
        }
        const QImage png(out + QStringLiteral("/speedup_histogram.png"));
        QCOMPARE(png.width(), 2100); // double column: 7 in at 300 dpi
        QVERIFY(kwbuitest::inkPixels(png) > 20000);
    }

    // Issue 14: a project given with other files is their base, not dropped.
    void projectWithMoreFilesKeepsTheProject()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.kwbproject.json"));
        {
            QFile f(project);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("{\"schema\":\"kwb.project/1\",\"files\":{\"traces\":[\"%1\"]}}")
                        .arg(QStringLiteral(KWB_SOURCE_DATASETS "/traces/bert_infer.json.gz"))
                        .toUtf8());
        }
        const QString out = dir.filePath(QStringLiteral("figs"));
        const Run r = runKwb({QStringLiteral("figures"), QStringLiteral("--out"), out, project,
            kwbuitest::testData("records/good.jsonl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("skipped addressable-fraction pies")), qPrintable(r.err));
        QVERIFY(QFileInfo(out + QStringLiteral("/addressable_pies.png")).size() > 500);
        QVERIFY(QFileInfo(out + QStringLiteral("/speedup_histogram.png")).size() > 500);
        const Run two = runKwb({QStringLiteral("figures"), QStringLiteral("--out"), out, project, project});
        QCOMPARE(two.exitCode, 2);
        QVERIFY(two.err.contains(QStringLiteral("more than one project")));
    }

    void errorsAndUsage()
    {
        QTemporaryDir dir;
        Run r = runKwb({QStringLiteral("figures"), QStringLiteral("--preset"), QStringLiteral("poster"),
            QStringLiteral("--out"), dir.path(), kwbuitest::testData("records/good.jsonl")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("unknown preset 'poster'")));
        r = runKwb({QStringLiteral("figures"), kwbuitest::testData("records/good.jsonl")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--out DIR is required")));
        // Nothing renderable: the empty record file has no speedups, grids or traces.
        r = runKwb({QStringLiteral("figures"), QStringLiteral("--out"), dir.filePath(QStringLiteral("none")),
            kwbuitest::testData("records/empty.jsonl")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("skipped speedup distributions")));
        r = runKwb({QStringLiteral("figures"), QStringLiteral("--list-presets")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("single-column")));
        QVERIFY(r.out.contains(QStringLiteral("double-column")));
    }
};

QTEST_GUILESS_MAIN(TstKwbFigures)
#include "tst_kwb_figures.moc"
