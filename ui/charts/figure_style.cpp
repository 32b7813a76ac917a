#include "charts/figure_style.h"

#include <QFontDatabase>

#include <algorithm>
#include <cmath>

namespace kwb::ui {

const QList<QColor>& okabeItoPalette()
{
    static const QList<QColor> palette{
        QColor(0x00, 0x72, 0xB2), // blue
        QColor(0xE6, 0x9F, 0x00), // orange
        QColor(0x00, 0x9E, 0x73), // bluish green
        QColor(0xD5, 0x5E, 0x00), // vermillion
        QColor(0xCC, 0x79, 0xA7), // reddish purple
        QColor(0x56, 0xB4, 0xE9), // sky blue
        QColor(0xF0, 0xE4, 0x42), // yellow
        QColor(0x00, 0x00, 0x00), // black
    };
    return palette;
}

const QList<QRgb>& viridisTable()
{
    // Polynomial fit of matplotlib's viridis (max error well under one 8-bit step).
    static const QList<QRgb> table = [] {
        const double c[7][3] = {{0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
            {0.1050930431085774, 1.404613529898575, 1.384590162594685},
            {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
            {-4.634230498983486, -5.799100973351585, -19.33244095627987},
            {6.228269936347081, 14.17993336680509, 56.69055260068105},
            {4.776384997670288, -13.74514537774601, -65.35303263337234},
            {-5.435455855934631, 4.645852612178535, 26.3124352495832}};
        QList<QRgb> t;
        t.reserve(256);
        for (int i = 0; i < 256; ++i) {
            const double x = i / 255.0;
            int rgb[3];
            for (int k = 0; k < 3; ++k) {
                double v = c[6][k];
                for (int j = 5; j >= 0; --j) v = c[j][k] + x * v;
                rgb[k] = static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
            }
            t.push_back(qRgb(rgb[0], rgb[1], rgb[2]));
        }
        return t;
    }();
    return table;
}

namespace {
bool g_serif = false;
} // namespace

void FigureStyle::setSerif(bool serif)
{
    g_serif = serif;
}

bool FigureStyle::serif()
{
    return g_serif;
}

FigureStyle FigureStyle::fromPoints(double fontPt, double titlePt, double lineWidthPt)
{
    FigureStyle s;
    QFont base(g_serif ? QStringLiteral("DejaVu Serif") : QStringLiteral("DejaVu Sans"));
    base.setStyleHint(g_serif ? QFont::Serif : QFont::SansSerif);
    s.font = base;
    s.font.setPixelSize(std::max(1, static_cast<int>(std::lround(fontPt * kLayoutDpi / 72.0))));
    s.titleFont = base;
    s.titleFont.setPixelSize(std::max(1, static_cast<int>(std::lround(titlePt * kLayoutDpi / 72.0))));
    s.titleFont.setBold(true);
    s.lineWidth = lineWidthPt * kLayoutDpi / 72.0;
    return s;
}

FigureStyle FigureStyle::screen()
{
    FigureStyle s = fromPoints(9, 10, 1.2);
    s.interactive = true;
    return s;
}

} // namespace kwb::ui
