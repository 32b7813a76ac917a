#pragma once
// Writes a figure as PDF (QPdfWriter), SVG (QSvgGenerator) or PNG (QImage):
// the source paints once into a rectangle of layout pixels and the painter is
// scaled to the device, so the three files show the same picture.
#include <QRectF>
#include <QString>

#include <optional>

#include "export/figure_preset.h"

class QPainter;

namespace kwb::ui {

// Anything that draws a figure: views, and `kwb figures` without views.
class FigureSource {
public:
    virtual ~FigureSource() = default;
    virtual QString figureTitle() const = 0;
    // Paints the figure into rect (layout pixels at kLayoutDpi).
    virtual void paintFigure(QPainter& painter, const QRectF& rect, const FigureStyle& style) const = 0;
};

enum class FigureFormat { Pdf, Svg, Png };

QString figureFormatSuffix(FigureFormat format); // "pdf", "svg", "png"
std::optional<FigureFormat> figureFormatFromPath(const QString& path);

// Returns false and sets *error ("FILE: reason") when the file cannot be written.
bool exportFigure(const FigureSource& source, const FigurePreset& preset, FigureFormat format, const QString& path,
    QString* error);

} // namespace kwb::ui
