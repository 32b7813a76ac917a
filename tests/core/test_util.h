#pragma once
// Helpers shared by the core tests.
#include <QString>
#include <QtTest>

#include <string>

namespace kwbtest {

inline std::string testData(const char* relative)
{
    return std::string(KWB_TEST_DATA_DIR) + "/" + relative;
}

inline std::string sharedData(const char* relative)
{
    return std::string(KWB_SHARED_DATA_DIR) + "/" + relative;
}

inline bool hasSharedData()
{
    return QFileInfo::exists(QString::fromStdString(sharedData("kernelbench/leaderboard/raw_data.json")));
}

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace kwbtest

// ../shared/data is read in place; a checkout without it skips with the reason.
#define KWB_REQUIRE_SHARED_DATA()                                                                 \
    do {                                                                                          \
        if (!kwbtest::hasSharedData())                                                            \
            QSKIP("../shared/data is not beside this checkout (set KWB_SHARED_DATA_DIR at configure)"); \
    } while (0)
