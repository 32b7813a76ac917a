// Imports pinned as native JSON Lines: the KernelBench eval_results.json of both
// shapes (tests/data) and the leaderboard's raw_data.json (../shared/data),
// written by the native writer and compared byte for byte with
// tests/data/golden/import/. Files are named by relative labels so the goldens
// do not depend on where the checkout lives. KWB_REGENERATE_GOLDENS=1 rewrites
// them (tests/data/golden/README.md).
#include <QtTest>

#include <cstdio>

#include "golden_util.h"
#include "records/kernelbench_importer.h"
#include "records/leaderboard_importer.h"
#include "records/native_reader.h"
#include "records/native_writer.h"

using namespace kwb;

namespace {

std::string jsonLines(const std::vector<EvalRecord>& records)
{
    std::string out;
    for (const auto& r : records) out += recordToJsonLine(r);
    return out;
}

// FNV-1a, 64 bits: a stable digest that needs no library.
std::uint64_t fnv1a(std::string_view s)
{
    std::uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

// The leaderboard's kernel sources stay in ../shared/data: the golden holds
// their length and digest in their place, which pins them as well.
void replaceCodeByDigest(std::vector<EvalRecord>& records)
{
    for (auto& r : records) {
        if (r.source.code.empty()) continue;
        char digest[64];
        std::snprintf(digest, sizeof digest, "<%zu bytes, fnv1a64 %016llx>", r.source.code.size(),
            static_cast<unsigned long long>(fnv1a(r.source.code)));
        r.source.code = digest;
    }
}

std::string readOrFail(const std::string& path)
{
    std::string text;
    if (!kwbtest::readWholeFile(path, text)) qFatal("cannot read %s", path.c_str());
    return text;
}

} // namespace

class TestGoldenImports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kernelBenchEval_data();
    void kernelBenchEval();
    void leaderboard();
};

void TestGoldenImports::kernelBenchEval_data()
{
    QTest::addColumn<QString>("run");
    QTest::addColumn<int>("records");
    QTest::addRow("v0 shape (one sample per problem)") << QStringLiteral("level1_v0_run") << 6;
    QTest::addRow("samples shape (a list per problem)") << QStringLiteral("level2_samples_run") << 5;
}

void TestGoldenImports::kernelBenchEval()
{
    QFETCH(QString, run);
    QFETCH(int, records);
    const std::string label = "kernelbench/runs/" + run.toStdString() + "/eval_results.json";
    const RecordSet set = importKernelBenchEval(readOrFail(kwbtest::testData(label.c_str())), label, {});
    QCOMPARE(set.failedFileCount(), std::size_t {0});
    QCOMPARE(int(set.records.size()), records);
    const std::string lines = jsonLines(set.records);
    KWB_COMPARE_GOLDEN("import/kernelbench_" + run.toStdString() + ".jsonl", lines);

    // The native reader takes back what the writer wrote.
    const RecordSet back = parseNativeRecords(lines, "golden.jsonl");
    QCOMPARE(back.badRecordCount(), std::size_t {0});
    QCOMPARE(jsonLines(back.records), lines);
}

void TestGoldenImports::leaderboard()
{
    KWB_REQUIRE_SHARED_DATA();
    const std::string label = "kernelbench/leaderboard/raw_data.json";
    RecordSet set = importLeaderboard(readOrFail(kwbtest::sharedData(label.c_str())), label);
    QCOMPARE(set.failedFileCount(), std::size_t {0});
    QCOMPARE(set.records.size(), std::size_t {413});
    replaceCodeByDigest(set.records);
    KWB_COMPARE_GOLDEN("import/leaderboard.jsonl", jsonLines(set.records));
}

QTEST_GUILESS_MAIN(TestGoldenImports)
#include "tst_golden_imports.moc"
