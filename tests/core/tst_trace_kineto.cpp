// The streaming Kineto reader: real traces, the shapes PyTorch versions
// write, chunk boundaries, and errors that name file, position and reason.
#include <QtTest>

#include <QTemporaryDir>

#include <zlib.h>

#include <fstream>

#include "base/mapped_file.h"
#include "test_util.h"
#include "traces/kineto_reader.h"
#include "traces/trace_loader.h"

using namespace kwb;

namespace {

std::string datasetTrace(const char* name)
{
    return std::string(KWB_DATASET_DIR) + "/traces/" + name;
}

void writeFile(const std::string& path, std::string_view bytes)
{
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string gzip(std::string_view bytes)
{
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// tests/data/traces/small_training_step.json: a training step in miniature,
// a forward op on the main thread, a backward op on the autograd thread, an
// optimizer annotation; kernels linked by External id, by the runtime launch
// and by the ac2g flow alone.
std::string smallTrace()
{
    auto r = readFileContents(kwbtest::testData("traces/small_training_step.json"));
    if (!r.isOk()) qFatal("%s", r.status().toString().c_str());
    return *r;
}

} // namespace

class TestTraceKineto : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void smallTraceFields()
    {
        auto r = parseKinetoTrace(smallTrace(), "small.json");
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        const Trace& t = **r;
        QCOMPARE(t.activities().size(), std::size_t(5));
        QCOMPARE(t.steps().size(), std::size_t(1));
        QCOMPARE(t.devices().size(), std::size_t(1));
        QCOMPARE(kwbtest::qs(t.devices()[0].name), QStringLiteral("NVIDIA H200"));
        QCOMPARE(t.devices()[0].smCount, 132);
        const GpuActivity& gemm = t.activities()[0];
        QCOMPARE(gemm.startNs, std::int64_t(1030250));
        QCOMPARE(gemm.durationNs, std::int64_t(100125));
        QCOMPARE(gemm.grid[0], 132u);
        QCOMPARE(gemm.block[0], 384u);
        QCOMPARE(gemm.stream, 7);
        QCOMPARE(gemm.device, std::int16_t(0));
        QCOMPARE(gemm.correlation, std::int64_t(100));
        // External id links to the innermost op; the outermost is aten::linear.
        QCOMPARE(t.opName(gemm), std::string_view("aten::addmm"));
        QCOMPARE(t.topLevelOpName(gemm), std::string_view("aten::linear"));
        QCOMPARE(gemm.phase, Phase::Forward);
        // No External id: linked through the runtime launch's thread and time.
        const GpuActivity& bwd = t.activities()[1];
        QCOMPARE(t.opName(bwd), std::string_view("aten::mm"));
        QCOMPARE(bwd.phase, Phase::Backward);
        // Linked only by the ac2g flow.
        const GpuActivity& opt = t.activities()[2];
        QCOMPARE(t.opName(opt), std::string_view("Optimizer.step#SGD.step"));
        QCOMPARE(opt.phase, Phase::Optimizer);
        QCOMPARE(t.activities()[3].kind, ActivityKind::Memcpy);
        QCOMPARE(t.activities()[4].kind, ActivityKind::Memset);
        QCOMPARE(t.activities()[3].phase, Phase::Unknown);
        // The span covers CPU ops, steps and GPU activity; instant events do not count.
        QCOMPARE(t.spanStartNs(), std::int64_t(1000000));
        QCOMPARE(t.spanEndNs(), std::int64_t(1900000));
        QCOMPARE(t.report().badEvents, std::uint64_t(0));
    }

    // Shapes real PyTorch versions (and other exporters) write.
    void variants_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("activities");
        QTest::addColumn<qint64>("firstDurationNs");
        QTest::addColumn<QString>("firstName");
        QTest::addRow("integer µs, no displayTimeUnit")
            << QStringLiteral("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":12}]}") << 1
            << qint64(12000) << QStringLiteral("k");
        QTest::addRow("fractional µs rounded to ns")
            << QStringLiteral("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":5.0004,\"dur\":1.23456}]}") << 1
            << qint64(1235) << QStringLiteral("k");
        QTest::addRow("bare event array")
            << QStringLiteral("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2}]") << 1 << qint64(2000) << QStringLiteral("k");
        QTest::addRow("PyTorch 1.8 categories, string tid")
            << QStringLiteral("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1,\"dur\":3},"
                              "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":9,\"dur\":1}]}")
            << 2 << qint64(3000) << QStringLiteral("k");
        QTest::addRow("integers beyond int64 are unknown ids")
            << QStringLiteral("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2,"
                              "\"args\":{\"External id\":123456789012345678901234567890,\"correlation\":99999999999999999999,\"Python id\":1e400}}]}")
            << 1 << qint64(2000) << QStringLiteral("k");
        QTest::addRow("escapes decoded")
            << QStringLiteral("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\",\"ts\":1,\"dur\":2}]}") << 1
            << qint64(2000) << QString::fromUtf8("a\"b\\c\xc3\xa9\xf0\x9f\x98\x80");
        QTest::addRow("members in any order, nested args skipped")
            << QStringLiteral("{\"otherTop\":{\"a\":[1,{\"b\":\"]}\"}]},\"traceEvents\":[{\"args\":{\"x\":{\"y\":[1,2,{\"z\":\"}\"}]},\"stream\":3},"
                              "\"dur\":4,\"name\":\"k\",\"ts\":1,\"cat\":\"kernel\",\"ph\":\"X\"}],\"distributedInfo\":null}")
            << 1 << qint64(4000) << QStringLiteral("k");
        QTest::addRow("events of no interest are skipped")
            << QStringLiteral("{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":\"x\"}},{\"ph\":\"i\",\"ts\":1,\"pid\":\"Traces\"},"
                              "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f\",\"ts\":1,\"dur\":1},{}]}")
            << 0 << qint64(0) << QString();
    }
    void variants()
    {
        QFETCH(QString, json);
        QFETCH(int, activities);
        QFETCH(qint64, firstDurationNs);
        QFETCH(QString, firstName);
        auto r = parseKinetoTrace(json.toStdString(), "variant.json");
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        const Trace& t = **r;
        QCOMPARE(static_cast<int>(t.activities().size()), activities);
        QCOMPARE(t.report().badEvents, std::uint64_t(0));
        if (activities > 0) {
            QCOMPARE(t.activities()[0].durationNs, firstDurationNs);
            QCOMPARE(kwbtest::qs(std::string(t.text(t.activities()[0].name))), firstName);
        }
    }

    void invalidUtf8AndControlCharactersDoNotStopALoad()
    {
        std::string json = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bad";
        json += "\xff\xfe\x01\x02\t";
        json += "name\",\"ts\":1,\"dur\":2},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ok\",\"ts\":3,\"dur\":4}]}";
        auto r = parseKinetoTrace(json, "utf8.json");
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        QCOMPARE((*r)->activities().size(), std::size_t(2));
        QCOMPARE((*r)->text((*r)->activities()[0].name), std::string_view("bad\xff\xfe\x01\x02\tname"));
    }

    void badEventsAreCountedAndTheLoadGoesOn()
    {
        const std::string json = "{\"traceEvents\":[\n"
                                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"no_dur\",\"ts\":1},\n"
                                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bad_ts\",\"ts\":\"soon\",\"dur\":1},\n"
                                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"neg\",\"ts\":1,\"dur\":-5},\n"
                                 "42,\n"
                                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"good\",\"ts\":1,\"dur\":1}\n]}";
        auto r = parseKinetoTrace(json, "bad_events.json");
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        const Trace& t = **r;
        QCOMPARE(t.activities().size(), std::size_t(1));
        QCOMPARE(t.report().badEvents, std::uint64_t(4));
        QCOMPARE(t.report().issues.size(), std::size_t(4));
        const Status& first = t.report().issues[0];
        QCOMPARE(kwbtest::qs(first.where().file), QStringLiteral("bad_events.json"));
        QCOMPARE(first.where().line, std::int64_t(2));
        QCOMPARE(first.where().column, std::int64_t(1));
        QVERIFY2(first.message().find("dur") != std::string::npos, first.message().c_str());
        QCOMPARE(t.report().issues[3].where().line, std::int64_t(5));
    }

    // Malformed documents fail with file, byte offset, line:column and reason.
    void syntaxErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<qint64>("offset");
        QTest::addColumn<qint64>("line");
        QTest::addColumn<qint64>("column");
        QTest::addColumn<QString>("reason");
        QTest::addRow("truncated inside the events")
            << QByteArray("{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2},\n{\"ph\":\"X\",\"na")
            << qint64(83) << qint64(3) << qint64(14) << QStringLiteral("truncated");
        QTest::addRow("missing comma between events")
            << QByteArray("{\"traceEvents\":[\n{\"ph\":\"X\"}\n{\"ph\":\"X\"}]}") << qint64(28) << qint64(3) << qint64(1)
            << QStringLiteral("expected ',' or ']'");
        QTest::addRow("double comma in an event")
            << QByteArray("{\"traceEvents\":[{\"ph\":\"X\",,\"ts\":1}]}") << qint64(26) << qint64(1) << qint64(27)
            << QStringLiteral("member name");
        QTest::addRow("not JSON") << QByteArray("hello") << qint64(0) << qint64(1) << qint64(1) << QStringLiteral("not a Chrome trace");
        QTest::addRow("truncated after the array")
            << QByteArray("{\"traceEvents\":[]") << qint64(17) << qint64(1) << qint64(18) << QStringLiteral("truncated");
        QTest::addRow("garbage after the document")
            << QByteArray("{\"traceEvents\":[]} x") << qint64(19) << qint64(1) << qint64(20) << QStringLiteral("after the end");
    }
    void syntaxErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(qint64, offset);
        QFETCH(qint64, line);
        QFETCH(qint64, column);
        QFETCH(QString, reason);
        auto r = parseKinetoTrace(std::string_view(json.constData(), static_cast<std::size_t>(json.size())), "broken.json");
        QVERIFY(!r.isOk());
        const Status s = r.status();
        QCOMPARE(s.code(), ErrorCode::ParseError);
        QCOMPARE(kwbtest::qs(s.where().file), QStringLiteral("broken.json"));
        QCOMPARE(s.where().offset, offset);
        QCOMPARE(s.where().line, line);
        QCOMPARE(s.where().column, column);
        QVERIFY2(kwbtest::qs(s.message()).contains(reason), s.toString().c_str());
        QVERIFY2(kwbtest::qs(s.toString()).startsWith(QStringLiteral("broken.json:")), s.toString().c_str());
    }

    void notATrace()
    {
        auto r = parseKinetoTrace("{\"schemaVersion\":1,\"records\":[]}", "other.json");
        QVERIFY(!r.isOk());
        QCOMPARE(r.status().code(), ErrorCode::SchemaError);
        QVERIFY(kwbtest::qs(r.status().toString()).contains(QStringLiteral("other.json")));
        QVERIFY(kwbtest::qs(r.status().message()).contains(QStringLiteral("traceEvents")));
    }

    // Plain files and buffers are scanned in place; gzip streams in chunks of a
    // few MB, and an event that straddles two chunks is scanned again. Both
    // must give exactly what the events say.
    void chunkBoundaries()
    {
        std::string json = "{\"traceEvents\":[";
        const int n = 120000;
        std::int64_t expectNs = 0;
        for (int i = 0; i < n; ++i) {
            if (i) json += ",\n";
            const std::string name = "void at::native::vectorized_elementwise_kernel<" + std::to_string(i % 97) + ">(" + std::string(static_cast<std::size_t>(i % 40), 'x') + ")";
            json += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + name + "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(i * 10)
                + ".5,\"dur\":" + std::to_string(i % 13) + ".25,\"args\":{\"correlation\":" + std::to_string(i) + "}}";
            expectNs += (i % 13) * 1000 + 250;
        }
        json += "]}";
        QVERIFY(json.size() > 12u << 20);
        auto r = parseKinetoTrace(json, "big.json");
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        QCOMPARE((*r)->activities().size(), std::size_t(n));
        std::int64_t total = 0;
        for (const auto& a : (*r)->activities()) total += a.durationNs;
        QCOMPARE(total, expectNs);
        QCOMPARE((*r)->report().bytesRead, std::uint64_t(json.size()));

        // The same bytes through gzip and a file give the same table.
        QTemporaryDir dir;
        const std::string gz = dir.path().toStdString() + "/big.json.gz";
        writeFile(gz, gzip(json));
        auto viaGz = loadTrace(gz);
        QVERIFY2(viaGz.isOk(), viaGz.status().toString().c_str());
        QCOMPARE((*viaGz)->activities().size(), std::size_t(n));
        QCOMPARE(kwbtest::qs((*viaGz)->name()), QStringLiteral("big"));
    }

    void gzipErrors_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason");
        QTest::addRow("truncated gzip") << QStringLiteral("truncate") << QStringLiteral("truncated");
        QTest::addRow("corrupt gzip") << QStringLiteral("corrupt") << QStringLiteral("corrupt");
    }
    void gzipErrors()
    {
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        std::string json = "{\"traceEvents\":[";
        for (int i = 0; i < 20000; ++i)
            json += (i ? "," : "") + std::string("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k") + std::to_string(i * 7919 % 10007)
                + "\",\"ts\":" + std::to_string(i) + ",\"dur\":1}";
        json += "]}";
        std::string gz = gzip(json);
        if (kind == QStringLiteral("truncate")) gz.resize(gz.size() / 2);
        else
            for (std::size_t i = gz.size() / 3; i < gz.size() / 3 + 64; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/bad.json.gz";
        writeFile(path, gz);
        auto r = loadTrace(path);
        QVERIFY(!r.isOk());
        const Status s = r.status();
        QCOMPARE(kwbtest::qs(s.where().file), kwbtest::qs(path));
        QVERIFY(s.where().offset > 0);
        QVERIFY2(kwbtest::qs(s.message()).contains(reason), s.toString().c_str());
    }

    void unknownFileKind()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/x.bin";
        writeFile(path, "\x7f" "ELF not a trace");
        auto r = loadTrace(path);
        QVERIFY(!r.isOk());
        QCOMPARE(r.status().code(), ErrorCode::Unsupported);
        QVERIFY(kwbtest::qs(r.status().toString()).contains(QStringLiteral("x.bin")));
        auto missing = loadTrace(dir.path().toStdString() + "/missing.json");
        QVERIFY(!missing.isOk());
        QCOMPARE(missing.status().code(), ErrorCode::NotFound);
    }

    // The committed real traces load completely; plain and gzip agree.
    void realTraces_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("kernelsAtLeast");
        QTest::addColumn<bool>("training");
        QTest::addRow("gpt2_train") << QStringLiteral("gpt2_train.json.gz") << 1000 << true;
        QTest::addRow("dlrm_train") << QStringLiteral("dlrm_train.json.gz") << 1000 << true;
        QTest::addRow("resnet50_infer") << QStringLiteral("resnet50_infer.json.gz") << 200 << false;
    }
    void realTraces()
    {
        QFETCH(QString, file);
        QFETCH(int, kernelsAtLeast);
        QFETCH(bool, training);
        const std::string path = datasetTrace(file.toStdString().c_str());
        auto r = loadTrace(path);
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        const Trace& t = **r;
        QVERIFY(static_cast<int>(t.activities().size()) >= kernelsAtLeast);
        QCOMPARE(t.report().badEvents, std::uint64_t(0));
        QCOMPARE(t.steps().size(), std::size_t(2));
        QCOMPARE(kwbtest::qs(t.devices().at(0).name), QStringLiteral("NVIDIA H200"));
        std::size_t linked = 0;
        bool backward = false;
        bool optimizer = false;
        for (const auto& a : t.activities()) {
            if (a.kind == ActivityKind::Kernel && a.op >= 0) ++linked;
            backward |= a.phase == Phase::Backward;
            optimizer |= a.phase == Phase::Optimizer;
        }
        std::size_t kernels = 0;
        for (const auto& a : t.activities()) kernels += a.kind == ActivityKind::Kernel;
        QCOMPARE(linked, kernels); // every kernel is attributed to an operator
        QCOMPARE(backward, training);
        QCOMPARE(optimizer, training);

        // Same bytes, inflated to a plain file, read the same.
        auto plain = readFileContents(path);
        QVERIFY(plain.isOk());
        QTemporaryDir dir;
        const std::string plainPath = dir.path().toStdString() + "/plain.json";
        writeFile(plainPath, *plain);
        auto r2 = loadTrace(plainPath);
        QVERIFY2(r2.isOk(), r2.status().toString().c_str());
        QCOMPARE((*r2)->activities().size(), t.activities().size());
        QCOMPARE((*r2)->ops().size(), t.ops().size());
        QCOMPARE((*r2)->report().bytesRead, t.report().bytesRead);
    }

    void progressAndCancel()
    {
        const std::string path = datasetTrace("resnet50_train.json.gz");
        std::int64_t lastDone = -1;
        std::int64_t total = 0;
        TaskContext ctx;
        ctx.progress = [&](const Progress& p) {
            lastDone = p.done;
            total = p.total;
        };
        auto r = loadTrace(path, ctx);
        QVERIFY(r.isOk());
        QVERIFY(total > 0);
        QCOMPARE(lastDone, total);
        CancelFlag flag;
        flag.cancel();
        TaskContext cancelled;
        cancelled.cancel = &flag;
        auto c = loadTrace(path, cancelled);
        QVERIFY(!c.isOk());
        QCOMPARE(c.status().code(), ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestTraceKineto)
#include "tst_trace_kineto.moc"
