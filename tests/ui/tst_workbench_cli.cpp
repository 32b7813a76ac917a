// kernel-workbench run as users (and the GPU machine's device script) run it:
// help without a display, and --rerun-record against core's stand-in runner.
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include "ui_test_util.h"

namespace {

struct Run {
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out;
    QString err;
};

Run runWorkbench(const QStringList& args, const QProcessEnvironment& env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(KWB_WORKBENCH), args);
    p.waitForFinished(180000);
    return {p.exitCode(), p.exitStatus(), QString::fromUtf8(p.readAllStandardOutput()),
        QString::fromUtf8(p.readAllStandardError())};
}

// No display, no platform choice, and a configuration folder of the test's own.
QProcessEnvironment headless(const QString& config)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(QLatin1String(v));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
    return env;
}

} // namespace

class TstWorkbenchCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { m_config = kwbuitest::isolateSettings("tst_workbench_cli"); }

    // Issue 14: --help without a display printed nothing and aborted.
    void helpWithoutADisplay()
    {
        const Run r = runWorkbench({QStringLiteral("--help")}, headless(m_config));
        QCOMPARE(r.status, QProcess::NormalExit);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("--rerun-record")));
        QVERIFY(r.out.contains(QStringLiteral("--screenshot")));
    }

    // The live re-run from the window, driven from the command line: the record is
    // selected, re-run through the runner protocol and the screenshot shows the result.
    void rerunRecordWritesAScreenshotOfTheResult()
    {
#ifndef KWB_FAKE_RUNNER
        QSKIP("core's stand-in runner (kwb_fake_runner) is not in this build");
#else
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("rerun.kwbproject.json"));
        {
            QFile f(project);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("{\"schema\":\"kwb.project/1\",\"files\":{\"records\":[\"%1/evaluations\"],"
                                   "\"problems\":[\"%1/problems\",\"%1/candidates\"]}}")
                        .arg(QStringLiteral(KWB_SOURCE_DATASETS))
                        .toUtf8());
        }
        QProcessEnvironment env = headless(m_config);
        env.insert(QStringLiteral("KWB_RUNNER"), QStringLiteral(KWB_FAKE_RUNNER));
        const QString shot = dir.filePath(QStringLiteral("rerun.png"));
        const Run r = runWorkbench({QStringLiteral("--project"), project, QStringLiteral("--rerun-record"),
                                       QStringLiteral("kb1_19_relu.partial_write"), QStringLiteral("--screenshot"), shot,
                                       QStringLiteral("--size"), QStringLiteral("1400x900")},
            env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("status ok")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("low_coverage")), qPrintable(r.out));
        QVERIFY(r.out.contains(shot));
        const QImage image(shot);
        QCOMPARE(image.size(), QSize(1400, 900));
        QVERIFY(kwbuitest::inkPixels(image) > 20000);

        // A record that does not exist, and one without a device, fail with the reason.
        Run bad = runWorkbench({QStringLiteral("--project"), project, QStringLiteral("--rerun-record"),
                                   QStringLiteral("no-such-record"), QStringLiteral("--screenshot"), shot},
            env);
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("no record 'no-such-record'")), qPrintable(bad.err));
        env.insert(QStringLiteral("KWB_FAKE_NO_DEVICE"), QStringLiteral("1"));
        bad = runWorkbench({QStringLiteral("--project"), project, QStringLiteral("--rerun-record"),
                               QStringLiteral("kb1_19_relu.partial_write"), QStringLiteral("--screenshot"), shot},
            env);
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("no GPU"), Qt::CaseInsensitive), qPrintable(bad.err));
#endif
    }

private:
    QString m_config;
};

QTEST_GUILESS_MAIN(TstWorkbenchCli)
#include "tst_workbench_cli.moc"
