#include "export/paper_preset.h"

#include <QDir>
#include <QFileInfo>

#include <functional>

#include "charts/distribution_chart.h"
#include "charts/distribution_data.h"
#include "charts/heatmap_renderer.h"
#include "charts/workload_charts.h"
#include "export/figure_exporter.h"
#include "views/claims_view.h"
#include "views/scale_sweep_view.h"
#include "views/zero_acceptance_view.h"

namespace kwb::ui {

QString paperDataPath(const Project& project, const QString& relative)
{
    const QString beside = QDir(project.baseDir()).filePath(relative);
    if (QFileInfo::exists(beside)) return QFileInfo(beside).absoluteFilePath();
    const QString shipped = QDir(QStringLiteral(KWB_DATASET_DIR)).filePath(relative);
    return QFileInfo::exists(shipped) ? shipped : QString();
}

int partialWriteRecord(const ProjectData& data)
{
    for (std::size_t i = 0; i < data.rows->size(); ++i) {
        const RecordRow& r = (*data.rows)[i];
        if (r.hasGrid && (r.id.contains(QLatin1String("partial_write")) || r.problem.contains(QLatin1String("partial_write"))))
            return static_cast<int>(i);
    }
    return heatmapRecord(data);
}

namespace {

class Figure final : public FigureSource {
public:
    using Paint = std::function<void(QPainter&, const QRectF&, const FigureStyle&)>;
    Figure(QString title, Paint paint) : m_title(std::move(title)), m_paint(std::move(paint)) {}
    QString figureTitle() const override { return m_title; }
    void paintFigure(QPainter& p, const QRectF& r, const FigureStyle& s) const override { m_paint(p, r, s); }

private:
    QString m_title;
    Paint m_paint;
};

FigurePreset presetOr(const QString& name, double width, double height)
{
    FigurePreset p = findFigurePreset(name).value_or(FigurePreset{});
    p.widthIn = width;
    p.heightIn = height;
    return p;
}

// Each figure at both widths; `heights` in inches (single, double) suit its shape.
void writeBoth(const FigureSource& f, const QDir& dir, const QString& name, double singleH, double doubleH,
    FigureSetResult& result)
{
    const FigurePreset single = presetOr(QStringLiteral("single-column"), 3.5, singleH);
    const FigurePreset dbl = presetOr(QStringLiteral("double-column"), 7.0, doubleH);
    for (const auto& [preset, suffix] : {std::pair{single, QStringLiteral("single")}, std::pair{dbl, QStringLiteral("double")}}) {
        for (auto fmt : {FigureFormat::Pdf, FigureFormat::Svg, FigureFormat::Png}) {
            const QString path = dir.filePath(name + QLatin1Char('_') + suffix + QLatin1Char('.') + figureFormatSuffix(fmt));
            QString error;
            if (exportFigure(f, preset, fmt, path, &error)) result.written << path;
            else result.errors << error;
        }
    }
}

} // namespace

FigureSetResult renderPaperFigures(const ProjectData& data, const QString& outDir)
{
    FigureSetResult result;
    if (!QDir().mkpath(outDir)) {
        result.errors << outDir + QLatin1String(": cannot create the folder");
        return result;
    }
    const QDir dir(outDir);

    // 1. The speedup distribution per model configuration (one box per model).
    const DistributionData dist = computeDistribution(*data.records, QStringLiteral("model"));
    const LogHistogram hist = computeLogHistogram(dist);
    if (dist.empty()) {
        result.skipped << QObject::tr("speedup_by_model: no correct, timed records");
    } else {
        writeBoth(Figure(QObject::tr("Speedup by model configuration"),
                      [&](QPainter& p, const QRectF& r, const FigureStyle& s) {
                          paintChart(p, r, buildDistributionChart(dist, hist, DistributionKind::Box, s, int(r.width())));
                      }),
            dir, QStringLiteral("speedup_by_model"), 2.6, 3.0, result);
    }

    // 2. The addressable-fraction pies of the project's workloads.
    if (data.workloads.empty()) {
        result.skipped << QObject::tr("addressable_pies: no profiler traces loaded");
    } else {
        writeBoth(Figure(QObject::tr("GPU time by kernel category per workload"),
                      [&](QPainter& p, const QRectF& r, const FigureStyle& s) { paintWorkloadPies(p, r, data.workloads, s); }),
            dir, QStringLiteral("addressable_pies"), 3.5, 3.2, result);
    }

    // 3. The scale sweep, with the project's workloads as the strip.
    const ScaleSweepData sweep =
        loadScaleSweepData(paperDataPath(data.project, QStringLiteral("scale_sweep/manifest.json")), data.workloads);
    if (sweep.points.empty()) {
        result.skipped << QObject::tr("scale_sweep: %1").arg(sweep.error.trimmed());
    } else {
        writeBoth(Figure(QObject::tr("Addressable fraction against model scale"),
                      [&](QPainter& p, const QRectF& r, const FigureStyle& s) { paintScaleSweep(p, r, sweep, s); }),
            dir, QStringLiteral("scale_sweep"), 2.8, 3.2, result);
    }

    // 4. The zero-acceptance table.
    const ZeroAcceptanceData zeros =
        loadZeroAcceptanceData(paperDataPath(data.project, QStringLiteral("zero_acceptance/zero_acceptance_levels.jsonl")));
    if (zeros.table.rows.empty()) {
        result.skipped << QObject::tr("zero_acceptance: %1").arg(zeros.error);
    } else {
        writeBoth(Figure(QObject::tr("Trivial answers accepted by KernelBench's allclose"),
                      [&](QPainter& p, const QRectF& r, const FigureStyle& s) { paintZeroAcceptanceTable(p, r, zeros, s); }),
            dir, QStringLiteral("zero_acceptance"), 1.9, 1.7, result);
    }

    // 5. The coverage heatmap of a partial-write kernel.
    const int rec = partialWriteRecord(data);
    if (rec < 0) {
        result.skipped << QObject::tr("coverage_partial_write: no record has a coverage grid");
    } else {
        const EvalRecord& r = data.records->records[static_cast<std::size_t>(rec)];
        const HeatmapData heat = makeHeatmap(r.verification.coverage->grid, r.verification.coverage,
            QObject::tr("Coverage of %1").arg(QString::fromStdString(r.id)));
        if (heat.isNull()) {
            result.skipped << QObject::tr("coverage_partial_write: the grid of %1 is malformed").arg(QString::fromStdString(r.id));
        } else {
            writeBoth(Figure(heat.title, [&](QPainter& p, const QRectF& rr, const FigureStyle& s) { paintHeatmap(p, rr, heat, {}, s); }),
                dir, QStringLiteral("coverage_partial_write"), 2.8, 3.0, result);
        }
    }

    // 6. Claimed against re-measured speedup.
    const auto claims = analyzeClaims(data.records->records);
    bool anyDrawn = false;
    for (const auto& c : claims) anyDrawn = anyDrawn || (c.claimed && c.reMeasured);
    if (!anyDrawn) {
        result.skipped << QObject::tr("claims_scatter: no record has both a claimed and a re-measured speedup");
    } else {
        writeBoth(Figure(QObject::tr("Claimed against re-measured speedup"),
                      [&](QPainter& p, const QRectF& r, const FigureStyle& s) { paintClaimsScatter(p, r, claims, s); }),
            dir, QStringLiteral("claims_scatter"), 2.4, 4.0, result);
    }
    return result;
}

} // namespace kwb::ui
