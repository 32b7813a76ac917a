// The paper's views offscreen (zero acceptance, scale sweep, claimed vs
// verified) on the committed data, and `kwb figures --preset paper`. Screenshots
// go to $KWB_SCREENSHOT_DIR when set (looked at when the views change).
#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "export/figure_exporter.h"
#include "export/paper_preset.h"
#include "project/project_loader.h"
#include "ui_test_util.h"
#include "views/claims_view.h"
#include "views/substitution_panel.h"
#include "views/workloads_view.h"
#include "views/scale_sweep_view.h"
#include "views/zero_acceptance_view.h"

using namespace kwb::ui;
using kwbuitest::inkPixels;

namespace {

bool waitIdle(FigureView& v)
{
    QDeadlineTimer deadline(60000);
    while (v.isBusy() && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QCoreApplication::processEvents();
    return !v.isBusy();
}

void shoot(QWidget& w, const char* name)
{
    const QString dir = qEnvironmentVariable("KWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    w.grab().save(QDir(dir).filePath(QLatin1String(name) + QStringLiteral(".png")));
}

ProjectDataPtr defaultLike()
{
    Project p;
    p.path = QStringLiteral(KWB_SOURCE_DATASETS "/default.kwbproject.json");
    p.records = {QStringLiteral(KWB_SOURCE_DATASETS "/evaluations"),
        QStringLiteral(KWB_SOURCE_DATASETS "/kernelbench_dlrm/evaluations/dlrm_bench_verified_h200.jsonl")};
    p.traces = {QStringLiteral(KWB_SOURCE_DATASETS "/traces")};
    return loadProjectData(p);
}

} // namespace

class TstPaperViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { kwbuitest::isolateSettings("tst_paper_views"); }

    void zeroAcceptanceView()
    {
        ZeroAcceptanceView view;
        view.resize(1200, 700);
        view.setProjectData(defaultLike());
        QVERIFY2(view.data().error.isEmpty(), qPrintable(view.data().error));
        // The paper's claim and our counts, for level 1 by default.
        QVERIFY2(view.summaryText().contains(QStringLiteral("4 of 60")), qPrintable(view.summaryText()));
        QVERIFY(view.summaryText().contains(QStringLiteral("v0 level 1: <b>4 of 100</b>")));
        QVERIFY(view.summaryText().contains(QStringLiteral("current level 1: <b>4 of 100</b>")));
        QCOMPARE(view.table()->rowCount(), 100); // problem numbers 1..100, both versions side by side
        // Softmax accepts zeros at 1e-2 in both versions; its row says so on both sides.
        bool softmax = false;
        for (int r = 0; r < view.table()->rowCount(); ++r)
            if (view.table()->item(r, 1) && view.table()->item(r, 1)->text() == QStringLiteral("23_Softmax")) {
                softmax = view.table()->item(r, 3)->text() == QStringLiteral("yes") && view.table()->item(r, 8)->text() == QStringLiteral("yes");
            }
        QVERIFY(softmax);
        // Filter: only problems where zeros pass at 1e-2 in either version (v0: 4, current: 4, 2 shared).
        view.findChild<QComboBox*>(QStringLiteral("zeroOnly"))->setCurrentIndex(1);
        QCOMPARE(view.table()->rowCount(), 6);
        view.setLevel(2);
        QVERIFY(view.summaryText().contains(QStringLiteral("v0 level 2: <b>5 of 100</b>")));
        view.setLevel(3);
        QCOMPARE(view.table()->rowCount(), 0);
        view.setLevel(1);
        view.findChild<QComboBox*>(QStringLiteral("zeroOnly"))->setCurrentIndex(2); // any trivial answer passes
        view.show();
        QVERIFY(inkPixels(view.grab().toImage()) > 5000);
        shoot(view, "paper_zero_acceptance_view");
    }

    void scaleSweepView()
    {
        ScaleSweepView view;
        view.resize(1100, 800);
        view.setProjectData(defaultLike());
        QVERIFY(waitIdle(view));
        QVERIFY2(view.sweep().error.isEmpty(), qPrintable(view.sweep().error));
        QCOMPARE(view.sweep().points.size(), std::size_t(22));
        QCOMPARE(view.table()->rowCount(), 22);
        QCOMPARE(view.sweep().ours.size(), std::size_t(10)); // the default project's traces
        view.show();
        const QImage shot = view.grab().toImage();
        QVERIFY(inkPixels(shot) > 8000);
        shoot(view, "paper_scale_sweep_view");
    }

    void claimsView()
    {
        ClaimsView view;
        view.resize(1100, 800);
        view.setProjectData(defaultLike());
        QVERIFY(!view.points().empty());
        // The last tally row is "all"; the DLRM-Bench model row says 8 of 10 claims survive.
        bool dlrm = false;
        for (int r = 0; r < view.tallyTable()->rowCount(); ++r)
            if (view.tallyTable()->item(r, 0)->text() == QStringLiteral("dlrm-bench/sample0"))
                dlrm = view.tallyTable()->item(r, 3)->text() == QStringLiteral("8 (80%)");
        QVERIFY(dlrm);
        QCOMPARE(view.tallyTable()->item(view.tallyTable()->rowCount() - 1, 0)->text(), QStringLiteral("all"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // A click on a point opens its record.
        int target = -1;
        for (std::size_t i = 0; i < view.points().size(); ++i)
            if (view.points()[i].id == "dlrm_bench/5_TableBatchedEmbedding/sample0") target = static_cast<int>(i);
        QVERIFY(target >= 0);
        const ClaimsPlot l = layoutClaimsPlot(QRectF(view.canvas()->rect()), view.points(), FigureStyle::screen());
        const QPointF at = l.positions[static_cast<std::size_t>(target)];
        QCOMPARE(view.pointAt(at), target);
        QSignalSpy spy(&view, &ClaimsView::recordActivated);
        QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.first().first().toInt(), static_cast<int>(view.points()[static_cast<std::size_t>(target)].record));
        QVERIFY(inkPixels(view.grab().toImage()) > 5000);
        shoot(view, "paper_claims_view");
    }

    // The workloads view's measured-vs-projected tab: DLRM's committed run, measured beside projected.
    void substitutionPanel()
    {
        WorkloadsView view;
        view.resize(1100, 800);
        view.setProjectData(defaultLike());
        QVERIFY(waitIdle(view));
        auto* panel = view.findChild<SubstitutionPanel*>(QStringLiteral("substitutionPanel"));
        QVERIFY(panel);
        QVERIFY(panel->table()->rowCount() >= 2);
        QCOMPARE(panel->table()->item(0, 1)->text(), QStringLiteral("infer"));
        QCOMPARE(panel->table()->item(0, 5)->text(), QStringLiteral("42.4%"));
        QCOMPARE(panel->table()->item(1, 5)->text(), QStringLiteral("55.0%"));
        // No projection in that file: the project's projection of dlrm_train.json.gz stands beside it.
        QVERIFY2(panel->table()->item(0, 8)->text().contains(QStringLiteral("dlrm_train")),
            qPrintable(panel->table()->item(0, 8)->text()));
        panel->resize(1200, 260);
        panel->show();
        shoot(*panel, "paper_substitution_panel");
    }

    // Every figure of the preset at both widths in the three formats.
    void paperFigures()
    {
        QTemporaryDir dir;
        const QString out = qEnvironmentVariable("KWB_SCREENSHOT_DIR").isEmpty()
                                ? dir.path()
                                : QDir(qEnvironmentVariable("KWB_SCREENSHOT_DIR")).filePath(QStringLiteral("paper_figures"));
        const FigureSetResult r = renderPaperFigures(*defaultLike(), out);
        QVERIFY2(r.errors.isEmpty(), qPrintable(r.errors.join(QLatin1Char('\n'))));
        QVERIFY2(r.skipped.isEmpty(), qPrintable(r.skipped.join(QLatin1Char('\n'))));
        QCOMPARE(r.written.size(), 6 * 2 * 3);
        for (const char* name : {"speedup_by_model", "addressable_pies", "scale_sweep", "zero_acceptance",
                 "coverage_partial_write", "claims_scatter"}) {
            const QImage single(QDir(out).filePath(QLatin1String(name) + QStringLiteral("_single.png")));
            const QImage dbl(QDir(out).filePath(QLatin1String(name) + QStringLiteral("_double.png")));
            QCOMPARE(single.width(), 1050); // 3.5 in at 300 dpi
            QCOMPARE(dbl.width(), 2100);    // 7 in
            QVERIFY2(inkPixels(single) > 2000, name);
        }
        // The heatmap is the partial-write kernel's.
        QFile svg(QDir(out).filePath(QStringLiteral("coverage_partial_write_single.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("partial_write"));
        // Fonts are embedded in the PDF (a FontFile2 stream for the TrueType subset).
        QFile pdf(QDir(out).filePath(QStringLiteral("zero_acceptance_single.pdf")));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.readAll().contains("/FontFile2"));
    }
};

QTEST_MAIN(TstPaperViews)
#include "tst_paper_views.moc"
