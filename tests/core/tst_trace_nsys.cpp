// The Nsight Systems SQLite reader against fixtures written here from the
// documented export schema (`nsys export --type sqlite`): the tables and
// columns differ across nsys versions, so each case builds one variant.
#include <QtTest>

#include <QTemporaryDir>

#include <sqlite3.h>

#include <fstream>

#include "test_util.h"
#include "traces/trace_loader.h"

using namespace kwb;

namespace {

void exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "?";
        sqlite3_free(err);
        QFAIL(("sqlite: " + msg + " in " + sql).c_str());
    }
}

// Schema of nsys 2023-2025 exports, reduced to the columns the reader may use
// plus a few it must ignore.
const char* kModernSchema = R"(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL REFERENCES StringIds(id), shortName INTEGER NOT NULL REFERENCES StringIds(id),
  mangledName INTEGER REFERENCES StringIds(id), launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL REFERENCES StringIds(id), returnValue INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER,
  color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER REFERENCES StringIds(id), domainId INTEGER);
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT NOT NULL, busLocation TEXT, totalMemory INTEGER NOT NULL,
  smCount INTEGER NOT NULL, computeMajor INTEGER NOT NULL, computeMinor INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)'),
  (2, 'vectorized_elementwise_kernel'), (3, 'nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT'), (4, 'nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT'),
  (5, 'cudaLaunchKernel'), (6, 'aten::addmm'), (7, 'ProfilerStep#1');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName,
  shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) VALUES
  (1000, 3000, 0, 1, 7, 11, 100, 3, 4, 168, 132, 1, 1, 384, 1, 1, 0, 0),
  (4000, 4500, 0, 1, 7, 12, 100, 1, 2, 32, 1024, 1, 1, 128, 1, 1, 0, 0),
  (4200, 4600, 0, 1, 8, 13, 100, 1, 2, 32, 1024, 1, 1, 128, 1, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5000, 5100, 0, 1, 7, 14, 100, 4096, 1, 0, 1), (5200, 5250, 0, 1, 7, 15, 100, 64, 2, 1, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (6000, 6010, 0, 1, 7, 16, 100, 0, 64, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 1, 555, 11, 5, 0), (3900, 3950, 1, 555, 12, 5, 0);
INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId) VALUES (800, 1000, 59, 555, 6), (100, 7000, 59, 555, 7);
INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) VALUES (300, NULL, 34, 555, 'a mark');
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H200', '0000:01:00.0', 150109880320, 132, 9, 0);
)";

// An older export: names inline in a "name" column, no StringIds, no memset, NVTX or runtime tables.
const char* kOldSchema = R"(
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER,
  name TEXT, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, copyKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 'ampere_sgemm_128x64_tn', 1, 1, 1, 128, 1, 1),
  (30, 25, 0, 7, 2, 'broken_row', 1, 1, 1, 1, 1, 1), (40, 44, 0, 7, 3, 'my_custom_kernel', 1, 1, 1, 1, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (50, 60, 0, 7, 8);
)";

std::string makeDb(const QTemporaryDir& dir, const char* name, const char* sql)
{
    const std::string path = dir.path().toStdString() + "/" + name;
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    exec(db, sql);
    sqlite3_close(db);
    return path;
}

} // namespace

class TestTraceNsys : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void modernExport()
    {
        QTemporaryDir dir;
        const std::string path = makeDb(dir, "run.sqlite", kModernSchema);
        QCOMPARE(sniffTraceFile(path), TraceFileKind::NsysSqlite);
        auto r = loadTrace(path);
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        const Trace& t = **r;
        QCOMPARE(t.format(), TraceFormat::NsysSqlite);
        QCOMPARE(kwbtest::qs(t.name()), QStringLiteral("run"));
        QCOMPARE(t.activities().size(), std::size_t(6));
        const GpuActivity& gemm = t.activities()[0];
        QCOMPARE(t.text(gemm.name), std::string_view("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT"));
        QCOMPARE(gemm.durationNs, std::int64_t(2000));
        QCOMPARE(gemm.grid[0], 132u);
        QCOMPARE(gemm.block[0], 384u);
        QCOMPARE(gemm.stream, 7);
        // demangledName is preferred over shortName.
        QCOMPARE(t.text(t.activities()[1].name),
            std::string_view("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)"));
        // The launch sat inside the aten::addmm NVTX range of its thread.
        QCOMPARE(t.opName(gemm), std::string_view("aten::addmm"));
        QCOMPARE(gemm.phase, Phase::Forward);
        QCOMPARE(t.text(t.activities()[3].name), std::string_view("Memcpy HtoD"));
        QCOMPARE(t.activities()[3].kind, ActivityKind::Memcpy);
        QCOMPARE(t.text(t.activities()[4].name), std::string_view("Memcpy DtoH"));
        QCOMPARE(t.activities()[5].kind, ActivityKind::Memset);
        QCOMPARE(t.steps().size(), std::size_t(1));
        QCOMPARE(t.devices().size(), std::size_t(1));
        QCOMPARE(t.devices()[0].smCount, 132);
        QCOMPARE(t.report().badEvents, std::uint64_t(0));
    }

    void olderExportIsProbed()
    {
        QTemporaryDir dir;
        const std::string path = makeDb(dir, "old.sqlite", kOldSchema);
        auto r = loadTrace(path);
        QVERIFY2(r.isOk(), r.status().toString().c_str());
        const Trace& t = **r;
        QCOMPARE(t.activities().size(), std::size_t(3));
        QCOMPARE(t.text(t.activities()[0].name), std::string_view("ampere_sgemm_128x64_tn"));
        QCOMPARE(t.text(t.activities()[2].name), std::string_view("Memcpy DtoD"));
        // The row whose end precedes its start is reported with its table and row.
        QCOMPARE(t.report().badEvents, std::uint64_t(1));
        QCOMPARE(t.report().issues.size(), std::size_t(1));
        QVERIFY(kwbtest::qs(t.report().issues[0].toString()).contains(QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL row 2")));
        bool notedMemset = false;
        for (const auto& n : t.report().notes) notedMemset |= n.find("MEMSET") != std::string::npos;
        QVERIFY(notedMemset);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason");
        QTest::addRow("no kernel table") << QStringLiteral("nokernels") << QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL");
        QTest::addRow("kernel table without names") << QStringLiteral("nonames") << QStringLiteral("no name column");
        QTest::addRow("corrupt database") << QStringLiteral("corrupt") << QStringLiteral("not an SQLite database");
    }
    void errors()
    {
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        std::string path;
        if (kind == QStringLiteral("nokernels")) path = makeDb(dir, "e.sqlite", "CREATE TABLE StringIds (id INTEGER, value TEXT);");
        else if (kind == QStringLiteral("nonames"))
            path = makeDb(dir, "e.sqlite", "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);");
        else {
            path = dir.path().toStdString() + "/e.sqlite";
            std::ofstream f(path, std::ios::binary);
            std::string bytes("SQLite format 3\0", 16);
            bytes += std::string(4000, '\x42');
            f << bytes;
        }
        auto r = loadTrace(path);
        QVERIFY(!r.isOk());
        QCOMPARE(kwbtest::qs(r.status().where().file), kwbtest::qs(path));
        QVERIFY2(kwbtest::qs(r.status().message()).contains(reason), r.status().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTraceNsys)
#include "tst_trace_nsys.moc"
