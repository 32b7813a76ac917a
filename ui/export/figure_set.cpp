#include "export/figure_set.h"

#include <QDir>

#include <algorithm>

#include "charts/distribution_chart.h"
#include "charts/heatmap_renderer.h"
#include "charts/workload_charts.h"
#include "export/figure_exporter.h"
#include "models/suspicious_model.h"

namespace kwb::ui {

namespace {

class DistributionFigure final : public FigureSource {
public:
    DistributionFigure(const DistributionData& d, const LogHistogram& h, DistributionKind k)
        : m_data(d), m_hist(h), m_kind(k) {}
    QString figureTitle() const override { return QObject::tr("Speedup distribution: ") + distributionKindTitle(m_kind); }
    void paintFigure(QPainter& p, const QRectF& rect, const FigureStyle& style) const override
    {
        paintChart(p, rect, buildDistributionChart(m_data, m_hist, m_kind, style, static_cast<int>(rect.width())));
    }

private:
    const DistributionData& m_data;
    const LogHistogram& m_hist;
    DistributionKind m_kind;
};

class PiesFigure final : public FigureSource {
public:
    explicit PiesFigure(const std::vector<WorkloadSummary>& w) : m_workloads(w) {}
    QString figureTitle() const override { return QObject::tr("GPU time by kernel category per workload"); }
    void paintFigure(QPainter& p, const QRectF& rect, const FigureStyle& style) const override
    {
        paintWorkloadPies(p, rect, m_workloads, style);
    }

private:
    const std::vector<WorkloadSummary>& m_workloads;
};

class HeatmapFigure final : public FigureSource {
public:
    explicit HeatmapFigure(const HeatmapData& d) : m_data(d) {}
    QString figureTitle() const override { return m_data.title; }
    void paintFigure(QPainter& p, const QRectF& rect, const FigureStyle& style) const override
    {
        paintHeatmap(p, rect, m_data, {}, style);
    }

private:
    const HeatmapData& m_data;
};

void writeAll(const FigureSource& source, const FigurePreset& preset, const QString& base, FigureSetResult& result)
{
    for (auto f : {FigureFormat::Pdf, FigureFormat::Svg, FigureFormat::Png}) {
        const QString path = base + QLatin1Char('.') + figureFormatSuffix(f);
        QString error;
        if (exportFigure(source, preset, f, path, &error)) result.written << path;
        else result.errors << error;
    }
}

} // namespace

int heatmapRecord(const ProjectData& data)
{
    auto varied = [&data](int i) {
        const auto& v = data.records->records[static_cast<std::size_t>(i)].verification.coverage->grid.writtenFraction;
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        return lo != v.end() && *hi - *lo > 0.05f;
    };
    for (int i : data.suspicious)
        if ((*data.rows)[static_cast<std::size_t>(i)].hasGrid && varied(i)) return i;
    for (int i : data.suspicious)
        if ((*data.rows)[static_cast<std::size_t>(i)].hasGrid) return i;
    for (std::size_t i = 0; i < data.rows->size(); ++i)
        if ((*data.rows)[i].hasGrid) return static_cast<int>(i);
    return -1;
}

FigureSetResult renderStandardFigures(const ProjectData& data, const FigurePreset& preset, const QString& outDir,
    const QString& heatmapRecordId)
{
    FigureSetResult result;
    if (!QDir().mkpath(outDir)) {
        result.errors << outDir + QLatin1String(": cannot create the folder");
        return result;
    }
    const QDir dir(outDir);

    const DistributionData dist = computeDistribution(*data.records, data.project.figures.groupBy);
    const LogHistogram hist = computeLogHistogram(dist);
    if (dist.empty()) {
        result.skipped << QObject::tr("speedup distributions: no correct, timed records");
    } else {
        for (auto k : {DistributionKind::Histogram, DistributionKind::Ecdf, DistributionKind::FastP,
                 DistributionKind::Box})
            writeAll(DistributionFigure(dist, hist, k), preset,
                dir.filePath(QStringLiteral("speedup_") + distributionKindName(k)), result);
    }

    if (data.workloads.empty()) {
        result.skipped << (data.tracesSupported ? QObject::tr("addressable-fraction pies: no profiler traces loaded")
                                                : QObject::tr("addressable-fraction pies: this build reads no traces"));
    } else {
        writeAll(PiesFigure(data.workloads), preset, dir.filePath(QStringLiteral("addressable_pies")), result);
    }

    int rec = heatmapRecordId.isEmpty() ? heatmapRecord(data) : -1;
    if (!heatmapRecordId.isEmpty()) {
        for (std::size_t i = 0; i < data.rows->size(); ++i)
            if ((*data.rows)[i].id == heatmapRecordId && (*data.rows)[i].hasGrid) rec = static_cast<int>(i);
        if (rec < 0) result.errors << QObject::tr("%1: no such record with a coverage grid").arg(heatmapRecordId);
    }
    if (rec < 0) {
        if (heatmapRecordId.isEmpty()) result.skipped << QObject::tr("coverage heatmap: no record has a coverage grid");
    } else {
        const EvalRecord& r = data.records->records[static_cast<std::size_t>(rec)];
        const HeatmapData heat = makeHeatmap(r.verification.coverage->grid, r.verification.coverage,
            QObject::tr("Coverage of %1").arg(QString::fromStdString(r.id)));
        if (heat.isNull()) result.skipped << QObject::tr("coverage heatmap: the grid of %1 is malformed").arg(QString::fromStdString(r.id));
        else writeAll(HeatmapFigure(heat), preset, dir.filePath(QStringLiteral("coverage_heatmap")), result);
    }
    return result;
}

} // namespace kwb::ui
