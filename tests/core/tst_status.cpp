#include <QtTest>

#include "base/json_writer.h"
#include "base/mapped_file.h"
#include "base/status.h"
#include "base/string_interner.h"
#include "base/text_table.h"
#include "test_util.h"

using namespace kwb;

class TestStatus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void statusNamesFilePositionAndReason()
    {
        Status s(ErrorCode::ParseError, "unexpected end", SourcePosition{"a/b.json", 3, 14, 120, "level1"});
        QCOMPARE(kwbtest::qs(s.toString()), QStringLiteral("a/b.json:3:14: [level1]: parse error: unexpected end"));
        QVERIFY(!s.isOk());
        QVERIFY(Status().isOk());
    }

    void resultCarriesValueOrStatus()
    {
        Result<int> ok = 5;
        QVERIFY(ok.isOk());
        QCOMPARE(*ok, 5);
        Result<int> bad = Status(ErrorCode::NotFound, "nope");
        QVERIFY(!bad.isOk());
        QCOMPARE(bad.status().code(), ErrorCode::NotFound);
    }

    void internerReturnsStableIds()
    {
        StringInterner in;
        const auto a = in.intern("volta_sgemm");
        const auto b = in.intern("ampere_gemm");
        QCOMPARE(in.intern("volta_sgemm"), a);
        QVERIFY(a != b);
        QCOMPARE(in.view(a), std::string_view("volta_sgemm"));
        for (int i = 0; i < 10000; ++i) in.intern("k" + std::to_string(i));
        QCOMPARE(in.view(b), std::string_view("ampere_gemm")); // views survive growth
        QCOMPARE(in.intern(""), StringInterner::kEmpty);
    }

    void jsonWriterEscapesEverything_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("plain") << QByteArray("abc") << QByteArray("\"abc\"");
        QTest::addRow("quote") << QByteArray("a\"b\\") << QByteArray("\"a\\\"b\\\\\"");
        QTest::addRow("control") << QByteArray("\x01\n") << QByteArray("\"\\u0001\\n\"");
        QTest::addRow("utf8") << QByteArray("\xc3\xa9") << QByteArray("\"\xc3\xa9\"");
        QTest::addRow("invalid utf8") << QByteArray("a\xff") << QByteArray("\"a\\ufffd\"");
        QTest::addRow("overlong") << QByteArray("\xc0\xaf") << QByteArray("\"\\ufffd\\ufffd\"");
    }
    void jsonWriterEscapesEverything()
    {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        std::string out;
        JsonWriter::appendEscaped(out, std::string_view(input.constData(), static_cast<std::size_t>(input.size())));
        QCOMPARE(QByteArray::fromStdString(out), expected);
    }

    void doublesRoundTrip()
    {
        QCOMPARE(kwbtest::qs(formatDouble(0.1)), QStringLiteral("0.1"));
        QCOMPARE(kwbtest::qs(formatDouble(2.0)), QStringLiteral("2.0"));
        QCOMPARE(kwbtest::qs(formatDouble(std::nan(""))), QStringLiteral("null"));
        const double v = 2.0408163265306123;
        QCOMPARE(std::stod(formatDouble(v)), v);
    }

    void gzipAndTruncatedGzip()
    {
        QTemporaryDir dir;
        const QString plain = dir.filePath(QStringLiteral("x.json"));
        QFile f(plain);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"a\":1}");
        f.close();
        QVERIFY(QProcess::execute(QStringLiteral("gzip"), {QStringLiteral("-k"), plain}) == 0);
        auto inflated = readFileContents(QString(plain + QStringLiteral(".gz")).toStdString());
        QVERIFY2(inflated.isOk(), inflated.status().toString().c_str());
        QCOMPARE(kwbtest::qs(*inflated), QStringLiteral("{\"a\":1}"));

        QFile gz(plain + QStringLiteral(".gz"));
        QVERIFY(gz.open(QIODevice::ReadOnly));
        QByteArray bytes = gz.readAll();
        gz.close();
        QFile cut(dir.filePath(QStringLiteral("cut.json.gz")));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(bytes.left(bytes.size() - 6));
        cut.close();
        auto broken = readFileContents(cut.fileName().toStdString());
        QVERIFY(!broken.isOk());
        QVERIFY(broken.status().toString().find("cut.json.gz") != std::string::npos);
        QVERIFY(broken.status().message().find("truncated") != std::string::npos);
    }

    void missingFileNamesFileAndReason()
    {
        auto r = readFileContents("/nonexistent/kwb.json");
        QVERIFY(!r.isOk());
        QVERIFY(r.status().toString().find("/nonexistent/kwb.json") != std::string::npos);
        QVERIFY(r.status().message().find("No such file") != std::string::npos);
    }

    void textTableAlignsAndQuotes()
    {
        TextTable t({"name", "n"}, {TextTable::Align::Left, TextTable::Align::Right});
        t.addRow({"a,b", "1"});
        t.addRow({"c", "100"});
        QCOMPARE(kwbtest::qs(t.toCsv()), QStringLiteral("name,n\n\"a,b\",1\nc,100\n"));
        QCOMPARE(kwbtest::qs(t.toText()), QStringLiteral("name    n\n----  ---\na,b     1\nc     100\n"));
    }
};

QTEST_GUILESS_MAIN(TestStatus)
#include "tst_status.moc"
