#include "export/figure_preset.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "resources_init.h"

namespace kwb::ui {

QList<FigurePreset> parseFigurePresets(const QByteArray& json, const QString& source, QString* error)
{
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &perr);
    if (perr.error != QJsonParseError::NoError) {
        *error = source + QLatin1String(": offset ") + QString::number(perr.offset) + QLatin1String(": ") +
                 perr.errorString();
        return {};
    }
    const QJsonObject root = doc.object();
    if (root.value(QLatin1String("schema")).toString() != QLatin1String("kwb.figure_presets/1")) {
        *error = source + QLatin1String(": schema is not kwb.figure_presets/1");
        return {};
    }
    QList<FigurePreset> out;
    const QJsonArray presets = root.value(QLatin1String("presets")).toArray();
    for (qsizetype i = 0; i < presets.size(); ++i) {
        const QJsonObject o = presets[i].toObject();
        FigurePreset p;
        p.name = o.value(QLatin1String("name")).toString();
        p.description = o.value(QLatin1String("description")).toString();
        p.widthIn = o.value(QLatin1String("width_in")).toDouble(p.widthIn);
        p.heightIn = o.value(QLatin1String("height_in")).toDouble(p.heightIn);
        p.fontPt = o.value(QLatin1String("font_pt")).toDouble(p.fontPt);
        p.titlePt = o.value(QLatin1String("title_pt")).toDouble(p.titlePt);
        p.lineWidthPt = o.value(QLatin1String("line_width_pt")).toDouble(p.lineWidthPt);
        p.dpi = o.value(QLatin1String("dpi")).toInt(p.dpi);
        if (p.name.isEmpty() || p.widthIn <= 0 || p.heightIn <= 0 || p.fontPt <= 0 || p.dpi < 36 || p.dpi > 2400) {
            *error = source + QLatin1String(": presets[") + QString::number(i) +
                     QLatin1String("]: needs a name, positive sizes and a dpi in 36..2400");
            return {};
        }
        out.append(p);
    }
    return out;
}

const QList<FigurePreset>& figurePresets()
{
    static const QList<FigurePreset> presets = [] {
        initKwbResources();
        QFile f(QStringLiteral(":/kwb/figure_presets.json"));
        QString error;
        QList<FigurePreset> list;
        if (f.open(QIODevice::ReadOnly)) list = parseFigurePresets(f.readAll(), f.fileName(), &error);
        if (list.isEmpty()) {
            // The resource is compiled in; this only guards against a broken edit.
            FigurePreset single;
            single.name = QStringLiteral("single-column");
            list.append(single);
        }
        return list;
    }();
    return presets;
}

std::optional<FigurePreset> findFigurePreset(const QString& name)
{
    for (const auto& p : figurePresets())
        if (p.name == name) return p;
    return std::nullopt;
}

QStringList figurePresetNames()
{
    QStringList names;
    for (const auto& p : figurePresets()) names << p.name;
    return names;
}

} // namespace kwb::ui
