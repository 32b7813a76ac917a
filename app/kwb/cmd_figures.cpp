// kwb figures: render the standard paper figures of a project headless, the
// same views the workbench shows: speedup distributions, addressable-fraction
// pies and a coverage heatmap, each as PDF, SVG and PNG.
#include <cstdio>

#include "arg_parser.h"
#include "commands.h"

#ifdef KWB_WITH_UI
#include <QApplication>
#include <QDir>
#include <QFileInfo>

#include "export/figure_set.h"
#include "export/paper_preset.h"
#include "main_window.h"
#include "project/input_classifier.h"
#include "project/project_loader.h"
#endif

namespace kwb::cli {

int runFigures(const Args& args)
{
    ArgParser p("figures", "kwb figures [--preset NAME] [--record ID] --out DIR [PROJECT | FILE...]",
        "Renders the standard figure set of a project without a display: the speedup\n"
        "distribution (histogram on a log axis, ECDF, fast_p over p, box per group), the\n"
        "addressable-fraction pies of every profiled workload and the coverage heatmap of\n"
        "the most suspicious record with a grid; each as PDF, SVG and PNG. Without a\n"
        "project it uses the default project from datasets/.");
    p.positional("PROJECT | FILE...", "a project file (*.kwbproject.json), or record files, traces and folders");
    p.option("out", "DIR", "folder for the figures (created if missing)");
    p.option("preset", "NAME", "figure preset: single-column, double-column, single-column-tall, slide; or paper: the "
                             "paper's figure set (speedup per model, pies, scale sweep, zero acceptance, partial-write "
                             "heatmap, claimed vs re-measured) at 3.5 and 7 in", "single-column");
    p.option("group-by", "FIELD", "group the distributions by this record field (default: the project's, else model)");
    p.option("record", "ID", "record whose coverage grid the heatmap shows (default: the most suspicious one with a "
                             "grid that has written and unwritten tiles)");
    p.flag("list-presets", "print the presets with their sizes and exit");
    p.epilog("Figures a project has no data for (no traces, no coverage grid) are skipped with a\n"
             "note on stderr. Exit status: 0 figures written, 1 nothing could be rendered or a file\n"
             "could not be written, 2 usage error, 3 this build has no GUI library.");
    if (!p.parse(args)) return finishParse(p);
#ifndef KWB_WITH_UI
    std::fprintf(stderr, "kwb figures: not in this build (configured without the Qt UI library, KWB_BUILD_UI=OFF)\n");
    return kExitNotInBuild;
#else
    using namespace kwb::ui;
    // Headless: the offscreen platform needs no display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "kwb";
    static char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    if (p.isSet("list-presets")) {
        for (const auto& preset : figurePresets())
            std::printf("%-20s %5.2f x %4.2f in  %4.1f pt  %4d dpi  %s\n", preset.name.toUtf8().constData(),
                preset.widthIn, preset.heightIn, preset.fontPt, preset.dpi, preset.description.toUtf8().constData());
        std::printf("%-20s the paper's figure set, each at 3.5 in and 7 in wide (single- and double-column fonts)\n", "paper");
        return kExitOk;
    }
    const auto out = p.value("out");
    if (!out) {
        std::fprintf(stderr, "kwb figures: --out DIR is required\n\n%s", p.help().c_str());
        return kExitUsage;
    }
    const bool paper = *p.value("preset") == "paper";
    const auto preset = paper ? findFigurePreset(QStringLiteral("single-column")) : findFigurePreset(QString::fromStdString(*p.value("preset")));
    if (!preset) {
        std::fprintf(stderr, "kwb figures: unknown preset '%s' (one of: %s)\n", p.value("preset")->c_str(),
            figurePresetNames().join(QLatin1String(", ")).toUtf8().constData());
        return kExitUsage;
    }

    Project project;
    QString error;
    QStringList inputs;
    for (const auto& a : p.positionals()) inputs << QString::fromStdString(a);
    if (inputs.isEmpty()) {
        if (!MainWindow::defaultProject(&project, &error)) {
            std::fprintf(stderr, "kwb figures: %s\n", error.toUtf8().constData());
            return kExitErrors;
        }
    } else {
        // A project file among other inputs is the base they are added to, never dropped.
        QStringList projects;
        QStringList others;
        for (const auto& in : inputs) (classifyInput(in) == InputRole::Project ? projects : others) << in;
        if (projects.size() > 1) {
            std::fprintf(stderr, "kwb figures: more than one project file given (%s)\n",
                projects.join(QLatin1String(", ")).toUtf8().constData());
            return kExitUsage;
        }
        if (!projects.isEmpty() && !loadProject(projects.front(), &project, &error)) {
            std::fprintf(stderr, "kwb figures: %s\n", error.toUtf8().constData());
            return kExitErrors;
        }
        QStringList messages;
        addInputs(project, others, &messages);
        for (const auto& m : messages) std::fprintf(stderr, "kwb figures: %s\n", m.toUtf8().constData());
    }
    if (auto g = p.value("group-by")) project.figures.groupBy = QString::fromStdString(*g);

    const ProjectDataPtr data = loadProjectData(project);
    for (const auto& m : data->messages) std::fprintf(stderr, "kwb figures: note: %s\n", m.toUtf8().constData());
    const QString record = p.value("record") ? QString::fromStdString(*p.value("record")) : QString();
    const FigureSetResult result = paper ? renderPaperFigures(*data, QString::fromStdString(*out))
                                         : renderStandardFigures(*data, *preset, QString::fromStdString(*out), record);
    for (const auto& s : result.skipped) std::fprintf(stderr, "kwb figures: skipped %s\n", s.toUtf8().constData());
    for (const auto& e : result.errors) std::fprintf(stderr, "kwb figures: error: %s\n", e.toUtf8().constData());
    for (const auto& w : result.written) std::printf("%s\n", w.toUtf8().constData());
    if (!result.errors.isEmpty() || result.written.isEmpty()) return kExitErrors;
    return kExitOk;
#endif
}

} // namespace kwb::cli
