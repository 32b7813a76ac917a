// Shards of a batch (`kwb verify --shard I/N`) and their merge: the N slices
// of a real record set are disjoint and cover it, a record's shard depends on
// its id alone, and merging the parts gives the records in input order,
// refusing parts that overlap, miss records or hold strangers.
#include <QtTest>

#include <fstream>
#include <random>
#include <set>

#include "records/eval_record.h"
#include "records/native_writer.h"
#include "test_util.h"
#include "workbench/shard.h"

using namespace kwb;
using kwbtest::qs;

namespace {

void writeText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string readText(const std::string& path)
{
    QFile f(qs(path));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll().toStdString();
}

std::vector<RecordLine> linesOf(const std::vector<std::string>& ids)
{
    std::vector<RecordLine> lines;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        EvalRecord r;
        r.id = ids[i];
        r.model = "m";
        std::string line = recordToJsonLine(r);
        line.pop_back(); // the '\n'
        lines.push_back({ids[i], line, static_cast<std::int64_t>(i + 1)});
    }
    return lines;
}

std::vector<ShardPart> split(const std::vector<RecordLine>& lines, std::uint32_t n)
{
    std::vector<ShardPart> parts(n);
    for (std::uint32_t i = 0; i < n; ++i) parts[i].path = "part-" + std::to_string(i) + ".jsonl";
    for (const auto& l : lines) parts[shardOf(l.id, n)].lines.push_back(l);
    return parts;
}

} // namespace

class TestShard : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesSpecs_data();
    void parsesSpecs();
    void hashIsPinned();
    void shardsPartitionRealRecords_data();
    void shardsPartitionRealRecords();
    void mergeRestoresInputOrder();
    void mergeRefusesBadParts();
    void readsLinesAndNamesBadOnes();
    void sortsAFileOnlyWhenNeeded();

private:
    QTemporaryDir m_dir;
};

void TestShard::parsesSpecs_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("index");  // -1: refused
    QTest::addColumn<int>("count");
    QTest::addColumn<QString>("reason");
    QTest::addRow("first") << "0/4" << 0 << 4 << "";
    QTest::addRow("last") << "3/4" << 3 << 4 << "";
    QTest::addRow("single") << "0/1" << 0 << 1 << "";
    QTest::addRow("index too big") << "4/4" << -1 << 0 << "counted from 0";
    QTest::addRow("zero count") << "0/0" << -1 << 0 << "between 1 and";
    QTest::addRow("huge count") << "0/100001" << -1 << 0 << "between 1 and";
    QTest::addRow("no slash") << "3" << -1 << 0 << "is not I/N";
    QTest::addRow("negative") << "-1/4" << -1 << 0 << "is not I/N";
    QTest::addRow("junk") << "1/4x" << -1 << 0 << "is not I/N";
    QTest::addRow("empty index") << "/4" << -1 << 0 << "is not I/N";
}

void TestShard::parsesSpecs()
{
    QFETCH(QString, text);
    QFETCH(int, index);
    QFETCH(int, count);
    QFETCH(QString, reason);
    auto s = parseShardSpec(text.toStdString());
    if (index < 0) {
        QVERIFY(!s);
        QVERIFY2(qs(s.status().message()).contains(reason), s.status().message().c_str());
        QVERIFY(qs(s.status().message()).contains(text)); // names what was given
        return;
    }
    QVERIFY2(s, s.status().message().c_str());
    QCOMPARE(s->index, static_cast<std::uint32_t>(index));
    QCOMPARE(s->count, static_cast<std::uint32_t>(count));
    QCOMPARE(qs(shardSpecText(*s)), text);
}

void TestShard::hashIsPinned()
{
    // Arrays in flight and resumed shards depend on these values never changing.
    QCOMPARE(recordIdHash(""), 0xcbf29ce484222325ull);
    QCOMPARE(recordIdHash("a"), 0xaf63dc4c8601ec8cull);
    QCOMPARE(recordIdHash("foobar"), 0x85944171f73967e8ull);
    QCOMPARE(shardOf("anything", 1), 0u);
    QCOMPARE(shardOf("a", 7), static_cast<std::uint32_t>(0xaf63dc4c8601ec8cull % 7));
}

void TestShard::shardsPartitionRealRecords_data()
{
    QTest::addColumn<int>("count");
    for (int n : {1, 2, 3, 8, 64, 413, 1000}) QTest::addRow("%d shards", n) << n;
}

void TestShard::shardsPartitionRealRecords()
{
    KWB_REQUIRE_SHARED_DATA();
    QFETCH(int, count);
    auto order = inputRecordOrder({kwbtest::sharedData("kernelbench/leaderboard/raw_data.json")});
    QVERIFY2(order, order.status().toString().c_str());
    QCOMPARE(order->size(), std::size_t{413});
    std::multiset<std::string> all;
    std::vector<std::size_t> sizes(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const ShardSpec s{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(count)};
        for (const auto& id : *order)
            if (inShard(id, s)) {
                all.insert(id);
                ++sizes[static_cast<std::size_t>(i)];
            }
    }
    // Union is the whole set, no record twice.
    QCOMPARE(all.size(), order->size());
    QCOMPARE(std::set<std::string>(all.begin(), all.end()), std::set<std::string>(order->begin(), order->end()));
    // Balance: binomial, so within a few standard deviations of n/N.
    if (count > 1 && count <= 64) {
        const double mean = 413.0 / count;
        const double sd = std::sqrt(mean * (1.0 - 1.0 / count));
        for (auto n : sizes) QVERIFY2(std::fabs(double(n) - mean) < 4.5 * sd + 1, qPrintable(QString::number(n)));
    }
    // Input order is file order with first occurrences only: loading twice changes nothing.
    auto twice = inputRecordOrder({kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"),
        kwbtest::sharedData("kernelbench/leaderboard/raw_data.json")});
    QVERIFY(twice);
    QCOMPARE(*twice, *order);
}

