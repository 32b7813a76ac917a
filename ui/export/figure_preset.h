#pragma once
// Paper figure presets (resources/figure_presets.json, docs/formats.md
// "Figure presets"): physical size, font sizes, line width, raster DPI.
#include <QList>
#include <QSizeF>
#include <QString>

#include <optional>

#include "charts/figure_style.h"

namespace kwb::ui {

struct FigurePreset {
    QString name;
    QString description;
    double widthIn = 3.5;
    double heightIn = 2.6;
    double fontPt = 8;
    double titlePt = 9;
    double lineWidthPt = 1.0;
    int dpi = 300;

    FigureStyle style() const { return FigureStyle::fromPoints(fontPt, titlePt, lineWidthPt); }
    // The figure in layout pixels (kLayoutDpi).
    QSizeF layoutSize() const { return {widthIn * kLayoutDpi, heightIn * kLayoutDpi}; }
};

// Parses the presets file; on error returns an empty list and sets *error.
QList<FigurePreset> parseFigurePresets(const QByteArray& json, const QString& source, QString* error);
// The presets shipped in resources (single-column, double-column, ...).
const QList<FigurePreset>& figurePresets();
std::optional<FigurePreset> findFigurePreset(const QString& name);
QStringList figurePresetNames();

} // namespace kwb::ui
