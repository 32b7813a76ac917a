#pragma once
// Golden files: expected outputs committed under tests/data/golden/, compared
// byte for byte. With KWB_REGENERATE_GOLDENS=1 in the environment a test
// writes what it produced instead of comparing (then review `git diff`).
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"

namespace kwbtest {

inline bool regeneratingGoldens()
{
    return qEnvironmentVariableIntValue("KWB_REGENERATE_GOLDENS") == 1;
}

inline std::string goldenPath(const std::string& relative)
{
    return std::string(KWB_TEST_DATA_DIR) + "/golden/" + relative;
}

inline bool readWholeFile(const std::string& path, std::string& out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    out = s.str();
    return true;
}

// "line L: expected <...> got <...>" for the first line that differs, so a
// failure says where the contract moved without printing megabytes.
inline std::string firstDifference(const std::string& expected, const std::string& actual)
{
    std::size_t line = 1;
    std::size_t start = 0;
    for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
        if (expected[i] != actual[i]) {
            // A window around the difference: lines can be kilobytes long.
            const std::size_t from = std::max(start, i > 80 ? i - 80 : std::size_t {0});
            const auto around = [&](const std::string& s) {
                std::string w = s.substr(from, 200);
                if (const auto nl = w.find('\n'); nl != std::string::npos) w.resize(nl);
                return w;
            };
            return "line " + std::to_string(line) + ", column " + std::to_string(i - start + 1) + " (shown from column "
                + std::to_string(from - start + 1) + "):\n  golden:   " + around(expected)
                + "\n  produced: " + around(actual);
        }
        if (expected[i] == '\n') {
            ++line;
            start = i + 1;
        }
    }
    return "one is a prefix of the other (golden " + std::to_string(expected.size()) + " bytes, produced "
        + std::to_string(actual.size()) + " bytes)";
}

// Compares `actual` with the golden file `relative` under tests/data/golden/,
// or rewrites that file when regenerating. Returns what went wrong, empty when
// nothing did.
inline std::string checkGolden(const std::string& relative, const std::string& actual)
{
    const std::string file = goldenPath(relative);
    if (regeneratingGoldens()) {
        std::filesystem::create_directories(std::filesystem::path(file).parent_path());
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out << actual;
        if (!out.good()) return "cannot write " + file;
        qInfo("regenerated %s", file.c_str());
        return {};
    }
    std::string expected;
    if (!readWholeFile(file, expected)) return "missing golden file " + file + " (KWB_REGENERATE_GOLDENS=1 writes it)";
    if (expected != actual) return file + " differs at " + firstDifference(expected, actual);
    return {};
}

} // namespace kwbtest

#define KWB_COMPARE_GOLDEN(relative, actual)                                                                           \
    do {                                                                                                               \
        const std::string kwbGoldenError_ = kwbtest::checkGolden((relative), (actual));                                \
        QVERIFY2(kwbGoldenError_.empty(), kwbGoldenError_.c_str());                                                    \
    } while (0)
