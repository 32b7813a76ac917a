#pragma once
// Helpers shared by the ui tests.
#include <QColor>
#include <QImage>
#include <QCoreApplication>
#include <QSettings>
#include <QString>
#include <QTemporaryDir>
#include <QtTest>

#include <string>

#include "project/project_data.h"
#include "records/record_loader.h"

namespace kwbuitest {

// Keeps a test's settings (recent files, the KernelBench checkout) out of the
// user's configuration: a private, temporary XDG_CONFIG_HOME (Qt's test mode
// would still write below the home folder) and an organisation of its own.
// Call first in initTestCase(), before anything opens QSettings; returns the folder.
inline QString isolateSettings(const char* application)
{
    static QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(config.path()));
    QCoreApplication::setOrganizationName(QStringLiteral("KernelWorkbenchTests"));
    QCoreApplication::setApplicationName(QLatin1String(application));
    return config.path();
}

inline QString testData(const char* relative)
{
    return QStringLiteral(KWB_TEST_DATA_DIR "/") + QLatin1String(relative);
}

inline QString leaderboardPath()
{
    return QStringLiteral(KWB_SHARED_DATA_DIR "/kernelbench/leaderboard/raw_data.json");
}

inline bool hasLeaderboard()
{
    return QFileInfo::exists(leaderboardPath());
}

inline kwb::ui::ProjectDataPtr loadRecords(const QStringList& files)
{
    std::vector<std::string> paths;
    for (const auto& f : files) paths.push_back(f.toStdString());
    return kwb::ui::makeProjectData(kwb::loadRecordFiles(paths));
}

// Pixels within `tolerance` of a colour (per channel).
inline int countColor(const QImage& image, QColor c, int tolerance = 12)
{
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = 0; y < img.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
        for (int x = 0; x < img.width(); ++x) {
            if (std::abs(qRed(line[x]) - c.red()) <= tolerance && std::abs(qGreen(line[x]) - c.green()) <= tolerance &&
                std::abs(qBlue(line[x]) - c.blue()) <= tolerance)
                ++n;
        }
    }
    return n;
}

// Pixels that are not (near) white: something was drawn.
inline int inkPixels(const QImage& image)
{
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = 0; y < img.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
        for (int x = 0; x < img.width(); ++x)
            if (qRed(line[x]) < 235 || qGreen(line[x]) < 235 || qBlue(line[x]) < 235) ++n;
    }
    return n;
}

} // namespace kwbuitest

#define KWB_REQUIRE_LEADERBOARD()                                                                   \
    do {                                                                                            \
        if (!kwbuitest::hasLeaderboard())                                                           \
            QSKIP("../shared/data is not beside this checkout (set KWB_SHARED_DATA_DIR at configure)"); \
    } while (0)
