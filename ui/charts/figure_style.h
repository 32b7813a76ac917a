#pragma once
// How a figure looks: fonts, line widths and the colour-blind-safe palette.
// Every view lays out figures in "layout pixels" at kLayoutDpi; exporters
// scale that to the device (PDF points, SVG user units, PNG pixels), so the
// screen, PDF, SVG and PNG show the same picture.
#include <QColor>
#include <QFont>
#include <QList>

namespace kwb::ui {

inline constexpr double kLayoutDpi = 96.0;

// Okabe & Ito (2008), "Color Universal Design": distinguishable under the
// common colour-vision deficiencies. Ordered for lines and bars (blue first,
// yellow last: it is weak on white).
const QList<QColor>& okabeItoPalette();
// 256-entry viridis (perceptually uniform, colour-blind safe) for heatmaps.
const QList<QRgb>& viridisTable();

struct FigureStyle {
    QFont font;      // tick labels, legend
    QFont titleFont; // chart and axis titles
    double lineWidth = 1.5; // layout pixels
    QList<QColor> palette = okabeItoPalette();
    QColor background = Qt::white;
    QColor foreground = Qt::black;
    QColor grid = QColor(0xDD, 0xDD, 0xDD);
    bool interactive = false; // screen: hover markers etc.

    QColor color(int i) const { return palette.isEmpty() ? foreground : palette[i % palette.size()]; }

    // Fonts from point sizes, expressed in layout pixels so that layout does
    // not depend on the screen's DPI.
    static FigureStyle fromPoints(double fontPt, double titlePt, double lineWidthPt);
    static FigureStyle screen();

    // Serif figure text (DejaVu Serif) to sit beside a LaTeX paper's body text;
    // sans serif (DejaVu Sans) by default. Process-wide; main thread.
    static void setSerif(bool serif);
    static bool serif();
};

} // namespace kwb::ui
