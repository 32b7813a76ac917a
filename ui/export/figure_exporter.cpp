#include "export/figure_exporter.h"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <cmath>

namespace kwb::ui {

QString figureFormatSuffix(FigureFormat format)
{
    switch (format) {
    case FigureFormat::Pdf: return QStringLiteral("pdf");
    case FigureFormat::Svg: return QStringLiteral("svg");
    case FigureFormat::Png: return QStringLiteral("png");
    }
    return {};
}

std::optional<FigureFormat> figureFormatFromPath(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    for (auto f : {FigureFormat::Pdf, FigureFormat::Svg, FigureFormat::Png})
        if (figureFormatSuffix(f) == suffix) return f;
    return std::nullopt;
}

namespace {

void paintScaled(QPainter& painter, const FigureSource& source, const FigurePreset& preset, double scale)
{
    const QSizeF layout = preset.layoutSize();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    painter.scale(scale, scale);
    const FigureStyle style = preset.style();
    painter.fillRect(QRectF(QPointF(0, 0), layout), style.background);
    source.paintFigure(painter, QRectF(QPointF(0, 0), layout), style);
}

} // namespace

bool exportFigure(const FigureSource& source, const FigurePreset& preset, FigureFormat format, const QString& path,
    QString* error)
{
    const QSizeF layout = preset.layoutSize();
    switch (format) {
    case FigureFormat::Pdf: {
        QPdfWriter pdf(path);
        pdf.setCreator(QStringLiteral("Kernel Workbench"));
        pdf.setTitle(source.figureTitle());
        pdf.setResolution(preset.dpi);
        pdf.setPageSize(QPageSize(QSizeF(preset.widthIn, preset.heightIn), QPageSize::Inch,
            QStringLiteral("figure"), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter;
        if (!painter.begin(&pdf)) {
            *error = path + QLatin1String(": cannot write PDF");
            return false;
        }
        paintScaled(painter, source, preset, pdf.width() / layout.width());
        painter.end();
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setTitle(source.figureTitle());
        svg.setDescription(QStringLiteral("Kernel Workbench figure, preset ") + preset.name);
        // User units are layout pixels; the physical size follows from the resolution.
        svg.setResolution(static_cast<int>(kLayoutDpi));
        svg.setSize(layout.toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), layout));
        QPainter painter;
        if (!painter.begin(&svg)) {
            *error = path + QLatin1String(": cannot write SVG");
            return false;
        }
        paintScaled(painter, source, preset, 1.0);
        painter.end();
        break;
    }
    case FigureFormat::Png: {
        const int w = static_cast<int>(std::lround(preset.widthIn * preset.dpi));
        const int h = static_cast<int>(std::lround(preset.heightIn * preset.dpi));
        QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
        const int dpm = static_cast<int>(std::lround(preset.dpi / 0.0254));
        image.setDotsPerMeterX(dpm);
        image.setDotsPerMeterY(dpm);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            paintScaled(painter, source, preset, w / layout.width());
        }
        if (!image.convertToFormat(QImage::Format_RGB32).save(path, "PNG")) {
            *error = path + QLatin1String(": cannot write PNG");
            return false;
        }
        break;
    }
    }
    if (!QFileInfo(path).isFile() || QFileInfo(path).size() == 0) {
        *error = path + QLatin1String(": nothing was written");
        return false;
    }
    return true;
}

} // namespace kwb::ui
