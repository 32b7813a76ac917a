// kwb reflag: flags re-derived from stored re-runs under today's rules. A
// record verified when memoized_output still fired for incorrect kernels loses
// it; a reviewer's flag stays; a record without a re-run and one whose stored
// re-run the decoder refuses are written as they were (the latter reported).
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <fstream>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "records/native_reader.h"
#include "records/native_writer.h"
#include "rerun/protocol.h"
#include "workbench/reflag.h"

using namespace kwb;

namespace {

RerunResult incorrectRun()
{
    RerunResult r;
    r.status = RerunStatus::Ok;
    r.precision = DType::F32;
    r.tolerance = {1e-4, 1e-4};
    OutputCoverage c;
    c.output = "out";
    c.coverage.writtenFraction = 1.0;
    r.coverage.push_back(c);
    OutputCheck o;
    o.output = "out";
    o.trials = 3;
    o.trialsPassed = 0;
    o.passed = false;
    o.count = 1000;
    o.outOfTolerance = 950;
    o.outOfToleranceShare = 0.95;
    o.relL2Error = 1.8e-3;
    o.refRms = 1.0;
    r.outputs.push_back(o);
    r.candidateTiming = summarizeTimings({0.5, 0.5, 0.5});
    r.referenceTiming = summarizeTimings({0.6, 0.6, 0.6});
    r.speedup = 1.2;
    r.freshInputs = FreshInputsCheck{100, 5, 5, 1.8e-3, "00ff"};
    return r;
}

EvalRecord verifiedWithOldFlags(const std::string& id)
{
    EvalRecord rec;
    rec.id = id;
    RerunResult r = incorrectRun();
    // What an older rule set wrote: incorrect and memoized_output.
    r.flags = {{"incorrect", "fails allclose", "error"}, {"memoized_output", "5 of 5 checked timed trials", "error"}};
    rec.verification.flags = r.flags;
    rec.verification.flags.push_back({"reviewed_exploit", "a reviewer's note", "info"});
    rec.verification.extra.push_back({"rerun", rerunResultToJson(r).dump()});
    return rec;
}

std::vector<std::string> codes(const EvalRecord& r)
{
    std::vector<std::string> out;
    for (const auto& f : r.verification.flags) out.push_back(f.code);
    return out;
}

} // namespace

class TestReflag : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rederivesFromTheStoredRun()
    {
        std::vector<EvalRecord> records{verifiedWithOldFlags("a"), EvalRecord{}};
        records[1].id = "plain";
        EvalRecord broken = verifiedWithOldFlags("broken");
        broken.verification.extra.back().json = R"({"type":"result","status":"no such status"})";
        records.push_back(broken);
        const auto report = workbench::reflagRecords(records);
        QCOMPARE(report.records, std::size_t{3});
        QCOMPARE(report.reflagged, std::size_t{1});
        QCOMPARE(report.changed, std::size_t{1});
        QCOMPARE(report.errors.size(), std::size_t{1});
        QVERIFY(report.errors[0].message().find("record 'broken'") != std::string::npos);
        const auto c = codes(records[0]);
        QVERIFY(std::find(c.begin(), c.end(), "incorrect") != c.end());
        QVERIFY(std::find(c.begin(), c.end(), "memoized_output") == c.end());
        QVERIFY(std::find(c.begin(), c.end(), "reviewed_exploit") != c.end()); // not ours: kept
        QVERIFY(records[1].verification.empty());
        QCOMPARE(codes(records[2]), codes(verifiedWithOldFlags("broken"))); // left as it was
        // Idempotent: a second pass changes nothing.
        QCOMPARE(workbench::reflagRecords(records).changed, std::size_t{0});
    }

    // Leaderboard records carry only level and number: the stored re-run names the problem file.
    void namesKernelBenchProblemsFromTheRun()
    {
        std::vector<EvalRecord> records{verifiedWithOldFlags("lb"), verifiedWithOldFlags("other")};
        for (auto& rec : records) {
            rec.problem.suite = "KernelBench";
            rec.problem.level = 1;
            rec.problem.id = 12;
        }
        RerunResult r = incorrectRun();
        r.problemId = "kernelbench_L1_12_Matmul_with_diagonal_matrices_";
        records[0].verification.extra.back().json = rerunResultToJson(r).dump();
        r.problemId = "kernelbench_L1_13_Matmul_for_symmetric_matrices"; // another file's: left unnamed
        records[1].verification.extra.back().json = rerunResultToJson(r).dump();
        QCOMPARE(workbench::reflagRecords(records).reflagged, std::size_t{2});
        QCOMPARE(records[0].problem.name, std::string("12_Matmul_with_diagonal_matrices_"));
        QVERIFY(records[1].problem.name.empty());
    }

    void commandLine()
    {
        QTemporaryDir dir;
        const std::string in = dir.filePath(QStringLiteral("verified.jsonl")).toStdString();
        const std::string out = dir.filePath(QStringLiteral("reflagged.jsonl")).toStdString();
        QVERIFY(writeRecordsFile(in, {verifiedWithOldFlags("a"), verifiedWithOldFlags("b")}).isOk());
        QProcess p;
        p.start(QStringLiteral(KWB_CLI), {QStringLiteral("reflag"), QString::fromStdString(in), QStringLiteral("--out"),
                                             QString::fromStdString(out)});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(p.readAllStandardOutput().contains("2 records: 2 re-flagged from their stored re-runs, 2 with different flags now"));
        auto text = readFileContents(out);
        QVERIFY(text.isOk());
        const RecordSet set = parseNativeRecords(*text, out);
        QCOMPARE(set.records.size(), std::size_t{2});
        for (const auto& r : set.records) {
            const auto c = codes(r);
            QVERIFY(std::find(c.begin(), c.end(), "memoized_output") == c.end());
        }
        QProcess same;
        same.start(QStringLiteral(KWB_CLI), {QStringLiteral("reflag"), QString::fromStdString(in), QStringLiteral("--out"),
                                                QString::fromStdString(in)});
        QVERIFY(same.waitForFinished(60000));
        QCOMPARE(same.exitCode(), 2); // would overwrite its input
    }
};

QTEST_GUILESS_MAIN(TestReflag)
#include "tst_reflag.moc"
