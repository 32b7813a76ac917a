// Views rendered offscreen and checked for content; every export format;
// the main window's load, pick and save paths.
#include <QBarCategoryAxis>
#include <QChart>
#include <QScatterSeries>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QChartView>
#include <QMimeData>
#include <QPainter>
#include <QSettings>
#include <QSignalSpy>
#include <QUrl>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "charts/figure_style.h"
#include "charts/heatmap_renderer.h"
#include "charts/workload_charts.h"
#include "export/figure_exporter.h"
#include "export/figure_set.h"
#include "main_window.h"
#include "models/record_filter_proxy.h"
#include "models/record_table_model.h"
#include "models/suspicious_model.h"
#include "models/top_kernels_model.h"
#include "project/project_loader.h"
#include "ui_test_util.h"
#include "views/coverage_view.h"
#include "models/group_stats_model.h"
#include "models/pivot_model.h"
#include "views/distributions_view.h"
#include "views/pivot_view.h"
#include "views/records_view.h"
#include "views/rerun_panel.h"
#include "views/suspicious_view.h"
#include "views/workloads_view.h"

using namespace kwb::ui;
using kwbuitest::countColor;
using kwbuitest::inkPixels;
using kwbuitest::testData;

namespace {

QImage renderFigure(const FigureSource& source, const FigurePreset& preset)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("f.png"));
    QString error;
    if (!exportFigure(source, preset, FigureFormat::Png, path, &error)) return {};
    return QImage(path);
}

FigurePreset preset(const char* name = "single-column")
{
    return *findFigurePreset(QLatin1String(name));
}

ProjectDataPtr tracesData()
{
    Project p;
    p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations")};
    p.traces = {QStringLiteral(KWB_SOURCE_DATASETS "/traces")};
    return loadProjectData(p);
}

// The text of an SVG export (Qt writes each run of text as a <text> element).
QString exportSvg(const FigureSource& source, const char* presetName = "double-column")
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("f.svg"));
    QString error;
    if (!exportFigure(source, *findFigurePreset(QLatin1String(presetName)), FigureFormat::Svg, path, &error)) return {};
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    // Word-wrap break points (zero-width spaces) are not part of the words.
    return QString::fromUtf8(f.readAll()).remove(QChar(0x200B));
}

bool waitIdle(FigureView& v)
{
    QDeadlineTimer deadline(30000);
    while (v.isBusy() && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QCoreApplication::processEvents();
    return !v.isBusy();
}

} // namespace

class TstUiViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        const QString config = kwbuitest::isolateSettings("tst_ui_views");
        QVERIFY2(QSettings().fileName().startsWith(config), qPrintable(QSettings().fileName()));
    }

    // Issue 14: File → Open adds an input without re-reading the traces or
    // dropping what the user set up (search, chart, grouping, workload, sort).
    void openKeepsTheUsersStateAndTheTraces()
    {
        if (!buildHasTraces()) QSKIP("this build does not read traces");
        MainWindow window;
        window.resize(1200, 800);
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        Project p;
        p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations")};
        p.traces = {QStringLiteral(KWB_SOURCE_DATASETS "/traces")};
        window.loadProject(p);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(window.waitUntilIdle(30000));
        const ProjectDataPtr before = window.projectData();
        QVERIFY(before->workloads.size() >= 2);
        QVERIFY(!before->knownTraces.empty());

        RecordFilter f;
        f.search = QStringLiteral("relu");
        window.recordsView()->setFilter(f);
        window.recordsView()->table()->sortByColumn(RecordTableModel::Speedup, Qt::DescendingOrder);
        window.distributionsView()->setKind(DistributionKind::Box);
        window.distributionsView()->setGroupBy(QStringLiteral("problem"));
        window.workloadsView()->selectWorkload(1);
        const QString workload = window.workloadsView()->currentWorkloadName();
        QVERIFY(window.waitUntilIdle(30000));

        window.openPaths({testData("records/good.jsonl")});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        QVERIFY(window.waitUntilIdle(30000));
        const ProjectDataPtr after = window.projectData();
        QCOMPARE(after->records->records.size(), before->records->records.size() + 3);
        QCOMPARE(window.recordsView()->filter().search, QStringLiteral("relu"));
        QCOMPARE(window.distributionsView()->kind(), DistributionKind::Box);
        QCOMPARE(window.distributionsView()->groupBy(), QStringLiteral("problem"));
        QCOMPARE(window.workloadsView()->currentWorkloadName(), workload);
        // The traces were not read again: the same breakdowns, with projections over the new records.
        QCOMPARE(after->knownTraces.size(), before->knownTraces.size());
        for (std::size_t i = 0; i < after->knownTraces.size(); ++i)
            QCOMPARE(after->knownTraces[i].breakdown.get(), before->knownTraces[i].breakdown.get());
        QVERIFY(after->workloads.front().projection.available);
        // The sort arrow and the rows agree: descending speedups.
        auto* proxy = window.recordsView()->proxy();
        QCOMPARE(window.recordsView()->table()->horizontalHeader()->sortIndicatorSection(), int(RecordTableModel::Speedup));
        QVERIFY(proxy->rowCount() >= 2);
        double last = std::numeric_limits<double>::infinity();
        for (int r = 0; r < proxy->rowCount(); ++r) {
            const double v = proxy->index(r, RecordTableModel::Speedup).data(RecordTableModel::RawValueRole).toDouble();
            if (std::isnan(v)) continue;
            QVERIFY2(v <= last, qPrintable(QStringLiteral("row %1: %2 after %3").arg(r).arg(v).arg(last)));
            last = v;
        }
        // Removing the input again re-reads nothing either.
        window.removeInput(QFileInfo(testData("records/good.jsonl")).absoluteFilePath());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 3, 60000);
        QCOMPARE(window.projectData()->records->records.size(), before->records->records.size());
        QCOMPARE(window.projectData()->knownTraces.front().breakdown.get(), before->knownTraces.front().breakdown.get());
    }

    // Issue 14: a cancelled load leaves the project as it was, so Save does not write the cancelled file.
    void cancelledInputsStayOutOfTheProject()
    {
        KWB_REQUIRE_LEADERBOARD();
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openPaths({testData("records/good.jsonl")});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        window.openPaths({kwbuitest::leaderboardPath()});
        window.cancelLoad();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 30000);
        if (window.projectData()->records->records.size() != 3) QSKIP("the load finished before the cancel reached it");
        QCOMPARE(window.currentProject().records, QStringList{testData("records/good.jsonl")});
    }

    // Issue 14: a missing path given on the command line is said after the load, not cleared by it.
    void missingPathMessageSurvivesTheLoad()
    {
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        const QString nope = testData("records/does_not_exist.jsonl");
        window.openPaths({nope, testData("records/good.jsonl")});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY2(!window.messages().filter(QStringLiteral("does_not_exist.jsonl: no such file")).isEmpty(),
            qPrintable(window.messages().join(QLatin1Char('\n'))));
        auto* log = window.findChild<QPlainTextEdit*>(QStringLiteral("messagesLog"));
        QVERIFY(log);
        QVERIFY(log->toPlainText().contains(QStringLiteral("does_not_exist.jsonl")));
    }

    // Issue 14: Save never overwrites the shipped default project; the title marks
    // unsaved changes; closing with them asks.
    void shippedProjectModifiedMarkerAndQuit()
    {
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        Project def;
        QString error;
        QVERIFY2(MainWindow::defaultProject(&def, &error), qPrintable(error));
        QVERIFY(MainWindow::isShippedProject(def.path));
        QFile shipped(def.path);
        QVERIFY(shipped.open(QIODevice::ReadOnly));
        const QByteArray original = shipped.readAll();
        shipped.close();
        window.loadProject(def);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(window.waitUntilIdle(30000));
        QVERIFY2(!window.isModified(), qPrintable(QString::fromUtf8(projectToJson(window.currentProject(), def.path))));
        QVERIFY(window.windowTitle().contains(QStringLiteral("[*]")));
        QVERIFY(!window.isWindowModified());

        window.openPaths({testData("records/good.jsonl")});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        QVERIFY(window.isModified());
        QVERIFY(window.isWindowModified());

        // Ctrl+Q with unsaved inputs asks; Cancel keeps the window open.
        int asked = 0;
        window.setUnsavedChangesPrompt([&asked](MainWindow*) {
            ++asked;
            return QMessageBox::Cancel;
        });
        window.show();
        QVERIFY(!window.close());
        QCOMPARE(asked, 1);
        QVERIFY(window.isVisible());

        // Save writes elsewhere (here: the path the dialog would return) and never the shipped file.
        QTemporaryDir dir;
        const QString mine = dir.filePath(QStringLiteral("mine.kwbproject.json"));
        QVERIFY(window.save(mine));
        QVERIFY(QFileInfo::exists(mine));
        QVERIFY(shipped.open(QIODevice::ReadOnly));
        QCOMPARE(shipped.readAll(), original);
        QVERIFY(!window.isModified());
        QVERIFY(window.close());
        QCOMPARE(asked, 1);
    }

    // Issue 14: tab shortcuts, Ctrl+F, Help/About and the window layout kept between sessions.
    void shortcutsHelpAndSavedLayout()
    {
        {
            MainWindow window;
            window.show();
            QAction* second = nullptr;
            QAction* find = nullptr;
            bool about = false;
            for (QAction* a : window.findChildren<QAction*>()) {
                if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+2"))) second = a;
                if (a->shortcut() == QKeySequence(QKeySequence::Find)) find = a;
                about = about || a->text().contains(QStringLiteral("About Kernel Workbench"));
            }
            QVERIFY(second && find && about);
            second->trigger();
            QCOMPARE(window.currentView()->viewName(), QStringLiteral("distributions"));
            find->trigger();
            QCOMPARE(window.currentView()->viewName(), QStringLiteral("records"));
            window.resize(1111, 777);
            auto* split = window.findChild<QSplitter*>(QStringLiteral("recordsSplit"));
            QVERIFY(split);
            split->setSizes({100, 500});
            QVERIFY(window.close());
        }
        MainWindow again;
        QCOMPARE(again.size(), QSize(1111, 777));
        QVERIFY(!QSettings().value(QStringLiteral("splitters/recordsSplit")).toByteArray().isEmpty());
        QSettings().remove(QStringLiteral("window"));
        QSettings().remove(QStringLiteral("splitters"));
    }

    // Issue 14: error-flagged "correct" records (the 220x side-stream kernel) are no speedups in the
    // distributions unless asked for, and the view says over which records it counts.
    void distributionsLeaveErrorFlaggedOut()
    {
        DistributionsView view;
        Project p;
        p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations")};
        view.setProjectData(loadProjectData(p));
        view.setGroupBy(QString());
        QVERIFY(waitIdle(view));
        const double maxWithout = view.distribution().maxSpeedup;
        const std::size_t without = view.distribution().timedRecords;
        QVERIFY(view.distribution().errorFlaggedLeftOut >= 1);
        QVERIFY2(view.summaryText().contains(QStringLiteral("error-flagged")), qPrintable(view.summaryText()));
        QVERIFY(view.summaryText().contains(QStringLiteral("groups of all")));
        QVERIFY(maxWithout < 200);
        view.setCountErrorFlagged(true);
        QVERIFY(waitIdle(view));
        QCOMPARE(view.distribution().errorFlaggedLeftOut, std::size_t(0));
        QVERIFY(view.distribution().timedRecords > without);
        QVERIFY(view.distribution().maxSpeedup > 200);
    }

    // Issue 14: copy selected rows as TSV or Markdown, export the filtered table as CSV.
    void copyRowsAndExportCsv()
    {
        RecordsView view;
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        view.table()->selectRow(0);
        const QString tsv = view.selectedRowsText(false);
        QStringList lines = tsv.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QStringLiteral("Record\tModel")));
        QVERIFY(lines[1].startsWith(view.proxy()->index(0, 0).data().toString() + QLatin1Char('\t')));
        const QString md = view.selectedRowsText(true);
        QVERIFY(md.startsWith(QStringLiteral("| Record | Model")));
        QVERIFY(md.contains(QStringLiteral("| --- |")));
        RecordFilter f;
        f.search = view.proxy()->index(0, 0).data().toString();
        view.setFilter(f);
        QTRY_COMPARE(view.proxy()->rowCount(), 1);
        QTemporaryDir dir;
        QString error;
        const QString csv = dir.filePath(QStringLiteral("t.csv"));
        QVERIFY2(view.exportCsv(csv, &error), qPrintable(error));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().count("\r\n"), 2); // the header and the one filtered row
        QVERIFY(!view.exportCsv(dir.filePath(QStringLiteral("no/such/dir/t.csv")), &error));
        QVERIFY(error.contains(QStringLiteral("t.csv")));
    }

    // Issue 14: box whiskers on log speedups, outliers drawn, n per box; a serif figure font.
    void boxPlotOutliersAndSerifFont()
    {
        DistributionsView view;
        view.resize(900, 600);
        Project p;
        p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations")};
        view.setProjectData(loadProjectData(p));
        view.setCountErrorFlagged(true);
        view.setGroupBy(QString());
        view.setKind(DistributionKind::Box);
        QVERIFY(waitIdle(view));
        const auto& g = view.distribution().groups.front();
        QVERIFY(!g.outliers.empty());
        QVERIFY(g.outliers.back() > 200); // the side-stream and cached-output claims
        QScatterSeries* points = nullptr;
        for (auto* s : view.chartView()->chart()->series())
            if (auto* sc = qobject_cast<QScatterSeries*>(s)) points = sc;
        QVERIFY(points);
        QCOMPARE(points->count(), static_cast<int>(g.outliers.size()));
        auto* axis = qobject_cast<QBarCategoryAxis*>(view.chartView()->chart()->axes(Qt::Horizontal).front());
        QVERIFY(axis);
        QVERIFY2(axis->categories().front().contains(QStringLiteral("(n=%1)").arg(g.speedups.size())),
            qPrintable(axis->categories().front()));

        QVERIFY(!FigureStyle::serif());
        FigureStyle::setSerif(true);
        QCOMPARE(FigureStyle::fromPoints(9, 10, 1).font.family(), QStringLiteral("DejaVu Serif"));
        FigureStyle::setSerif(false);
        QCOMPARE(FigureStyle::fromPoints(9, 10, 1).font.family(), QStringLiteral("DejaVu Sans"));
    }

    // Issue 14: a field typed into the editable "Group by" box is applied.
    void groupByTakesTypedText()
    {
        DistributionsView view;
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        auto* box = view.findChildren<QComboBox*>().at(1);
        QVERIFY(box->isEditable());
        box->lineEdit()->selectAll();
        QTest::keyClicks(box->lineEdit(), QStringLiteral("sample")); // a field not in the list
        QTest::keyClick(box->lineEdit(), Qt::Key_Return);
        QCOMPARE(view.groupBy(), QStringLiteral("sample"));
        QVERIFY(waitIdle(view));
        QVERIFY(view.distribution().groups.size() >= 1);
    }

    // Issue 14: selecting a record that a search then hides clears its details.
    void detailsFollowTheFilter()
    {
        RecordsView view;
        view.resize(1000, 700);
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        view.selectRecord(0);
        const QString id = (*view.model()->projectData()->rows)[0].id;
        QVERIFY(view.detailHtml().contains(id));
        RecordFilter f;
        f.search = QStringLiteral("no-record-matches-this");
        view.setFilter(f);
        QTRY_COMPARE(view.proxy()->rowCount(), 0);
        QTRY_VERIFY(!view.detailHtml().contains(id));
        QCOMPARE(view.shownRecord(), -1);
    }

    void recordsViewShowsDetailAndSource()
    {
        RecordsView view;
        view.resize(1000, 700);
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        QCOMPARE(view.proxy()->rowCount(), 3);
        view.selectRecord(0);
        QCOMPARE(view.currentRecord(), 0);
        const QString html = view.detailHtml();
        QVERIFY(html.contains(QStringLiteral("low_coverage")));
        QVERIFY(html.contains(QStringLiteral("kernel wrote 0.30% of its output")));
        QVERIFY(html.contains(QStringLiteral("NVIDIA H200")));
        QVERIFY(html.contains(QStringLiteral("0.30% written")));
        RecordFilter f;
        f.status = QStringLiteral("incorrect");
        view.setFilter(f);
        QCOMPARE(view.proxy()->rowCount(), 1);
        QCOMPARE(view.filter().status, QStringLiteral("incorrect"));
        view.showPicked({0, 1}, QStringLiteral("a test"));
        QCOMPARE(view.proxy()->rowCount(), 1); // picked and incorrect
        view.clearPicked();
        view.setFilter({});
        QCOMPARE(view.proxy()->rowCount(), 3);
        view.show();
        const QImage shot = view.grab().toImage();
        QVERIFY(inkPixels(shot) > 5000);
    }

    void distributionsRenderEveryKind_data()
    {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"histogram", "ecdf", "fastp", "box"}) QTest::addRow("%s", k) << QString::fromLatin1(k);
    }

    void distributionsRenderEveryKind()
    {
        KWB_REQUIRE_LEADERBOARD();
        QFETCH(QString, kind);
        DistributionsView view;
        view.resize(900, 600);
        view.setProjectData(kwbuitest::loadRecords({kwbuitest::leaderboardPath()}));
        QVERIFY(waitIdle(view));
        DistributionKind k;
        QVERIFY(distributionKindFromName(kind, &k));
        view.setKind(k);
        QCOMPARE(view.distribution().groups.size(), std::size_t(7));
        QChart* chart = view.chartView()->chart();
        QVERIFY(chart);
        QVERIFY(!chart->series().isEmpty());
        const QImage img = renderFigure(view, preset());
        QVERIFY(!img.isNull());
        // The first two groups' palette colours are on the figure.
        QVERIFY2(countColor(img, okabeItoPalette()[0], 40) > 50, "blue series missing");
        QVERIFY2(countColor(img, okabeItoPalette()[1], 40) > 50, "orange series missing");
        QVERIFY(inkPixels(img) > 10000);
    }

    void distributionHoverAndPick()
    {
        KWB_REQUIRE_LEADERBOARD();
        DistributionsView view;
        const ProjectDataPtr data = kwbuitest::loadRecords({kwbuitest::leaderboardPath()});
        view.setProjectData(data);
        QVERIFY(waitIdle(view));
        view.setKind(DistributionKind::Histogram);
        const auto& g = view.distribution().groups.front();
        QVERIFY(!g.speedups.empty());
        const double x = g.median;
        QString what;
        const QSet<int> picked = view.pickAt(0, QPointF(x, 1), &what);
        QVERIFY(!picked.isEmpty());
        QVERIFY(what.contains(g.name));
        // Every picked record is in the group and in the clicked bar.
        for (int rec : picked) {
            const kwb::EvalRecord& r = data->records->records[static_cast<std::size_t>(rec)];
            QCOMPARE(QString::fromStdString(r.model), g.name);
            const double s = *kwb::effectiveSpeedup(r);
            QVERIFY(std::abs(std::log10(s) - std::log10(x)) < 0.5);
        }
        QVERIFY(view.describeAt(0, QPointF(x, 1)).contains(QStringLiteral("records")));
        view.setKind(DistributionKind::FastP);
        QVERIFY(view.describeAt(0, QPointF(1.0, 0)).contains(QStringLiteral("fast_1")));
        view.setGroupBy(QStringLiteral("level"));
        QVERIFY(waitIdle(view));
        QCOMPARE(view.distribution().groups.size(), std::size_t(3));
    }

    void coverageHeatmapPixelsAndReadout()
    {
        CoverageView view;
        view.resize(900, 600);
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        QCOMPARE(view.listedRecords(), 1);
        const HeatmapData& h = view.heatmap()->heatmap();
        QCOMPARE(h.rows, 2);
        QCOMPARE(h.cols, 2);
        // Figure: paint and look at the middle of each tile.
        QImage img(600, 400, QImage::Format_RGB32);
        img.fill(Qt::white);
        QRectF plot;
        {
            QPainter p(&img);
            plot = paintHeatmap(p, QRectF(0, 0, 600, 400), h, {}, FigureStyle::fromPoints(8, 9, 1));
        }
        QVERIFY(plot.width() > 100);
        auto at = [&](double fx, double fy) {
            return QColor(img.pixel(QPointF(plot.left() + fx * plot.width(), plot.top() + fy * plot.height()).toPoint()));
        };
        const QColor unwritten(viridisTable()[0]);
        const QColor written(viridisTable()[heatmapIndex(0.012f)]);
        QCOMPARE(at(0.75, 0.25), unwritten);
        QCOMPARE(at(0.25, 0.75), unwritten);
        QCOMPARE(at(0.25, 0.25), written);
        // The legend's top is viridis yellow.
        QVERIFY(countColor(img, QColor(viridisTable()[250]), 10) > 10);
        // Hover read-out over the interactive widget.
        view.show();
        QCoreApplication::processEvents();
        view.heatmap()->repaint();
        const QRectF cells = view.heatmap()->plotRect();
        QVERIFY(!cells.isEmpty());
        const auto tile = view.heatmap()->tileAt(cells.topLeft() + QPointF(cells.width() * 0.25, cells.height() * 0.25));
        QVERIFY(tile);
        QCOMPARE(tile->row, 0);
        QCOMPARE(tile->col, 0);
        QCOMPARE(describeTile(*tile), QStringLiteral("tile (row 0, col 0), elements [0, 250), written 1.20%"));
        // Zoom halves the visible cells about the anchor; reset restores.
        view.heatmap()->zoomBy(2.0, QPointF(1, 1));
        QCOMPARE(view.heatmap()->visibleCells(), QRectF(0.5, 0.5, 1, 1));
        view.heatmap()->resetZoom();
        QCOMPARE(view.heatmap()->visibleCells(), QRectF(0, 0, 2, 2));
        // A live result is listed first and shown.
        kwb::Coverage live;
        live.grid.rows = 1;
        live.grid.cols = 4;
        live.grid.writtenFraction = {1, 1, 0, 1};
        view.showLive(live, QStringLiteral("live one"));
        QCOMPARE(view.heatmap()->heatmap().cols, 4);
        QCOMPARE(view.heatmap()->heatmap().title, QStringLiteral("live one"));
    }

    void workloadsPiesAndProjection()
    {
        if (!buildHasTraces()) QSKIP("this build does not read traces");
        const ProjectDataPtr data = tracesData();
        if (data->workloads.empty()) QSKIP("no traces in datasets/traces");
        WorkloadsView view;
        view.resize(1000, 700);
        view.setProjectData(data);
        QCOMPARE(view.workloadCount(), static_cast<int>(data->workloads.size()));
        QVERIFY(view.topKernels()->rowCount() > 0);
        QVERIFY(view.projectionText().contains(QStringLiteral("addressable fraction")));
        for (const auto& w : data->workloads) {
            QVERIFY(w.addressableFraction >= 0 && w.addressableFraction <= 1);
            double sum = 0;
            for (const auto& c : w.categories) sum += c.share;
            QVERIFY2(std::abs(sum - 1.0) < 1e-6, qPrintable(w.name));
        }
        const QImage img = renderFigure(view, preset("double-column"));
        QVERIFY(!img.isNull());
        // Addressable (warm) and library (cool) slices are both drawn.
        const auto colors = categoryColors(data->workloads);
        int warm = 0;
        int cool = 0;
        for (const auto& w : data->workloads)
            for (const auto& c : w.categories) {
                if (c.share < 0.05) continue;
                (c.addressable ? warm : cool) += countColor(img, colors.value(c.category), 6) > 0 ? 1 : 0;
            }
        QVERIFY(warm > 0);
        QVERIFY(cool > 0);
        // The projection (kwb project's) comes with records: inputs shown, formula honoured.
        for (const auto& w : data->workloads) {
            const ProjectionSummary& pr = w.projection;
            QVERIFY2(pr.available, qPrintable(w.name));
            QVERIFY(pr.correctTimed > 0);
            QCOMPARE(pr.f, w.addressableFraction);
            QVERIFY(std::abs(pr.expectedSaving - pr.f * pr.w * (1.0 - 1.0 / pr.s)) < 1e-9);
        }
        QVERIFY(view.projectionText().contains(QStringLiteral("win rate")));
    }

    void suspiciousAndRerunPanel()
    {
        RerunService service;
        SuspiciousView view(&service);
        view.resize(1000, 700);
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        QCOMPARE(view.model()->rowCount(), 1);
        // Whatever this machine offers, the panel states whether it can re-run and why not.
        QSignalSpy spy(&service, &RerunService::availabilityChanged);
        service.probe();
        QTRY_VERIFY_WITH_TIMEOUT(spy.count() == 1, 30000);
        if (!service.isAvailable()) {
            QVERIFY(!view.rerunPanel()->rerunEnabled());
            QVERIFY(view.rerunPanel()->stateText().startsWith(QStringLiteral("Live re-run unavailable: ")));
            QVERIFY(view.rerunPanel()->stateText().size() > 30);
        }
        view.show();
        QVERIFY(inkPixels(view.grab().toImage()) > 5000);
    }

    // KernelBench samples (ModelNew modules, e.g. leaderboard records) re-run through the
    // PyTorch bridge; where Python has no torch the panel says exactly that for them.
    void kernelBenchSampleNeedsPyTorch()
    {
        if (!RerunService::buildHasRerun()) QSKIP("this build has no re-run client");
        if (QProcess::execute(QStringLiteral("python3"), {QStringLiteral("-c"), QStringLiteral("import torch")}) == 0)
            QSKIP("python3 here has PyTorch: this test checks the answer without it");
        qputenv("KWB_TORCH_BRIDGE", KWB_TORCH_BRIDGE_SCRIPT);
        qunsetenv("KWB_PYTHON");
        Project p;
        p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/../tests/data/kernelbench_bridge/samples.jsonl")};
        const ProjectDataPtr data = loadProjectData(p);
        QVERIFY(data->records && !data->records->records.empty());
        RerunService service;
        RerunPanel panel(&service);
        panel.setProjectData(data);
        QSignalSpy probed(&service, &RerunService::availabilityChanged);
        service.probe();
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 30000);
        QString why;
        QVERIFY(!service.canRerun(data.get(), 0, &why));
        QVERIFY2(why.contains(QStringLiteral("PyTorch")), qPrintable(why));
        panel.setRecord(0);
        QVERIFY(!panel.rerunEnabled());
        QVERIFY2(panel.stateText().contains(QStringLiteral("KernelBench sample")), qPrintable(panel.stateText()));
        QVERIFY(!service.start(data, 0, &why));
        qunsetenv("KWB_TORCH_BRIDGE");
    }

    void liveRerunThroughTheRunnerProtocol()
    {
#ifndef KWB_FAKE_RUNNER
        QSKIP("core's stand-in runner (kwb_fake_runner) is not in this build");
#else
        if (!RerunService::buildHasRerun()) QSKIP("this build has no re-run client");
        qputenv("KWB_RUNNER", KWB_FAKE_RUNNER);
        Project p;
        p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations")};
        p.problems = {QStringLiteral(KWB_SOURCE_DATASETS "/problems"), QStringLiteral(KWB_SOURCE_DATASETS "/candidates")};
        const ProjectDataPtr data = loadProjectData(p);
        int rec = -1;
        for (std::size_t i = 0; i < data->rows->size(); ++i)
            if ((*data->rows)[i].id == QLatin1String("kb1_19_relu.partial_write")) rec = static_cast<int>(i);
        if (rec < 0) QSKIP("datasets/evaluations has no kb1_19_relu.partial_write record");

        // Without a device the panel is disabled and says so.
        qputenv("KWB_FAKE_NO_DEVICE", "1");
        {
            RerunService noGpu;
            RerunPanel panel(&noGpu);
            QSignalSpy probed(&noGpu, &RerunService::availabilityChanged);
            noGpu.probe();
            QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 30000);
            QVERIFY(!noGpu.isAvailable());
            QVERIFY2(panel.stateText().contains(QStringLiteral("No GPU"), Qt::CaseInsensitive), qPrintable(panel.stateText()));
            QVERIFY(!panel.rerunEnabled());
        }
        qunsetenv("KWB_FAKE_NO_DEVICE");

        RerunService service;
        RerunPanel panel(&service);
        panel.setProjectData(data);
        QSignalSpy probed(&service, &RerunService::availabilityChanged);
        service.probe();
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 30000);
        QVERIFY2(service.isAvailable(), qPrintable(service.unavailableReason()));
        panel.setRecord(rec);
        QVERIFY(panel.rerunEnabled());
        QSignalSpy finished(&service, &RerunService::finished);
        QSignalSpy coverage(&panel, &RerunPanel::liveCoverage);
        panel.rerun();
        QVERIFY(service.isRunning());
        QVERIFY(!panel.rerunEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto outcome = finished.front().front().value<RerunOutcome>();
        QVERIFY2(outcome.completed, qPrintable(outcome.message));
        QCOMPARE(outcome.record, rec);
        QVERIFY2(!outcome.flags.filter(QStringLiteral("low_coverage")).isEmpty(), qPrintable(outcome.flags.join(QLatin1Char('\n'))));
        QVERIFY(panel.rerunEnabled());
        QCOMPARE(coverage.count(), outcome.coverage ? 1 : 0);
        // A record the project has no candidate spec for is refused with the reason.
        kwb::RecordSet lone;
        kwb::EvalRecord r;
        r.id = "not-a-candidate";
        lone.records.push_back(r);
        QString why;
        QVERIFY(!service.start(makeProjectData(std::move(lone)), 0, &why));
        QVERIFY2(why.contains(QStringLiteral("no candidate spec")), qPrintable(why));
        qunsetenv("KWB_RUNNER");
#endif
    }

    void exportEachFormat_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::addRow("pdf") << "pdf";
        QTest::addRow("svg") << "svg";
        QTest::addRow("png") << "png";
    }

    void exportEachFormat()
    {
        QFETCH(QString, suffix);
        CoverageView view;
        view.resize(800, 600);
        view.setProjectData(kwbuitest::loadRecords({testData("records/good.jsonl")}));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("heat.") + suffix);
        const FigurePreset p = preset("single-column");
        QString error;
        QVERIFY2(exportFigure(view, p, *figureFormatFromPath(path), path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        if (suffix == QLatin1String("pdf")) {
            QVERIFY(bytes.startsWith("%PDF-"));
            // The page is the preset's size in points: 3.5 in x 72.
            QVERIFY2(bytes.contains("/MediaBox [0 0 252"), bytes.left(2000).constData());
        } else if (suffix == QLatin1String("svg")) {
            QVERIFY(bytes.contains("<svg"));
            QVERIFY(bytes.contains("viewBox=\"0 0 336 230.4\""));
            QVERIFY(bytes.contains("<image")); // the heatmap is an image, not shapes per tile
            QVERIFY(bytes.contains("100%"));   // legend text stays text
        } else {
            const QImage img(path);
            QCOMPARE(img.width(), 1050); // 3.5 in at 300 dpi
            QCOMPARE(img.height(), 720);
            QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), 300);
            QVERIFY(countColor(img, QColor(viridisTable()[0]), 4) > 1000);
        }
        QVERIFY(!figureFormatFromPath(QStringLiteral("x.jpg")));
    }

    void mainWindowLoadsPicksAndSaves()
    {
        KWB_REQUIRE_LEADERBOARD();
        MainWindow window;
        window.resize(1200, 800);
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openPaths({testData("records/good.jsonl"), kwbuitest::leaderboardPath()});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(window.waitUntilIdle(30000));
        QCOMPARE(window.projectData()->records->records.size(), std::size_t(416));
        QCOMPARE(window.viewNames(),
            (QStringList{QStringLiteral("records"), QStringLiteral("distributions"), QStringLiteral("pivot"),
                QStringLiteral("workloads"), QStringLiteral("coverage"), QStringLiteral("suspicious"), QStringLiteral("claims"),
                QStringLiteral("zero_acceptance"), QStringLiteral("scale_sweep"), QStringLiteral("exploit_matrix")}));
        // A chart pick lands in the records view.
        QVERIFY(window.showView(QStringLiteral("distributions")));
        QString what;
        const QSet<int> picked =
            window.distributionsView()->pickAt(0, QPointF(window.distributionsView()->distribution().groups[0].median, 0), &what);
        QVERIFY(!picked.isEmpty());
        Q_EMIT window.distributionsView()->recordsPicked(picked, what);
        QCOMPARE(window.currentView()->viewName(), QStringLiteral("records"));
        QCOMPARE(window.recordsView()->proxy()->rowCount(), picked.size());
        // Every view renders.
        window.show();
        for (const auto& name : window.viewNames()) {
            QVERIFY(window.showView(name));
            QVERIFY(window.waitUntilIdle(30000));
            QVERIFY2(inkPixels(window.grab().toImage()) > 20000, qPrintable(name));
        }
        // Save, and restore filters and figure settings.
        RecordFilter f;
        f.model = QString::fromStdString(window.projectData()->records->records.back().model);
        window.recordsView()->setFilter(f);
        window.distributionsView()->setKind(DistributionKind::Ecdf);
        window.setFigurePreset(QStringLiteral("double-column"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("saved.kwbproject.json"));
        QString error;
        QVERIFY2(window.saveProjectAs(path, &error), qPrintable(error));
        MainWindow again;
        QSignalSpy loaded2(&again, &MainWindow::projectLoaded);
        QVERIFY(again.openProjectFile(path));
        QTRY_COMPARE_WITH_TIMEOUT(loaded2.count(), 1, 30000);
        QCOMPARE(again.projectData()->records->records.size(), std::size_t(416));
        QCOMPARE(again.recordsView()->filter().model, f.model);
        QCOMPARE(again.distributionsView()->kind(), DistributionKind::Ecdf);
        QCOMPARE(again.figurePreset().name, QStringLiteral("double-column"));
        // Export the current view.
        const QString pdf = dir.filePath(QStringLiteral("view.pdf"));
        QVERIFY2(again.exportCurrentView(pdf, &error), qPrintable(error));
        QVERIFY(QFileInfo(pdf).size() > 1000);
    }

    void dropAndRecentFiles()
    {
        QSettings().remove(QStringLiteral("recentFiles"));
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(testData("records/good.jsonl"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &drop);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(window.projectData()->records->records.size(), std::size_t(3));
        QCOMPARE(window.currentProject().records, QStringList{testData("records/good.jsonl")});
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0),
            QFileInfo(testData("records/good.jsonl")).absoluteFilePath());
        QSettings().remove(QStringLiteral("recentFiles"));
    }

    void loadingCanBeCancelled()
    {
        KWB_REQUIRE_LEADERBOARD();
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        Project p;
        p.records = {kwbuitest::leaderboardPath()};
        window.loadProject(p);
        window.cancelLoad();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QVERIFY(!window.isLoading());
        // Cancelled before or after the reader finished: either nothing or everything, never half.
        const std::size_t n = window.projectData()->records->records.size();
        QVERIFY(n == 0 || n == 413);
    }

    // Issue 14: the charts, statistics, pivot and projection follow the Records filters, say so, and go back.
    void chartsFollowTheRecordsFilter()
    {
        KWB_REQUIRE_LEADERBOARD();
        MainWindow window;
        window.resize(1400, 900);
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        Project p;
        p.records = {kwbuitest::leaderboardPath()};
        window.loadProject(p);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(window.waitUntilIdle(30000));
        const std::size_t all = window.projectData()->records->records.size();
        auto total = [](const DistributionData& d) {
            std::size_t n = 0;
            for (const auto& g : d.groups) n += g.allRecords.size();
            return n;
        };
        QCOMPARE(total(window.distributionsView()->distribution()), all);
        QVERIFY(window.distributionsView()->filterNote().isEmpty());

        RecordFilter f;
        f.level = QStringLiteral("1");
        window.recordsView()->setFilter(f);
        QVERIFY(window.waitUntilIdle(30000));
        const int shown = window.recordsView()->proxy()->rowCount();
        QVERIFY(shown > 0 && static_cast<std::size_t>(shown) < all);
        QCOMPARE(total(window.distributionsView()->distribution()), std::size_t(shown));
        QVERIFY2(window.distributionsView()->filterNote().contains(QStringLiteral("level = 1")),
            qPrintable(window.distributionsView()->filterNote()));
        QVERIFY(window.distributionsView()->summaryText().contains(QStringLiteral("Records filters pass")));
        QCOMPARE(window.pivotView()->model()->pivot().records, std::size_t(shown));
        QVERIFY(window.pivotView()->filterNote().contains(QStringLiteral("level = 1")));
        // The statistics table holds the filtered groups.
        QCOMPARE(window.distributionsView()->statsModel()->rowCount(),
            int(window.distributionsView()->distribution().groups.size()));

        // "Use all records" clears the filter everywhere.
        Q_EMIT window.distributionsView()->allRecordsRequested();
        QVERIFY(window.waitUntilIdle(30000));
        QCOMPARE(window.recordsView()->filter(), RecordFilter{});
        QCOMPARE(total(window.distributionsView()->distribution()), all);
        QCOMPARE(window.pivotView()->model()->pivot().records, all);
        QVERIFY(window.distributionsView()->filterNote().isEmpty());
    }

    // Issue 14: a pivot cell click lists its records in the Records view.
    void pivotCellListsItsRecords()
    {
        KWB_REQUIRE_LEADERBOARD();
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        Project p;
        p.records = {kwbuitest::leaderboardPath()};
        window.loadProject(p);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(window.waitUntilIdle(30000));
        PivotView* pivot = window.pivotView();
        QVERIFY(window.viewNames().contains(QStringLiteral("pivot")));
        int row = -1, col = -1;
        for (int r = 0; r < pivot->model()->rowCount() && row < 0; ++r)
            for (int c = 0; c < pivot->model()->columnCount(); ++c)
                if (!pivot->model()->pivot().cell(r, c)->records.empty()) {
                    row = r;
                    col = c;
                    break;
                }
        QVERIFY(row >= 0);
        QString what;
        const QSet<int> recs = pivot->cellRecords(row, col, &what);
        QSignalSpy picked(pivot, &PivotView::recordsPicked);
        Q_EMIT pivot->table()->clicked(pivot->model()->index(row, col));
        QCOMPARE(picked.count(), 1);
        QCOMPARE(window.recordsView()->proxy()->rowCount(), recs.size());
        QCOMPARE(window.currentView()->viewName(), QStringLiteral("records"));
        // Its figure is a typeset table: vector text with the problem names, no image.
        const QString svg = exportSvg(*pivot);
        QVERIFY(svg.contains(QStringLiteral("Problem")));
        QVERIFY(!svg.contains(QStringLiteral("<image")));
    }

    // Issue 14: KernelBench's metadata of an incorrect sample is in the details pane.
    void detailsShowKernelBenchMetadata()
    {
        RecordsView view;
        view.setProjectData(kwbuitest::loadRecords({testData("kernelbench/runs/level1_metadata_run/eval_results.json")}));
        view.selectRecord(0);
        QString html = view.detailHtml();
        QVERIFY2(html.contains(QStringLiteral("2 of 5 passed")), qPrintable(html));
        QVERIFY(html.contains(QStringLiteral("Max difference")));
        QVERIFY(html.contains(QStringLiteral("0.5039, 0.5117, 0.498 (largest 0.5117, 3 trials)")));
        QVERIFY(html.contains(QStringLiteral("Output mismatch")));
        view.selectRecord(1);
        html = view.detailHtml();
        QVERIFY(html.contains(QStringLiteral("Compilation error")));
        QVERIFY(html.contains(QStringLiteral("is undefined")));
    }

    // Issue 14: two selected records side by side, with a source diff when both have sources.
    void compareTwoSelectedRecords()
    {
        kwb::RecordSet set = kwb::loadRecordFiles({testData("records/good.jsonl").toStdString()});
        QCOMPARE(set.records.size(), std::size_t(3));
        set.records[0].source.code = "__global__ void k(float* y) {\n  y[0] = 1.f;\n}\n";
        set.records[2].source.code = "__global__ void k(float* y) {\n  y[threadIdx.x] = 2.f;\n}\n";
        const ProjectDataPtr data = makeProjectData(std::move(set));
        RecordsView view;
        view.resize(1200, 800);
        view.setProjectData(data);
        QString reason;
        view.table()->clearSelection();
        view.table()->selectRow(0);
        QVERIFY(!view.compareSelected(&reason));
        QVERIFY2(reason.contains(QStringLiteral("exactly two")), qPrintable(reason));
        auto* sel = view.table()->selectionModel();
        for (int r : {0, 2}) {
            const QModelIndex i = view.proxy()->mapFromSource(view.model()->index(view.model()->displayRow(r), 0));
            sel->select(i, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QVERIFY2(view.compareSelected(&reason), qPrintable(reason));
        const QString html = view.comparisonHtml();
        QVERIFY(html.contains(QStringLiteral("r1")));
        QVERIFY(html.contains(QStringLiteral("r3")));
        QVERIFY2(html.contains(QStringLiteral("(1 lines removed, 1 added)")), qPrintable(html));
        QVERIFY(html.contains(QStringLiteral("y[threadIdx.x] = 2.f;")));
        QVERIFY(html.contains(QStringLiteral("low_coverage"))); // r1's flag beside r3's none
        QVERIFY(html.contains(QStringLiteral("0.30% written")));
        // Without both sources there is no diff, and the pane says which record lacks one.
        QVERIFY(view.compareRecords(0, 1, &reason));
        QVERIFY(view.comparisonHtml().contains(QStringLiteral("No source diff: r2 carries no kernel source")));
        // Records of two runs: the runs' statistics (core's summarize, as kwb summary) side by side.
        QVERIFY((*data->rows)[0].run != (*data->rows)[1].run);
        QVERIFY(view.comparisonHtml().contains(QStringLiteral("Whole run (kwb summary)")));
        QVERIFY(view.comparisonHtml().contains(QStringLiteral("median speedup")));
    }

    // Issue 14: Records and Suspicious export real figures (vector text, no widget screenshot, embedded fonts).
    void recordsAndSuspiciousExportRealFigures()
    {
        const ProjectDataPtr data = kwbuitest::loadRecords({testData("records/good.jsonl")});
        RecordsView records;
        records.resize(300, 200); // a small window must not shrink the figure
        records.setProjectData(data);
        QString svg = exportSvg(records);
        QVERIFY(!svg.isEmpty());
        QVERIFY(!svg.contains(QStringLiteral("<image")));
        for (const char* id : {"r1", "r2", "r3"}) QVERIFY2(svg.contains(QLatin1String(id)), id);
        QVERIFY(svg.contains(QStringLiteral("3 of 3 records")));
        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("records.pdf"));
        QString error;
        QVERIFY2(exportFigure(records, preset("double-column"), FigureFormat::Pdf, pdf, &error), qPrintable(error));
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("/FontFile2")); // fonts embedded

        RerunService service;
        SuspiciousView suspicious(&service);
        suspicious.resize(300, 200);
        suspicious.setProjectData(data);
        svg = exportSvg(suspicious);
        QVERIFY(!svg.contains(QStringLiteral("<image")));
        QVERIFY(svg.contains(QStringLiteral("Claimed speedup (log scale)")));
        QVERIFY(svg.contains(QStringLiteral("review threshold")));
        for (int r = 0; r < suspicious.model()->rowCount(); ++r)
            QVERIFY(svg.contains(suspicious.model()->index(r, SuspiciousModel::Record).data().toString()));
    }

    // Issue 14: the Workloads export is the chart on screen with its whole title; small multiples keep equal pies.
    void workloadsExportAndEqualPies()
    {
        auto d = std::make_shared<ProjectData>();
        for (const QString& name : {QStringLiteral("w0"),
                 QStringLiteral("dlrm_inference_fp32_batch_2048_with_a_long_name_that_wraps")}) {
            WorkloadSummary s;
            s.name = name;
            s.addressableFraction = 0.4;
            s.categories = {{QStringLiteral("gemm"), false, 60, 0.6, 3}, {QStringLiteral("elementwise"), true, 40, 0.4, 9}};
            d->workloads.push_back(s);
        }
        WorkloadsView view;
        view.setProjectData(d);
        view.selectWorkload(1);
        const QString svg = exportSvg(view);
        QVERIFY2(svg.contains(QStringLiteral("dlrm_inference_fp32_batch_2048_with_a_long_name_that_wraps")) ||
                     svg.contains(QStringLiteral("dlrm_inference_fp32_")), "title missing");
        QVERIFY(!svg.contains(QStringLiteral("...")));
        QVERIFY(!svg.contains(QChar(0x2026))); // no elided title
        // Small multiples: the wrapping title does not shrink its pie.
        QImage img(1000, 420, QImage::Format_RGB32);
        img.fill(Qt::white);
        {
            QPainter painter(&img);
            paintWorkloadPies(painter, QRectF(0, 0, 1000, 420), d->workloads, FigureStyle::screen());
        }
        const auto colors = categoryColors(d->workloads);
        const QColor gemm = colors.value(QStringLiteral("gemm"));
        const int left = countColor(img.copy(0, 0, 500, 420), gemm, 6);
        const int right = countColor(img.copy(500, 0, 500, 420), gemm, 6);
        QVERIFY(left > 1000);
        QVERIFY2(std::abs(left - right) < 0.03 * left, qPrintable(QStringLiteral("%1 vs %2").arg(left).arg(right)));
    }

    // Issue 14: a baseline timing file alone: the window's Messages panel says what it pairs with.
    void loneBaselineHintInMessages()
    {
        const QString baseline =
            QStringLiteral(KWB_SHARED_DATA_DIR "/kernelbench/timing/H100_Modal/baseline_time_torch.json");
        if (!QFileInfo::exists(baseline)) QSKIP("../shared/data has no baseline timing file");
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        window.openPaths({baseline});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        const QString all = window.messages().join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QDir::cleanPath(baseline) + QStringLiteral(": KernelBench baseline timings")), qPrintable(all));
        QVERIFY(all.contains(QStringLiteral("eval_results.json")));
    }
};

QTEST_MAIN(TstUiViews)
#include "tst_ui_views.moc"
