// Models, proxies, project files, input classification, decimation and the
// distribution/heatmap data behind the charts.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "charts/decimation.h"
#include "charts/distribution_data.h"
#include "charts/heatmap_renderer.h"
#include "models/group_stats_model.h"
#include "models/pivot_model.h"
#include "models/raw_value_proxy.h"
#include "models/record_filter_proxy.h"
#include "models/record_table_model.h"
#include "models/suspicious_model.h"
#include "models/top_kernels_model.h"
#include "project/input_classifier.h"
#include "project/project.h"
#include "project/project_loader.h"
#include "records/problem_names.h"
#include "traces/rule_table.h"
#include "analysis/projection_report.h"
#include "ui_test_util.h"
#include "analysis/statistics.h"
#include "rerun/flags.h"
#include "workbench/input_kind.h"
#include "records/kernelbench_importer.h"
#include "views/record_compare.h"

using namespace kwb::ui;
using kwbuitest::testData;

namespace {

ProjectDataPtr goodData()
{
    return kwbuitest::loadRecords({testData("records/good.jsonl")});
}

ProjectDataPtr withWorkloads()
{
    auto d = std::make_shared<ProjectData>();
    for (int w = 0; w < 2; ++w) {
        WorkloadSummary s;
        s.name = QStringLiteral("w%1").arg(w);
        s.addressableFraction = 0.25 * (w + 1);
        s.categories = {{QStringLiteral("gemm"), false, 60, 0.6, 3}, {QStringLiteral("elementwise"), true, 40, 0.4, 9}};
        for (int k = 0; k < 3; ++k)
            s.topKernels.push_back({QStringLiteral("kernel_%1").arg(k), QStringLiteral("fam"), QStringLiteral("gemm"),
                k % 2 == 0, 10.0 * (3 - k), k + 1, 1.0, 0.1});
        d->workloads.push_back(s);
    }
    return d;
}

} // namespace

class TstUiModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        const QString config = kwbuitest::isolateSettings("tst_ui_models");
        QVERIFY2(QSettings().fileName().startsWith(config), qPrintable(QSettings().fileName()));
    }

    // Issue 14: "Baseline ms" must be the baseline the speedup is over (eager for the
    // leaderboard), so that baseline / kernel reproduces the speedup beside it.
    void baselineColumnIsTheSpeedupsBaseline()
    {
        KWB_REQUIRE_LEADERBOARD();
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        RecordTableModel model;
        QAbstractItemModelTester tester(&model);
        model.setData(data);
        int checked = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const RecordRow& r = (*data->rows)[static_cast<std::size_t>(row)];
            if (std::isnan(r.speedup) || std::isnan(r.baselineMs) || std::isnan(r.candidateMs)) continue;
            QVERIFY2(std::abs(r.baselineMs / r.candidateMs / r.speedup - 1) < 0.01,
                qPrintable(QStringLiteral("%1: %2 / %3 vs %4x").arg(r.id).arg(r.baselineMs).arg(r.candidateMs).arg(r.speedup)));
            QCOMPARE(r.baselineName, QStringLiteral("torch_eager"));
            QVERIFY(model.index(row, RecordTableModel::BaselineMs).data(Qt::ToolTipRole).toString().contains(
                QStringLiteral("torch_eager")));
            ++checked;
        }
        QVERIFY(checked > 300);
    }

    // Issue 14: an all-NaN output's flag must not read as a small error.
    void nanOutputFlagSaysSo()
    {
        kwb::RerunResult r;
        r.status = kwb::RerunStatus::Ok;
        kwb::OutputCheck o;
        o.output = "y";
        o.trials = 3;
        o.count = 524160;
        o.nanCount = 524160;
        o.outOfTolerance = 524160;
        o.outOfToleranceShare = 1.0;
        r.outputs.push_back(o);
        const auto flags = kwb::deriveFlags(r);
        QVERIFY(!flags.empty());
        const QString reason = QString::fromStdString(flags.front().reason);
        QVERIFY2(reason.contains(QStringLiteral("every element is NaN or Inf")), qPrintable(reason));
        QVERIFY2(!reason.contains(QStringLiteral("relative L2 error 0")), qPrintable(reason));
    }

    // Issue 14: error-flagged records (the 220x side-stream kernel) are not wins in the projection.
    void errorFlaggedRecordsAreNotWins()
    {
        if (!buildHasTraces()) QSKIP("this build does not read traces");
        Project p;
        p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations")};
        p.traces = {QStringLiteral(KWB_SOURCE_DATASETS "/traces/bert_infer.json.gz")};
        const ProjectDataPtr data = loadProjectData(p);
        QCOMPARE(data->workloads.size(), std::size_t(1));
        const ProjectionSummary& pr = data->workloads.front().projection;
        QVERIFY(pr.errorFlagged >= 1);
        for (const auto& r : data->records->records) {
            if (!kwb::hasErrorFlag(r) || !r.isCorrect()) continue;
            const auto s = kwb::effectiveSpeedup(r);
            if (s && *s > 100) QVERIFY(pr.s < *s); // the exploit's speedup is not the median of wins
        }
    }

    // Issue 14: an incorrect record's speedup does not look like a valid one.
    void incorrectSpeedupsLookDifferent()
    {
        kwb::RecordSet set;
        for (auto outcome : {kwb::Outcome::Correct, kwb::Outcome::Incorrect}) {
            kwb::EvalRecord r;
            r.id = outcome == kwb::Outcome::Correct ? "ok" : "wrong";
            r.outcome = outcome;
            r.speedup = 12.5;
            set.records.push_back(r);
        }
        RecordTableModel model;
        QAbstractItemModelTester tester(&model);
        model.setData(makeProjectData(std::move(set)));
        QCOMPARE(model.index(0, RecordTableModel::Speedup).data().toString(), QStringLiteral("12.500"));
        QCOMPARE(model.index(1, RecordTableModel::Speedup).data().toString(), QStringLiteral("(12.500)"));
        QVERIFY(model.index(1, RecordTableModel::Speedup).data(Qt::ToolTipRole).toString().contains(QStringLiteral("not correct")));
        QVERIFY(model.index(1, RecordTableModel::Speedup).data(Qt::ForegroundRole).isValid());
        QCOMPARE(model.index(1, RecordTableModel::Speedup).data(RecordTableModel::RawValueRole).toDouble(), 12.5);
    }

    // Issue 11: one sniffer for every input kind.
    void inputKinds_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        QTest::addRow("native") << testData("records/good.jsonl") << "kwb-jsonl";
        QTest::addRow("eval") << testData("kernelbench/runs/level1_v0_run/eval_results.json") << "kernelbench-eval";
        QTest::addRow("problem") << testData("problems/relu.json") << "problem-spec";
        QTest::addRow("kineto-gz") << QStringLiteral(KWB_SOURCE_DATASETS "/traces/bert_infer.json.gz") << "kineto-trace-gz";
        QTest::addRow("project") << QStringLiteral(KWB_SOURCE_DATASETS "/default.kwbproject.json") << "project";
        QTest::addRow("folder") << testData("records") << "folder";
        QTest::addRow("missing") << testData("records/nope.jsonl") << "missing";
        QTest::addRow("not-records") << testData("records/not_records.json") << "unknown";
        QTest::addRow("baseline") << QStringLiteral(KWB_SHARED_DATA_DIR "/kernelbench/timing/H100_Modal/baseline_time_torch.json")
                                  << "kernelbench-baseline";
        QTest::addRow("leaderboard") << kwbuitest::leaderboardPath() << "leaderboard";
    }

    void inputKinds()
    {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        if (kind != QLatin1String("missing") && !QFileInfo::exists(path)) QSKIP("fixture not on this machine");
        QCOMPARE(QString::fromLatin1(kwb::inputKindName(sniffInput(path))), kind);
    }

    void inputKindsFromHeads()
    {
        using kwb::InputKind;
        QCOMPARE(kwb::classifyInputHead("x.json", R"({"schemaVersion":1,"traceEvents":[)"), InputKind::KinetoTrace);
        QCOMPARE(kwb::classifyInputHead("x.json.gz", R"({"deviceProperties":[)", true), InputKind::KinetoTraceGz);
        QCOMPARE(kwb::classifyInputHead("t.sqlite", std::string_view("SQLite format 3\0xx", 18)), InputKind::NsysSqlite);
        QCOMPARE(kwb::classifyInputHead("c.json", R"({ "schema": "kwb.candidate/1", "id": "x"})"), InputKind::CandidateSpec);
        QCOMPARE(kwb::classifyInputHead("r.json", R"({"level1": {"1_Square": {}}})"), InputKind::KernelBenchBaseline);
        QCOMPARE(kwb::classifyInputHead("runs.jsonl.gz", R"({"schema":"kwb.record/1"})", true), InputKind::NativeRecords);
        QCOMPARE(kwb::classifyInputHead("e.json", "{}"), InputKind::KernelBenchEval);
        QCOMPARE(kwb::classifyInputHead("e.json", "hello"), InputKind::Unknown);
    }

    // Issue 14: a baseline table alone loads 0 records; the project says what it pairs with.
    void baselineAloneSaysWhatItPairsWith()
    {
        const QString baseline =
            QStringLiteral(KWB_SHARED_DATA_DIR "/kernelbench/timing/H100_Modal/baseline_time_torch.json");
        if (!QFileInfo::exists(baseline)) QSKIP("../shared/data has no baseline timing file");
        Project p;
        p.records = {baseline};
        const ProjectDataPtr data = loadProjectData(p);
        QCOMPARE(data->records->records.size(), std::size_t(0));
        QVERIFY2(!data->messages.filter(QStringLiteral("eval_results.json")).isEmpty(),
            qPrintable(data->messages.join(QLatin1Char('\n'))));
        QVERIFY(data->messages.front().contains(QStringLiteral("baseline_time_torch.json")));
        // With its eval results it is a join, not a warning.
        p.records << testData("kernelbench/runs/level1_v0_run/eval_results.json");
        QVERIFY(loadProjectData(p)->messages.filter(QStringLiteral("pairs with")).isEmpty());
    }

    // Issue 14: the shipped suite's problems map to the families their kernels belong to.
    void problemFamilies_data()
    {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("family");
        QTest::addRow("min_dim1") << "kb1_53_min_dim1" << "aten_reduce";
        QTest::addRow("sum_dim1") << "kb1_47_sum_dim1" << "aten_reduce";
        QTest::addRow("matvec") << "kb1_04_matvec" << "cublas_gemm";
        QTest::addRow("tbe") << "dlrm_tbe_26_tables" << "aten_embedding";
        QTest::addRow("relu") << "kb1_19_relu" << "aten_elementwise";
        QTest::addRow("softmax") << "kb1_24_log_softmax" << "aten_softmax";
        QTest::addRow("layernorm") << "kb1_40_layernorm" << "aten_norm";
        QTest::addRow("cumsum") << "kb1_89_cumsum" << "aten_reduce";
        QTest::addRow("mse") << "kb1_94_mse_loss" << "aten_loss";
        QTest::addRow("embedding_bag") << "dlrm_embedding_bag_sum" << "aten_embedding";
        QTest::addRow("kb_min_reduction") << "53_Min_reduction_over_a_dimension" << "aten_reduce";
        QTest::addRow("kb_max_pool") << "42_Max_Pooling_2D" << "aten_pool";
        QTest::addRow("kb_scalar_mult") << "5_Matrix_scalar_multiplication" << "aten_elementwise";
        QTest::addRow("kb_matvec") << "4_Matrix_vector_multiplication_" << "cublas_gemm";
        QTest::addRow("kb_conv") << "63_conv_standard_2D__square_input__square_kernel" << "cudnn_conv";
    }

    void problemFamilies()
    {
        QFETCH(QString, problem);
        QFETCH(QString, family);
        auto rules = kwb::RuleTable::loadDefault();
        QVERIFY(rules.isOk());
        QCOMPARE(QString::fromStdString(kwb::familyOfProblem(*rules, problem.toStdString())), family);
    }

    // Issue 14: leaderboard records get their problem names from KernelBench's files
    // and so reach the projection's family mapping.
    void leaderboardRecordsReachTheProjection()
    {
        KWB_REQUIRE_LEADERBOARD();
        const QString kb = QStringLiteral(KWB_SHARED_DATA_DIR "/kernelbench/problems/v0/KernelBench");
        if (!QFileInfo(kb).isDir()) QSKIP("../shared/data has no KernelBench problem files");
        auto names = kwb::ProblemNames::scan(kb.toStdString());
        QVERIFY2(names.isOk(), names.status().toString().c_str());
        QCOMPARE(names->name(1, 40).value_or(""), std::string("40_LayerNorm"));
        QVERIFY(names->size() >= 250);
        auto missing = kwb::ProblemNames::scan(testData("records").toStdString());
        QVERIFY(!missing.isOk());
        QVERIFY(missing.status().toString().find("records") != std::string::npos);

        Project p;
        p.records = {kwbuitest::leaderboardPath()};
        p.traces = {QStringLiteral(KWB_SOURCE_DATASETS "/traces/bert_infer.json.gz")};
        qunsetenv("KWB_KERNELBENCH_DIR");
        const ProjectDataPtr unnamed = loadProjectData(p);
        QVERIFY2(!unnamed.get()->messages.filter(QStringLiteral("KernelBench Checkout")).isEmpty(),
            qPrintable(unnamed->messages.join(QLatin1Char('\n'))));
        qputenv("KWB_KERNELBENCH_DIR", QFile::encodeName(kb));
        const ProjectDataPtr named = loadProjectData(p);
        qunsetenv("KWB_KERNELBENCH_DIR");
        QVERIFY(named->messages.filter(QStringLiteral("KernelBench Checkout")).isEmpty());
        bool layerNorm = false;
        for (const auto& r : *named->rows) layerNorm = layerNorm || r.problem == QLatin1String("L1/40_LayerNorm");
        QVERIFY(layerNorm);
        QCOMPARE(named->workloads.size(), std::size_t(1));
        QCOMPARE(named->workloads.front().projection.matching, QStringLiteral("problem_families"));
        QCOMPARE(unnamed->workloads.front().projection.matching, QStringLiteral("all records"));
    }

    void recordModelUnderTester()
    {
        RecordTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setData(goodData());
        QCOMPARE(model.rowCount(), 3);
        model.setData(nullptr);
        QCOMPARE(model.rowCount(), 0);
        model.setData(goodData());
        RecordFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(RecordTableModel::Speedup);
        proxy.setSearchText(QStringLiteral("softmax"));
        QCOMPARE(proxy.rowCount(), 2);
    }

    void otherModelsUnderTester()
    {
        SuspiciousModel suspicious;
        QAbstractItemModelTester t1(&suspicious, QAbstractItemModelTester::FailureReportingMode::QtTest);
        suspicious.setData(goodData());
        QCOMPARE(suspicious.rowCount(), 1);
        QCOMPARE(suspicious.data(suspicious.index(0, SuspiciousModel::Record)).toString(), QStringLiteral("r1"));
        QVERIFY(suspicious.data(suspicious.index(0, SuspiciousModel::Reasons)).toString().contains(
            QStringLiteral("kernel wrote 0.30% of its output")));

        TopKernelsModel top;
        QAbstractItemModelTester t2(&top, QAbstractItemModelTester::FailureReportingMode::QtTest);
        top.setData(withWorkloads());
        QCOMPARE(top.rowCount(), 6);
        top.setData(withWorkloads(), 1);
        QCOMPARE(top.rowCount(), 3);
        QCOMPARE(top.data(top.index(0, TopKernelsModel::Workload)).toString(), QStringLiteral("w1"));

        RawValueProxy proxy;
        proxy.setSourceModel(&top);
        QAbstractItemModelTester t3(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(TopKernelsModel::TotalUs, Qt::AscendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, TopKernelsModel::Kernel)).toString(), QStringLiteral("kernel_2"));
        proxy.setFilterFixedString(QStringLiteral("kernel_1"));
        QCOMPARE(proxy.rowCount(), 1);
    }

    void filter_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("rows");
        QTest::addRow("model a") << "model" << "model-a" << 1;
        QTest::addRow("model b") << "model" << "model-b" << 2;
        QTest::addRow("level 1") << "level" << "1" << 3;
        QTest::addRow("level 2") << "level" << "2" << 0;
        QTest::addRow("problem") << "problem" << "L1/23_Softmax" << 2;
        QTest::addRow("status incorrect") << "status" << "incorrect" << 1;
        QTest::addRow("flagged") << "flag" << "flagged" << 1;
        QTest::addRow("unflagged") << "flag" << "unflagged" << 2;
        QTest::addRow("flag code") << "flag" << "low_coverage" << 1;
        QTest::addRow("other flag code") << "flag" << "timeout" << 0;
        QTest::addRow("search two words") << "search" << "softmax model-b" << 1;
        QTest::addRow("search error text") << "search" << "max abs diff" << 1;
    }

    void filter()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(int, rows);
        RecordTableModel model;
        model.setData(goodData());
        RecordFilterProxy proxy;
        proxy.setSourceModel(&model);
        RecordFilter f;
        if (field == QLatin1String("model")) f.model = value;
        else if (field == QLatin1String("level")) f.level = value;
        else if (field == QLatin1String("problem")) f.problem = value;
        else if (field == QLatin1String("status")) f.status = value;
        else if (field == QLatin1String("flag")) f.flag = value;
        else f.search = value;
        proxy.setFilter(f);
        QCOMPARE(proxy.rowCount(), rows);
    }

    void pickedRecordsAndRawSort()
    {
        RecordTableModel model;
        model.setData(goodData());
        RecordFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.setPickedRecords({0, 2});
        QCOMPARE(proxy.rowCount(), 2);
        proxy.clearPickedRecords();
        QCOMPARE(proxy.rowCount(), 3);
        // Speedups 2.04, none, 0.8: ascending puts 0.8 first and the missing one last.
        proxy.sort(RecordTableModel::Speedup, Qt::AscendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, RecordTableModel::Id)).toString(), QStringLiteral("r3"));
        QCOMPARE(proxy.data(proxy.index(1, RecordTableModel::Id)).toString(), QStringLiteral("r1"));
        QCOMPARE(proxy.data(proxy.index(2, RecordTableModel::Id)).toString(), QStringLiteral("r2"));
        QVERIFY(std::isnan(proxy.data(proxy.index(2, RecordTableModel::Speedup), RecordTableModel::RawValueRole).toDouble()));
    }

    void largeTablesFilterAndSortOffThread()
    {
        // Above kAsyncRows the filter and the sort run on the pool and apply in one step.
        kwb::RecordSet set;
        const int n = RecordTableModel::kAsyncRows + 5000;
        for (int i = 0; i < n; ++i) {
            kwb::EvalRecord r;
            r.id = "r" + std::to_string(i);
            r.model = i % 3 == 0 ? "alpha" : "beta";
            r.outcome = kwb::Outcome::Correct;
            r.speedup = static_cast<double>((i * 7919) % n) / 100.0 + 0.01;
            set.records.push_back(std::move(r));
        }
        RecordTableModel model;
        model.setData(makeProjectData(std::move(set)));
        RecordFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy filtered(&proxy, &RecordFilterProxy::filterApplied);
        RecordFilter f;
        f.model = QStringLiteral("alpha");
        proxy.setFilter(f);
        QVERIFY(proxy.isFiltering());
        QTRY_COMPARE_WITH_TIMEOUT(filtered.count(), 1, 20000);
        QCOMPARE(proxy.rowCount(), (n + 2) / 3);
        QSignalSpy sorted(&model, &RecordTableModel::sortFinished);
        proxy.sort(RecordTableModel::Speedup, Qt::DescendingOrder);
        QVERIFY(model.isSorting());
        QTRY_COMPARE_WITH_TIMEOUT(sorted.count(), 1, 20000);
        QCOMPARE(proxy.rowCount(), (n + 2) / 3);
        double prev = 1e300;
        for (int r = 0; r < proxy.rowCount(); r += 97) {
            const double s = proxy.data(proxy.index(r, RecordTableModel::Speedup), RecordTableModel::RawValueRole).toDouble();
            QVERIFY(s <= prev);
            prev = s;
            QCOMPARE(proxy.data(proxy.index(r, RecordTableModel::Model)).toString(), QStringLiteral("alpha"));
        }
        // The order is the synchronous one.
        const auto order = RecordTableModel::sortedOrder(*model.projectData()->rows, RecordTableModel::Speedup,
            Qt::DescendingOrder);
        QCOMPARE(model.recordIndex(0), order.front());
        QCOMPARE(model.displayRow(order.back()), n - 1);
    }

    void suspiciousRanking()
    {
        kwb::RecordSet set;
        auto add = [&set](const char* id, const char* severity, int flags, double speedup) {
            kwb::EvalRecord r;
            r.id = id;
            r.outcome = kwb::Outcome::Correct;
            r.speedup = speedup;
            for (int i = 0; i < flags; ++i) r.verification.flags.push_back({"f" + std::to_string(i), "why", severity});
            set.records.push_back(r);
        };
        add("warn-fast", "warning", 1, 50);
        add("none", "error", 0, 100);
        add("error-slow", "error", 1, 1.1);
        add("error-two", "error", 2, 1.0);
        auto data = makeProjectData(std::move(set));
        const std::vector<int> order = SuspiciousModel::rank(*data);
        // "none" carries no flag but claims 100x, above the 10x threshold: listed, after the flagged warning.
        QCOMPARE(order, (std::vector<int>{3, 2, 0, 1}));
        QVERIFY(data->suspiciousReasons.back().startsWith(QStringLiteral("unverified_claim: 100.00x")));
    }

    // Issue 14: the leaderboard's unverified claims above 10x (level 1, problem 12) are listed for review.
    void unverifiedClaimsAreSuspicious()
    {
        KWB_REQUIRE_LEADERBOARD();
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        SuspiciousModel model;
        QAbstractItemModelTester tester(&model);
        model.setData(data);
        int problem12 = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const int rec = model.index(row, 0).data(SuspiciousModel::RecordIndexRole).toInt();
            const kwb::EvalRecord& r = data->records->records[static_cast<std::size_t>(rec)];
            QVERIFY((*data->rows)[static_cast<std::size_t>(rec)].speedup > 10);
            QCOMPARE(model.index(row, SuspiciousModel::Severity).data().toString(), QStringLiteral("unverified"));
            if (r.problem.level == 1 && r.problem.id == 12) ++problem12;
        }
        QCOMPARE(problem12, 4);
    }

    void projectRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir(dir.path()).mkpath(QStringLiteral("data/evaluations"));
        Project p;
        p.name = QStringLiteral("round trip");
        p.records = {dir.filePath(QStringLiteral("data/evaluations")), QStringLiteral("/elsewhere/x.jsonl")};
        p.traces = {dir.filePath(QStringLiteral("data/traces"))};
        p.rules = dir.filePath(QStringLiteral("rules.json"));
        p.filter.model = QStringLiteral("gpt");
        p.filter.flag = QStringLiteral("flagged");
        p.filter.search = QStringLiteral("softmax");
        p.figures.preset = QStringLiteral("double-column");
        p.figures.groupBy = QStringLiteral("level");
        p.figures.distribution = QStringLiteral("ecdf");
        p.view = QStringLiteral("coverage");
        const QString path = dir.filePath(QStringLiteral("p.kwbproject.json"));
        QString error;
        QVERIFY2(saveProject(p, path, &error), qPrintable(error));
        const QByteArray text = [&] {
            QFile f(path);
            f.open(QIODevice::ReadOnly);
            return f.readAll();
        }();
        // Paths below the project folder are stored relative; others stay absolute.
        QVERIFY(text.contains("\"data/evaluations\""));
        QVERIFY(text.contains("\"/elsewhere/x.jsonl\""));
        QVERIFY(text.contains("\"rules.json\""));
        Project back;
        QVERIFY2(loadProject(path, &back, &error), qPrintable(error));
        QCOMPARE(back.resolved(back.records), p.records);
        QCOMPARE(back.resolved(back.traces), p.traces);
        QCOMPARE(back.resolvedRules(), p.rules);
        QCOMPARE(back.filter, p.filter);
        QCOMPARE(back.figures, p.figures);
        QCOMPARE(back.view, p.view);
        QCOMPARE(back.name, p.name);
    }

    void projectErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("syntax") << QByteArray("{\n  \"schema\": \"kwb.project/1\",\n  \"files\": [,\n}") << "p.json:3:";
        QTest::addRow("not an object") << QByteArray("[1, 2]") << "a project file is a JSON object";
        QTest::addRow("wrong schema") << QByteArray("{\"schema\": \"kwb.project/9\"}") << "schema is 'kwb.project/9'";
        QTest::addRow("no schema") << QByteArray("{}") << "expected 'kwb.project/1'";
    }

    void projectErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        Project p;
        QString error;
        QVERIFY(!parseProject(text, QStringLiteral("p.json"), &p, &error));
        QVERIFY2(error.startsWith(QStringLiteral("p.json")), qPrintable(error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void missingFoldersAreMessagesNotFailures()
    {
        QTemporaryDir dir;
        Project p;
        p.path = dir.filePath(QStringLiteral("p.kwbproject.json"));
        p.records = {QStringLiteral("evaluations"), testData("records/good.jsonl")};
        p.traces = {QStringLiteral("traces")};
        const ProjectDataPtr data = loadProjectData(p);
        QCOMPARE(data->records->records.size(), std::size_t(3));
        QCOMPARE(data->rows->size(), std::size_t(3));
        QStringList notFound = data->messages.filter(QStringLiteral("not found"));
        QCOMPARE(notFound.size(), 2);
        QVERIFY(notFound[0].contains(dir.filePath(QStringLiteral("evaluations"))));
        QCOMPARE(data->facets.models, (QStringList{QStringLiteral("model-a"), QStringLiteral("model-b")}));
        QCOMPARE(data->facets.flagCodes, QStringList{QStringLiteral("low_coverage")});
    }

    void badRecordFilesNameFileAndReason()
    {
        Project p;
        p.records = {testData("records/bad_lines.jsonl")};
        const ProjectDataPtr data = loadProjectData(p);
        QVERIFY(!data->messages.isEmpty());
        QVERIFY2(data->messages.front().contains(QStringLiteral("bad_lines.jsonl:")), qPrintable(data->messages.front()));
    }

    void classifyInputs()
    {
        QTemporaryDir dir;
        const QDir d(dir.path());
        d.mkpath(QStringLiteral("set/evaluations"));
        d.mkpath(QStringLiteral("set/traces"));
        d.mkpath(QStringLiteral("set/problems"));
        auto write = [&d](const QString& name, const QByteArray& text) {
            QFile f(d.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("a.kwbproject.json"), "{\"schema\":\"kwb.project/1\"}");
        write(QStringLiteral("t.json"), "{\"schemaVersion\":1,\"traceEvents\":[]}");
        write(QStringLiteral("r.jsonl"), "{\"schema\":\"kwb.record/1\"}\n");
        write(QStringLiteral("p.json"), "{\"schema\":\"kwb.problem/1\"}");
        QCOMPARE(classifyInput(d.filePath(QStringLiteral("a.kwbproject.json"))), InputRole::Project);
        QCOMPARE(classifyInput(d.filePath(QStringLiteral("t.json"))), InputRole::Trace);
        QCOMPARE(classifyInput(d.filePath(QStringLiteral("r.jsonl"))), InputRole::Records);
        QCOMPARE(classifyInput(d.filePath(QStringLiteral("p.json"))), InputRole::ProblemSuite);
        QCOMPARE(classifyInput(d.filePath(QStringLiteral("nope"))), InputRole::Missing);
        Project p;
        QStringList messages;
        const QStringList projects = addInputs(p,
            {d.filePath(QStringLiteral("set")), d.filePath(QStringLiteral("a.kwbproject.json")),
                d.filePath(QStringLiteral("t.json")), d.filePath(QStringLiteral("nope"))},
            &messages);
        QCOMPARE(projects.size(), 1);
        QCOMPARE(p.records, QStringList{d.filePath(QStringLiteral("set/evaluations"))});
        QCOMPARE(p.traces, (QStringList{d.filePath(QStringLiteral("set/traces")), d.filePath(QStringLiteral("t.json"))}));
        QCOMPARE(p.problems, QStringList{d.filePath(QStringLiteral("set/problems"))});
        QCOMPARE(messages.size(), 1);
        QVERIFY(messages.front().contains(QStringLiteral("no such file")));
    }

    void decimationKeepsColumnExtremes()
    {
        QList<QPointF> pts;
        for (int i = 0; i < 100000; ++i) pts.append(QPointF(1.0 + i * 1e-4, std::sin(i * 0.01)));
        const int columns = 200;
        const QList<QPointF> out = decimatePerColumn(pts, pts.front().x(), pts.back().x(), columns, true);
        QVERIFY(out.size() <= 4 * columns + 4);
        QVERIFY(out.size() >= columns);
        QCOMPARE(out.front(), pts.front());
        QCOMPARE(out.back(), pts.back());
        double maxY = -2;
        double minY = 2;
        for (const auto& p : out) {
            maxY = std::max(maxY, p.y());
            minY = std::min(minY, p.y());
        }
        QVERIFY(maxY > 0.9999);
        QVERIFY(minY < -0.9999);
        for (qsizetype i = 1; i < out.size(); ++i) QVERIFY(out[i].x() >= out[i - 1].x());
        // Few points: unchanged.
        const QList<QPointF> few{{1, 1}, {2, 2}, {3, 3}};
        QCOMPARE(decimatePerColumn(few, 1, 3, 100, false), few);
    }

    void distributionOfLeaderboard()
    {
        KWB_REQUIRE_LEADERBOARD();
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        QCOMPARE(data->records->records.size(), std::size_t(413));
        const DistributionData d = computeDistribution(*data->records, QStringLiteral("model"));
        QCOMPARE(d.groups.size(), std::size_t(7));
        std::size_t all = 0;
        for (const auto& g : d.groups) {
            all += g.allRecords.size();
            QVERIFY(std::is_sorted(g.speedups.begin(), g.speedups.end()));
            QCOMPARE(g.speedups.size(), g.recordIndex.size());
            if (!g.speedups.empty()) {
                QVERIFY(g.q1 <= g.median && g.median <= g.q3);
                QVERIFY(g.whiskerLow <= g.q1 && g.q3 <= g.whiskerHigh);
            }
        }
        QCOMPARE(all, std::size_t(413));
        const LogHistogram h = computeLogHistogram(d, 30);
        QCOMPARE(h.edges.size(), std::size_t(31));
        std::size_t binned = 0;
        for (const auto& c : h.counts)
            for (int n : c) binned += static_cast<std::size_t>(n);
        QCOMPARE(binned, d.timedRecords);
        // Picking a bin returns exactly the records whose speedup lies in it.
        for (std::size_t g = 0; g < d.groups.size(); ++g) {
            for (std::size_t b = 0; b + 1 < h.edges.size(); ++b) {
                const auto picked = d.recordsInRange(static_cast<int>(g), h.edges[b], h.edges[b + 1]);
                QCOMPARE(static_cast<int>(picked.size()), h.counts[g][b]);
            }
        }
        // Many groups: the largest seven stay, the rest become one "other" group.
        const DistributionData byProblem = computeDistribution(*data->records, QStringLiteral("problem"));
        QCOMPARE(byProblem.groups.size(), std::size_t(kMaxDistributionGroups));
        QVERIFY(byProblem.groups.back().name.startsWith(QStringLiteral("other (")));
        std::size_t total = 0;
        for (const auto& g : byProblem.groups) total += g.allRecords.size();
        QCOMPARE(total, std::size_t(413));
        // fast_p picks agree with the curve.
        const auto& g0 = d.groups.front();
        const double p = 1.0;
        QCOMPARE(static_cast<double>(d.recordsFasterThan(0, p).size()) / static_cast<double>(g0.allRecords.size()),
            g0.fastP.evaluate(p));
    }

    void heatmapData()
    {
        kwb::CoverageGrid grid;
        grid.rows = 2;
        grid.cols = 2;
        grid.writtenFraction = {0.012f, 0.f, 0.5f, 1.f};
        kwb::Coverage cov;
        cov.totalElements = 1000;
        const HeatmapData h = makeHeatmap(grid, cov, QStringLiteral("t"));
        QVERIFY(!h.isNull());
        QCOMPARE(h.image.format(), QImage::Format_Indexed8);
        QCOMPARE(h.image.colorCount(), 256);
        QCOMPARE(h.image.pixelIndex(0, 0), heatmapIndex(0.012f));
        QCOMPARE(h.image.pixelIndex(1, 0), 0);
        QCOMPARE(h.image.pixelIndex(0, 1), 128);
        QCOMPARE(h.image.pixelIndex(1, 1), 255);
        QCOMPARE(h.tileElements(), qint64(250));
        const auto t = tileInfo(h, 1, 0);
        QVERIFY(t);
        QCOMPARE(t->firstElement, qint64(500));
        QCOMPARE(t->endElement, qint64(750));
        QCOMPARE(describeTile(*t), QStringLiteral("tile (row 1, col 0), elements [500, 750), written 50.00%"));
        QVERIFY(!tileInfo(h, 2, 0));
        // Large grids are one image; beyond the limit they are refused.
        kwb::CoverageGrid big;
        big.rows = kMaxHeatmapSide;
        big.cols = kMaxHeatmapSide;
        big.writtenFraction.assign(static_cast<std::size_t>(big.rows) * static_cast<std::size_t>(big.cols), 1.f);
        QVERIFY(!makeHeatmap(big, std::nullopt, {}).isNull());
        big.rows += 1;
        QVERIFY(makeHeatmap(big, std::nullopt, {}).isNull());
        // A grid shorter than rows*cols is malformed.
        grid.writtenFraction.pop_back();
        QVERIFY(makeHeatmap(grid, cov, {}).isNull());
    }

    // Issue 14: a problem x model pivot with best and median speedup and correctness per cell.
    void pivotUnderTester()
    {
        KWB_REQUIRE_LEADERBOARD();
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        PivotModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPivot(computePivot(*data, nullptr, false));
        const PivotData& p = model.pivot();
        QCOMPARE(p.records, data->rows->size());
        QCOMPARE(model.columnCount(), int(data->facets.models.size()));
        std::size_t inCells = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            for (int c = 0; c < model.columnCount(); ++c) {
                const PivotCell& cell = *p.cell(r, c);
                inCells += cell.records.size();
                // Every record of a cell has the cell's problem and model, as the Records table names them.
                std::vector<double> speedups;
                for (int rec : cell.records) {
                    const RecordRow& row = (*data->rows)[static_cast<std::size_t>(rec)];
                    QCOMPARE(row.problem, p.problems[r]);
                    QCOMPARE(row.model, p.models[c]);
                    const auto& er = data->records->records[static_cast<std::size_t>(rec)];
                    if (er.isCorrect() && !kwb::hasErrorFlag(er))
                        if (auto sp = kwb::effectiveSpeedup(er)) speedups.push_back(*sp);
                }
                QCOMPARE(cell.timed, speedups.size());
                if (speedups.empty()) {
                    QVERIFY(!cell.best);
                    continue;
                }
                QCOMPARE(*cell.best, *std::max_element(speedups.begin(), speedups.end()));
                QCOMPARE(*cell.median, *kwb::median(speedups));
                const QModelIndex i = model.index(r, c);
                QCOMPARE(i.data(PivotModel::RawValueRole).toDouble(), *cell.best);
                QVERIFY(i.data().toString().contains(QStringLiteral("%1/%2").arg(cell.correct).arg(cell.records.size())));
            }
        QCOMPARE(inCells, data->rows->size());
        // Problems in suite order: L1/2 before L1/10.
        QVERIFY(naturalLess(QStringLiteral("L1/2_Standard"), QStringLiteral("L1/10_3D")));
        QVERIFY(!naturalLess(QStringLiteral("L1/10_3D"), QStringLiteral("L1/2_Standard")));
        QVERIFY(naturalLess(QStringLiteral("L1/1_Square"), QStringLiteral("L1/1_square_b")));
        QVERIFY(std::is_sorted(p.problems.begin(), p.problems.end(), naturalLess));
        // A subset (the Records filters) tabulates only its records.
        std::vector<int> firstTen{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        const PivotData sub = computePivot(*data, &firstTen, false);
        QCOMPARE(sub.records, std::size_t(10));
        QVERIFY(sub.problems.size() <= 10);
        // The raw leaderboard: nothing re-run. Its re-verified copy: every record.
        QCOMPARE(p.reVerified, std::size_t(0));
        const ProjectDataPtr verified = kwbuitest::loadRecords({QStringLiteral(KWB_SOURCE_DATASETS "/evaluations/leaderboard_h200.jsonl.gz")});
        QCOMPARE(computePivot(*verified, nullptr, false).reVerified, std::size_t(413));
    }

    // Issue 14: confidence intervals and pass@k in the GUI are core's, the same as kwb summary's.
    void groupStatsAreCoresSummary()
    {
        const ProjectDataPtr data = goodData();
        DistributionData d = computeDistribution(*data->records, QStringLiteral("model"), nullptr,
            kMaxDistributionGroups, true);
        const auto stats = computeGroupStats(*data->records, d, true);
        QCOMPARE(stats.size(), d.groups.size());
        for (std::size_t g = 0; g < stats.size(); ++g) d.groups[g].stats = stats[g];
        kwb::CancelFlag cancelled;
        cancelled.cancel();
        kwb::TaskContext ctx;
        ctx.cancel = &cancelled;
        QVERIFY(computeGroupStats(*data->records, d, true, ctx).empty());
        kwb::SummaryOptions options;
        options.groupBy = {"model"};
        const auto cli = kwb::summarize(data->records->records, options);
        QCOMPARE(d.groups.size(), cli.size());
        for (std::size_t g = 0; g < cli.size(); ++g) {
            QCOMPARE(d.groups[g].name.toStdString(), cli[g].key.front().second);
            QCOMPARE(d.groups[g].stats.records, cli[g].records);
            QCOMPARE(d.groups[g].stats.correct, cli[g].correct);
            QCOMPARE(d.groups[g].stats.medianSpeedup.has_value(), cli[g].medianSpeedup.has_value());
            QCOMPARE(d.groups[g].stats.medianCi.has_value(), cli[g].medianCi.has_value());
            if (cli[g].medianCi) {
                QCOMPARE(d.groups[g].stats.medianCi->low, cli[g].medianCi->low);
                QCOMPARE(d.groups[g].stats.medianCi->high, cli[g].medianCi->high);
            }
            QCOMPARE(d.groups[g].stats.passAtK, cli[g].passAtK);
        }
        GroupStatsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDistribution(d);
        QCOMPARE(model.rowCount(), int(d.groups.size()));
        QVERIFY(model.headerData(GroupStatsModel::MedianCi, Qt::Horizontal).toString().contains(QStringLiteral("95%")));
        QVERIFY(model.headerData(GroupStatsModel::PassK, Qt::Horizontal).toString().contains(QStringLiteral("pass@k")));
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto& st = d.groups[static_cast<std::size_t>(r)].stats;
            QCOMPARE(model.index(r, GroupStatsModel::MedianCi).data().toString(),
                GroupStatsModel::intervalText(st.medianCi, false));
            if (!st.passAtK.empty())
                QVERIFY(model.index(r, GroupStatsModel::PassK).data().toString().startsWith(QStringLiteral("pass@1 ")));
        }
    }

    // Issue 14: histograms are shares of each group (small groups visible), not overlaid counts.
    void histogramSharesPerGroup()
    {
        KWB_REQUIRE_LEADERBOARD();
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        const DistributionData d = computeDistribution(*data->records, QStringLiteral("model"));
        const LogHistogram h = computeLogHistogram(d, 30);
        double maxShare = 0;
        for (std::size_t g = 0; g < d.groups.size(); ++g) {
            if (d.groups[g].speedups.empty()) continue;
            double sum = 0;
            for (std::size_t b = 0; b + 1 < h.edges.size(); ++b) {
                sum += h.share(d, g, b);
                maxShare = std::max(maxShare, h.share(d, g, b));
            }
            QVERIFY2(std::abs(sum - 1.0) < 1e-9, qPrintable(d.groups[g].name));
        }
        QCOMPARE(h.maxShare, maxShare);
    }

    // Issue 14: the Records filters give the views that follow them exactly the records they pass.
    void filteredSubsetIsWhatTheFilterPasses()
    {
        KWB_REQUIRE_LEADERBOARD();
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        RecordTableModel model;
        model.setData(data);
        RecordFilterProxy proxy;
        proxy.setSourceModel(&model);
        QVERIFY(proxy.filteredSubset().all());
        RecordFilter f;
        f.model = data->facets.models.front();
        f.level = QStringLiteral("1");
        proxy.setFilter(f);
        proxy.setPickedRecords({0}); // a chart pick is not part of what the charts follow
        const RecordSubset s = proxy.filteredSubset();
        QVERIFY(!s.all());
        QVERIFY(s.description.contains(QStringLiteral("model = ") + f.model));
        QVERIFY(s.description.contains(QStringLiteral("level = 1")));
        std::vector<int> expected;
        for (std::size_t i = 0; i < data->rows->size(); ++i) {
            const RecordRow& r = (*data->rows)[i];
            if (r.model == f.model && r.level == 1) expected.push_back(static_cast<int>(i));
        }
        QVERIFY(!expected.empty());
        QCOMPARE(*s.records, expected);
        const DistributionData d = computeDistribution(*data->records, QString(), s.records.get());
        QCOMPARE(d.groups.front().allRecords.size(), expected.size());
    }

    // Issue 14: KernelBench's metadata of incorrect samples reaches the record (trials, differences, errors).
    void kernelBenchMetadataOfIncorrectSamples()
    {
        const ProjectDataPtr data =
            kwbuitest::loadRecords({testData("kernelbench/runs/level1_metadata_run/eval_results.json")});
        QCOMPARE(data->records->records.size(), std::size_t(3));
        const auto& recs = data->records->records;
        const auto wrong = kwb::kernelBenchMetadata(recs[0]);
        QVERIFY(wrong);
        QCOMPARE(wrong->trialsPassed, std::optional<std::int64_t>(2));
        QCOMPARE(wrong->trialsTotal, std::optional<std::int64_t>(5));
        QCOMPARE(wrong->maxDifference, (std::vector<double>{0.503906, 0.511719, 0.498047}));
        QCOMPARE(wrong->avgDifference.size(), std::size_t(3));
        QCOMPARE(wrong->correctnessIssue, std::string("Output mismatch"));
        QCOMPARE(wrong->hardware, std::string("NVIDIA H100 80GB HBM3"));
        const auto broken = kwb::kernelBenchMetadata(recs[1]);
        QVERIFY(broken);
        QVERIFY(broken->compilationError.find("identifier \"blockSize\" is undefined") != std::string::npos);
        QVERIFY(!kwb::kernelBenchMetadata(kwb::EvalRecord{}));
    }

    // Issue 14: a lone baseline timing file: core's hint names it and says how to pass both.
    void recordLoadHintsForALoneBaseline()
    {
        const std::string baseline = KWB_SHARED_DATA_DIR "/kernelbench/timing/H100_Modal/baseline_time_torch.json";
        if (!QFileInfo::exists(QString::fromStdString(baseline))) QSKIP("../shared/data has no baseline timing file");
        const auto alone = kwb::recordLoadHints(kwb::loadRecordFiles({baseline}));
        QCOMPARE(alone.size(), std::size_t(1));
        QVERIFY(alone.front().starts_with(baseline + ": KernelBench baseline timings"));
        QVERIFY(alone.front().find("--baseline " + baseline) != std::string::npos);
        const std::string eval = testData("kernelbench/runs/level1_v0_run/eval_results.json").toStdString();
        QVERIFY(kwb::recordLoadHints(kwb::loadRecordFiles({baseline, eval})).empty());
    }

    void lineDiffOfTwoSources()
    {
        const QStringList a{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")};
        const QStringList b{QStringLiteral("a"), QStringLiteral("x"), QStringLiteral("c"), QStringLiteral("d"), QStringLiteral("e")};
        const auto d = lineDiff(a, b);
        QStringList out;
        for (const auto& l : d)
            out << (l.op == DiffOp::Same ? QStringLiteral(" ") : l.op == DiffOp::Added ? QStringLiteral("+") : QStringLiteral("-")) + l.text;
        QCOMPARE(out, (QStringList{QStringLiteral(" a"), QStringLiteral("-b"), QStringLiteral("+x"), QStringLiteral(" c"),
                          QStringLiteral(" d"), QStringLiteral("+e")}));
        bool tooLarge = false;
        QStringList big;
        for (int i = 0; i <= kMaxDiffLines; ++i) big << QString::number(i);
        QVERIFY(lineDiff(big, a, &tooLarge).empty());
        QVERIFY(tooLarge);
    }
};

QTEST_MAIN(TstUiModels)
#include "tst_ui_models.moc"