void TestShard::mergeRestoresInputOrder()
{
    std::vector<std::string> ids;
    for (int i = 0; i < 200; ++i) ids.push_back("rec-" + std::to_string((i * 37) % 200));
    const auto lines = linesOf(ids);
    std::string whole;
    for (const auto& l : lines) whole += l.text + "\n";
    for (std::uint32_t n : {1u, 2u, 5u, 8u}) {
        auto parts = split(lines, n);
        // Parts written in completion order: shuffled within each part.
        std::mt19937 rng(n);
        for (auto& p : parts) std::shuffle(p.lines.begin(), p.lines.end(), rng);
        auto merged = mergeShardParts(ids, parts);
        QVERIFY2(merged, merged.status().toString().c_str());
        QCOMPARE(*merged, whole);
    }
    // An empty shard is a part with no lines, not a missing one.
    auto parts = split(linesOf({"only"}), 4);
    auto merged = mergeShardParts({"only"}, parts);
    QVERIFY(merged);
    QCOMPARE(*merged, linesOf({"only"})[0].text + "\n");
}

void TestShard::mergeRefusesBadParts()
{
    std::vector<std::string> ids;
    for (int i = 0; i < 40; ++i) ids.push_back("r" + std::to_string(i));
    const auto lines = linesOf(ids);
    auto parts = split(lines, 4);

    auto missing = parts;
    const std::string lost = missing[2].lines.back().id;
    missing[2].lines.pop_back();
    auto r = mergeShardParts(ids, missing);
    QVERIFY(!r);
    QVERIFY2(qs(r.status().message()).contains(QStringLiteral("part-2.jsonl lacks 1")), r.status().message().c_str());
    QVERIFY(qs(r.status().message()).contains(qs("'" + lost + "'")));

    auto twice = parts;
    twice[1].lines.push_back(twice[1].lines.front());
    twice[1].lines.back().line = 99;
    r = mergeShardParts(ids, twice);
    QVERIFY(!r);
    QVERIFY2(qs(r.status().toString()).contains(QStringLiteral("part-1.jsonl:99:1")), r.status().toString().c_str());
    QVERIFY(qs(r.status().message()).contains(QStringLiteral("appears twice")));

    auto wrong = parts;
    wrong[0].lines.push_back(wrong[3].lines.back());
    wrong[3].lines.pop_back();
    r = mergeShardParts(ids, wrong);
    QVERIFY(!r);
    QVERIFY2(qs(r.status().message()).contains(QStringLiteral("belongs to shard 3 of 4, not to shard 0")), r.status().message().c_str());

    auto stranger = parts;
    auto extra = linesOf({"not-an-input"});
    stranger[shardOf("not-an-input", 4)].lines.push_back(extra[0]);
    r = mergeShardParts(ids, stranger);
    QVERIFY(!r);
    QVERIFY(qs(r.status().message()).contains(QStringLiteral("'not-an-input' is not one of the input records")));
}

void TestShard::readsLinesAndNamesBadOnes()
{
    const std::string path = m_dir.filePath(QStringLiteral("lines.jsonl")).toStdString();
    writeText(path, "{\"schema\":\"kwb.record/1\",\"id\":\"a\"}\n\n{\"id\":\"b\",\"x\":[1]}\n");
    auto lines = readRecordLines(path);
    QVERIFY2(lines, lines.status().toString().c_str());
    QCOMPARE(lines->size(), std::size_t{2});
    QCOMPARE(qs(lines->at(1).id), QStringLiteral("b"));
    QCOMPARE(lines->at(1).line, std::int64_t{3});
    QCOMPARE(qs(lines->at(1).text), QStringLiteral("{\"id\":\"b\",\"x\":[1]}"));

    writeText(path, "{\"id\":\"a\"}\n{\"id\":\"b\"");
    auto cut = readRecordLines(path);
    QVERIFY(!cut);
    QVERIFY2(qs(cut.status().toString()).startsWith(qs(path + ":2:1: ")), cut.status().toString().c_str());
    QVERIFY(qs(cut.status().message()).contains(QStringLiteral("incomplete")));

    writeText(path, "{\"id\":\"a\"}\n{\"id\":7}\n");
    auto noId = readRecordLines(path);
    QVERIFY(!noId);
    QVERIFY2(qs(noId.status().toString()).startsWith(qs(path + ":2:1: [id]")), noId.status().toString().c_str());

    auto absent = readRecordLines(path + ".nope");
    QVERIFY(!absent);
    QVERIFY(qs(absent.status().toString()).contains(qs(path + ".nope")));
}

void TestShard::sortsAFileOnlyWhenNeeded()
{
    const std::string path = m_dir.filePath(QStringLiteral("sorted.jsonl")).toStdString();
    const auto lines = linesOf({"c", "a", "zzz", "b"});
    // Written in completion order: b, zzz (not in the order), a, c.
    writeText(path, lines[3].text + "\n" + lines[2].text + "\n" + lines[1].text + "\n" + lines[0].text + "\n");
    auto changed = sortRecordFile(path, {"a", "b", "c"});
    QVERIFY2(changed, changed.status().toString().c_str());
    QVERIFY(*changed);
    QCOMPARE(readText(path), lines[1].text + "\n" + lines[3].text + "\n" + lines[0].text + "\n" + lines[2].text + "\n");
    auto again = sortRecordFile(path, {"a", "b", "c"});
    QVERIFY(again);
    QVERIFY(!*again);
    QVERIFY(!QFileInfo::exists(qs(path + ".tmp")));
}

QTEST_GUILESS_MAIN(TestShard)
#include "tst_shard.moc"
