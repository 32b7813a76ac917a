// kernel-workbench: explore evaluation records, profiler traces and coverage,
// inspect suspicious speedups, re-run kernels live and export paper figures.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QTextStream>

#include <cstdio>

#include "main_window.h"
#include "project/input_classifier.h"
#include "views/distributions_view.h"
#include "views/records_view.h"
#include "views/rerun_panel.h"

namespace {

bool parseSize(const QString& text, QSize* size)
{
    const QStringList parts = text.split(QLatin1Char('x'));
    if (parts.size() != 2) return false;
    bool okW = false;
    bool okH = false;
    const int w = parts[0].toInt(&okW);
    const int h = parts[1].toInt(&okH);
    if (!okW || !okH || w < 200 || h < 150 || w > 8000 || h > 8000) return false;
    *size = QSize(w, h);
    return true;
}

void err(const QString& text)
{
    std::fprintf(stderr, "kernel-workbench: %s\n", text.toLocal8Bit().constData());
}

} // namespace

int main(int argc, char** argv)
{
    // --screenshot renders without a display, and --help or --version need none:
    // pick the offscreen platform before Qt starts (a QApplication without a
    // display would abort).
    bool screenshot = false;
    bool noWindow = false;
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a.startsWith("--screenshot") || a.startsWith("--export")) screenshot = true;
        if (a == "--help" || a == "-h" || a == "-?" || a == "--help-all" || a == "--version" || a == "-v")
            noWindow = true;
    }
    const bool noDisplay = qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if ((screenshot || (noWindow && noDisplay)) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KernelWorkbench"));
    QApplication::setApplicationName(QStringLiteral("kernel-workbench"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Kernel Workbench: explore evaluation records of LLM-generated GPU kernels, profiler traces and\n"
        "coverage, inspect suspicious speedups, re-run kernels live and export paper figures.\n"
        "Without arguments it opens the default project from datasets/."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("inputs"),
        QStringLiteral("A project file (*.kwbproject.json), or record files, traces, problem suites and folders."),
        QStringLiteral("[PROJECT | FILE...]"));
    QCommandLineOption shotOpt(QStringLiteral("screenshot"), QStringLiteral("Render the window to FILE (PNG) and exit."),
        QStringLiteral("FILE"));
    QCommandLineOption viewOpt(QStringLiteral("view"),
        QStringLiteral("View to show: records, distributions, pivot, workloads, coverage, suspicious, claims, "
                       "zero_acceptance, scale_sweep, exploit_matrix."),
        QStringLiteral("NAME"));
    QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1280x800)."),
        QStringLiteral("WxH"), QStringLiteral("1280x800"));
    QCommandLineOption chartOpt(QStringLiteral("chart"),
        QStringLiteral("Distribution chart for the distributions view: histogram, ecdf, fastp, box."),
        QStringLiteral("KIND"));
    QCommandLineOption recordOpt(QStringLiteral("record"),
        QStringLiteral("Select this record (by id) in the records and coverage views."), QStringLiteral("ID"));
    QCommandLineOption rerunOpt(QStringLiteral("rerun-record"),
        QStringLiteral("Select this record (by id), start its live re-run, wait for the result and show it. With "
                       "--screenshot the picture is taken once the result is in and the outcome is printed."),
        QStringLiteral("ID"));
    QCommandLineOption rerunTimeoutOpt(QStringLiteral("rerun-timeout"),
        QStringLiteral("Seconds to wait for the re-run's result (default 900)."), QStringLiteral("S"),
        QStringLiteral("900"));
    QCommandLineOption filterOpt(QStringLiteral("filter"),
        QStringLiteral("Set the Records filters, e.g. level=1,model=NAME,search=relu (fields: model, level, problem, "
                       "status, flag, search); the charts, pivot and projection follow them."),
        QStringLiteral("FIELD=VALUE,..."));
    QCommandLineOption compareOpt(QStringLiteral("compare"),
        QStringLiteral("Compare two records side by side in the records view's Compare tab."), QStringLiteral("ID,ID"));
    QCommandLineOption exportOpt(QStringLiteral("export"),
        QStringLiteral("Export the shown view's figure (as File → Export Figure: .pdf, .svg or .png, the project's "
                       "figure preset) to FILE and exit; with --screenshot both are written."),
        QStringLiteral("FILE"));
    QCommandLineOption projectOpt(QStringLiteral("project"),
        QStringLiteral("Open this project file (the same as giving it as the only input)."), QStringLiteral("FILE"));
    parser.addOption(projectOpt);
    parser.addOption(recordOpt);
    parser.addOption(rerunOpt);
    parser.addOption(rerunTimeoutOpt);
    parser.addOption(shotOpt);
    parser.addOption(viewOpt);
    parser.addOption(sizeOpt);
    parser.addOption(chartOpt);
    parser.addOption(filterOpt);
    parser.addOption(compareOpt);
    parser.addOption(exportOpt);
    parser.process(app);

    kwb::ui::MainWindow window;
    QStringList inputs = parser.positionalArguments();
    if (parser.isSet(projectOpt)) {
        if (!inputs.isEmpty()) {
            err(QStringLiteral("--project takes the place of the inputs; give one or the other"));
            return 2;
        }
        if (!window.openProjectFile(parser.value(projectOpt))) {
            for (const auto& m : window.messages()) err(m);
            return 1;
        }
    } else if (inputs.isEmpty()) {
        kwb::ui::Project project;
        QString error;
        if (kwb::ui::MainWindow::defaultProject(&project, &error)) window.loadProject(project);
        else err(error);
    } else if (inputs.size() == 1 && kwb::ui::classifyInput(inputs.front()) == kwb::ui::InputRole::Project) {
        if (!window.openProjectFile(inputs.front())) return 1;
    } else {
        window.openPaths(inputs);
    }

    if (parser.isSet(viewOpt) && !window.showView(parser.value(viewOpt))) {
        err(QStringLiteral("unknown view '%1' (one of: %2)")
                .arg(parser.value(viewOpt), window.viewNames().join(QLatin1String(", "))));
        return 2;
    }

    const bool rerun = parser.isSet(rerunOpt);
    if (!screenshot) {
        if (rerun) {
            const QString id = parser.value(rerunOpt);
            QObject::connect(&window, &kwb::ui::MainWindow::projectLoaded, &window, [&window, id] {
                QString reason;
                if (!window.startRerun(id, &reason)) err(reason);
            }, Qt::SingleShotConnection);
        } else if (parser.isSet(recordOpt)) {
            const QString id = parser.value(recordOpt);
            QObject::connect(&window, &kwb::ui::MainWindow::projectLoaded, &window, [&window, id] {
                if (!window.focusRecord(id)) err(QStringLiteral("no record '%1' in the project").arg(id));
            });
        }
        window.show();
        return app.exec();
    }

    QSize size;
    if (!parseSize(parser.value(sizeOpt), &size)) {
        err(QStringLiteral("--size needs WxH, e.g. 1280x800"));
        return 2;
    }
    window.resize(size);
    window.show();
    if (!window.waitUntilIdle(120000)) {
        err(QStringLiteral("loading did not finish within two minutes"));
        return 1;
    }
    // The loaded project may name a view; the command line wins.
    if (parser.isSet(viewOpt)) window.showView(parser.value(viewOpt));
    if (parser.isSet(chartOpt)) {
        kwb::ui::DistributionKind kind;
        if (!kwb::ui::distributionKindFromName(parser.value(chartOpt), &kind)) {
            err(QStringLiteral("unknown chart '%1' (histogram, ecdf, fastp, box)").arg(parser.value(chartOpt)));
            return 2;
        }
        window.distributionsView()->setKind(kind);
    }
    if (parser.isSet(recordOpt) && !window.focusRecord(parser.value(recordOpt))) {
        err(QStringLiteral("no record '%1' in the project").arg(parser.value(recordOpt)));
        return 1;
    }
    if (parser.isSet(filterOpt)) {
        kwb::ui::RecordFilter f;
        for (const QString& part : parser.value(filterOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const qsizetype eq = part.indexOf(QLatin1Char('='));
            const QString key = part.left(eq).trimmed();
            const QString value = eq < 0 ? QString() : part.mid(eq + 1);
            QString* field = key == QLatin1String("model") ? &f.model
                           : key == QLatin1String("level") ? &f.level
                           : key == QLatin1String("problem") ? &f.problem
                           : key == QLatin1String("status") ? &f.status
                           : key == QLatin1String("flag") ? &f.flag
                           : key == QLatin1String("search") ? &f.search
                                                            : nullptr;
            if (eq < 0 || !field) {
                err(QStringLiteral("--filter: '%1' is not FIELD=VALUE with FIELD one of model, level, problem, status, "
                                   "flag, search")
                        .arg(part));
                return 2;
            }
            *field = value;
        }
        window.recordsView()->setFilter(f);
        window.waitUntilIdle(60000);
    }
    if (parser.isSet(compareOpt)) {
        const QStringList ids = parser.value(compareOpt).split(QLatin1Char(','));
        int recs[2] = {-1, -1};
        const auto& rows = *window.projectData()->rows;
        for (int k = 0; k < 2 && k < ids.size(); ++k)
            for (std::size_t i = 0; i < rows.size(); ++i)
                if (rows[i].id == ids[k]) recs[k] = static_cast<int>(i);
        QString reason;
        if (ids.size() != 2 || recs[0] < 0 || recs[1] < 0) {
            err(QStringLiteral("--compare needs two record ids of the project, got '%1'").arg(parser.value(compareOpt)));
            return 1;
        }
        if (!window.recordsView()->compareRecords(recs[0], recs[1], &reason)) {
            err(reason);
            return 1;
        }
    }
    int status = 0;
    if (rerun) {
        bool okTimeout = false;
        const int timeoutS = parser.value(rerunTimeoutOpt).toInt(&okTimeout);
        if (!okTimeout || timeoutS <= 0) {
            err(QStringLiteral("--rerun-timeout needs a positive number of seconds"));
            return 2;
        }
        QString reason;
        kwb::ui::RerunOutcome outcome;
        if (!window.rerunAndWait(parser.value(rerunOpt), timeoutS * 1000, &outcome, &reason)) {
            err(reason);
            status = 1;
        } else {
            std::printf("%s\n", kwb::ui::outcomeSummary(outcome).toLocal8Bit().constData());
            if (!outcome.completed) status = 1;
        }
        // The result is on the records view's re-run tab unless another view was asked for.
        if (parser.isSet(viewOpt)) window.showView(parser.value(viewOpt));
        else window.showView(QStringLiteral("records"));
    }
    window.waitUntilIdle(30000);
    if (parser.isSet(exportOpt)) {
        QString error;
        if (!window.exportCurrentView(parser.value(exportOpt), &error)) {
            err(error);
            return 1;
        }
        std::printf("%s\n", QDir::toNativeSeparators(QFileInfo(parser.value(exportOpt)).absoluteFilePath()).toLocal8Bit().constData());
        if (!parser.isSet(shotOpt)) return status;
    }
    const QImage image = window.grab().toImage();
    const QString file = parser.value(shotOpt);
    if (!image.save(file)) {
        err(file + QStringLiteral(": cannot write the screenshot"));
        return 1;
    }
    for (const auto& m : window.messages()) err(QStringLiteral("note: ") + m);
    std::printf("%s\n", QDir::toNativeSeparators(QFileInfo(file).absoluteFilePath()).toLocal8Bit().constData());
    return status;
}
