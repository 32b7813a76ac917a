// The command line and the window re-run the same records identically: the
// same job resolution (spec by path, KernelBench sample, spec found by its
// source file's name) and the same summary, coverage of the least-covered
// output included. Both paths run against core's stand-in runner, which also
// stands in for the PyTorch bridge (it serves the same protocol).
#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "project/project_loader.h"
#include "ui_test_util.h"
#include "views/rerun_service.h"
#include "workbench/run_summary.h"

using namespace kwb::ui;

namespace {

const char* const kRecords[] = {"native/two_outputs_partial_last", "kernelbench/relu_partial_write", "run-a/sample-3"};

QString dataDir()
{
    return kwbuitest::testData("rerun_paths");
}

} // namespace

class TstRerunPaths : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // The stand-in runner serves kwb-runner's and the bridge's part alike:
        // as "python" it ignores the script argument.
        qputenv("KWB_RUNNER", KWB_FAKE_RUNNER);
        qputenv("KWB_PYTHON", KWB_FAKE_RUNNER);
        qputenv("KWB_TORCH_BRIDGE", KWB_TORCH_BRIDGE_SCRIPT);
    }

    void cliAndWindowAgree()
    {
        // The command line: one `kwb rerun --record` per record, JSON out.
        std::map<std::string, nlohmann::json> cli;
        for (const char* id : kRecords) {
            QProcess kwb;
            kwb.start(QStringLiteral(KWB_CLI),
                {QStringLiteral("rerun"), QStringLiteral("--record"), dataDir() + QStringLiteral("/records.jsonl#") + QLatin1String(id),
                    QStringLiteral("--problems"), dataDir(), QStringLiteral("--candidates"), dataDir(),
                    QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--quiet")});
            QVERIFY(kwb.waitForFinished(60000));
            const QByteArray err = kwb.readAllStandardError();
            if (kwb.exitCode() == 3) QSKIP("kwb was built without GPU support: `kwb rerun` refuses");
            QVERIFY2(kwb.exitCode() == 0, err.constData());
            const auto j = nlohmann::json::parse(kwb.readAllStandardOutput().toStdString());
            QCOMPARE(j["outcomes"].size(), std::size_t{1});
            cli[id] = j["outcomes"][0]["summary"];
        }

        // The window: the project loader over the same folder, the re-run service.
        Project project;
        project.records = {dataDir() + QStringLiteral("/records.jsonl")};
        project.problems = {dataDir()};
        const ProjectDataPtr data = loadProjectData(project);
        QCOMPARE(data->records->records.size(), std::size_t{3});
        RerunService service;
        QSignalSpy probed(&service, &RerunService::availabilityChanged);
        service.probe();
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 30000);
        QVERIFY2(service.isAvailable(), qPrintable(service.unavailableReason()));
        service.setProject(data);
        for (const char* id : kRecords) {
            int index = -1;
            for (std::size_t i = 0; i < data->records->records.size(); ++i)
                if (data->records->records[i].id == id) index = static_cast<int>(i);
            QVERIFY(index >= 0);
            QSignalSpy finished(&service, &RerunService::finished);
            QString why;
            QVERIFY2(service.start(data, index, &why), qPrintable(why));
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
            const auto outcome = finished.front().front().value<RerunOutcome>();
            const nlohmann::json gui = kwb::workbench::runSummaryToJson(outcome.summary);
            QVERIFY2(gui == cli[id], qPrintable(QStringLiteral("%1\nCLI: %2\nGUI: %3")
                                                    .arg(QLatin1String(id), QString::fromStdString(cli[id].dump()),
                                                        QString::fromStdString(gui.dump()))));
            // The panel shows the numbers of the summary, not a copy of its own.
            QVERIFY(outcome.coverage.has_value());
            QCOMPARE(*outcome.coverage->writtenFraction, gui["coverage"]["written_fraction"].get<double>());
        }

        // What the three records must show, whichever path ran them.
        const auto& twoOutputs = cli["native/two_outputs_partial_last"];
        QCOMPARE(twoOutputs["coverage"]["output"].get<std::string>(), std::string("mask")); // the worst, not the first
        QVERIFY(twoOutputs["coverage"]["written_fraction"].get<double>() < 0.01);
        QCOMPARE(twoOutputs["coverage"]["outputs_scanned"].get<int>(), 2);
        auto hasFlag = [](const nlohmann::json& s, const char* code) {
            for (const auto& f : s["flags"])
                if (f["code"] == code) return true;
            return false;
        };
        QVERIFY(hasFlag(twoOutputs, "low_coverage"));
        QVERIFY(hasFlag(cli["kernelbench/relu_partial_write"], "low_coverage"));
        QCOMPARE(cli["run-a/sample-3"]["candidate_id"].get<std::string>(), std::string("relu_named_only"));
        QVERIFY(!hasFlag(cli["run-a/sample-3"], "low_coverage"));
    }
};

QTEST_MAIN(TstRerunPaths)
#include "tst_rerun_paths.moc"
