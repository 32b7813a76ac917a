// kwb rerun and kwb verify, run as users run them, against a stand-in runner
// (KWB_RUNNER): the CLI survives faulting and hanging candidates and goes on,
// says when there is no GPU, and verify resumes after an interruption.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <fstream>

#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "records/eval_record.h"
#include "records/native_reader.h"
#include "records/native_writer.h"
#include "test_util.h"

using kwbtest::qs;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runKwb(const QStringList& args, const QMap<QString, QString>& env = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("KWB_RUNNER"), QStringLiteral(KWB_FAKE_RUNNER));
    for (auto it = env.begin(); it != env.end(); ++it) e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(KWB_CLI), args);
    p.waitForFinished(60000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QString data(const char* rel) { return qs(kwbtest::testData(rel)); }

void writeFile(const QString& path, const std::string& text)
{
    QDir().mkpath(QFileInfo(path).path());
    std::ofstream(path.toStdString()) << text;
}

// A candidate spec whose id steers the stand-in runner (crash, hang, ...).
std::string candidateJson(const std::string& id, bool honest = false)
{
    std::string j = "{\"schema\": \"kwb.candidate/1\", \"id\": \"" + id + "\", \"problem\": \"tiny\", \"form\": \"nvrtc\", "
        "\"source\": \"extern \\\"C\\\" __global__ void k(float* o) {}\", "
        "\"launches\": [{\"entry\": \"k\", \"grid\": \"ceil_div(N, 256)\", \"block\": 256, \"args\": [\"out\"]}]";
    return j + (honest ? ", \"honest\": true}" : "}");
}

const char* kTinyProblem = R"json({"schema": "kwb.problem/1", "id": "tiny", "sizes": {"N": 4096},
  "inputs": [{"name": "x", "shape": ["N"]}], "outputs": [{"name": "out", "shape": ["N"]}],
  "reference": {"builtin": "relu"}, "flops": "N", "bytes": "8 * N"})json";

QJsonObject outcomeOf(const QJsonArray& outcomes, const QString& id)
{
    for (const auto& v : outcomes)
        if (v.toObject().value(QStringLiteral("candidate_id")).toString() == id) return v.toObject();
    return {};
}

QStringList flagCodes(const QJsonObject& outcome)
{
    QStringList codes;
    for (const auto& f : outcome.value(QStringLiteral("result")).toObject().value(QStringLiteral("flags")).toArray())
        codes << f.toObject().value(QStringLiteral("code")).toString();
    return codes;
}

} // namespace

class TestRerunCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void helpAndUsage();
    void notInThisBuild();
    void fixturesAsJson();
    void survivesFaultsAndHangs();
    void expectationsDecideExitCode();
    void noDeviceExitsOne();
    void missingRunnerExitsOne();
    void badSpecNamesFileAndPosition();
    void verifyWritesAndResumes();

private:
    QTemporaryDir m_dir;
};

void TestRerunCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestRerunCli::helpAndUsage()
{
    for (const char* cmd : {"rerun", "verify"}) {
        const Run h = runKwb({QString::fromLatin1(cmd), QStringLiteral("--help")});
        QCOMPARE(h.exitCode, 0);
        for (const char* opt : {"--trials", "--timeout", "--coverage", "--size", "--runner", "--no-l2-flush"})
            QVERIFY2(h.out.contains(opt), opt);
    }
    QCOMPARE(runKwb({QStringLiteral("rerun")}).exitCode, 2);
    QCOMPARE(runKwb({QStringLiteral("rerun"), QStringLiteral("--format=xml"), QStringLiteral("p.json")}).exitCode, 2);
    QCOMPARE(runKwb({QStringLiteral("rerun"), QStringLiteral("--trials=-3"), QStringLiteral("p.json")}).exitCode, 2);
    QCOMPARE(runKwb({QStringLiteral("rerun"), QStringLiteral("--coverage=0x4"), QStringLiteral("p.json")}).exitCode, 2);
    QCOMPARE(runKwb({QStringLiteral("rerun"), QStringLiteral("--size=N"), QStringLiteral("p.json")}).exitCode, 2);
    QCOMPARE(runKwb({QStringLiteral("verify"), QStringLiteral("r.jsonl")}).exitCode, 2); // no --out
}

void TestRerunCli::notInThisBuild()
{
#ifdef KWB_WITH_GPU
    QSKIP("this build has GPU support; the not-in-build path is tested in KWB_ENABLE_CUDA=OFF builds");
#else
    const Run r = runKwb({QStringLiteral("rerun"), data("problems/vector_add.json")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.err.contains("no GPU support"));
    const Run v = runKwb({QStringLiteral("verify"), data("problems/vector_add.json"), QStringLiteral("--out=x.jsonl")});
    QCOMPARE(v.exitCode, 3);
#endif
}

void TestRerunCli::fixturesAsJson()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    const Run r = runKwb({QStringLiteral("rerun"), data("problems/vector_add.json"), QStringLiteral("--format=json"),
        QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(doc.value(QStringLiteral("problem_id")).toString(), QStringLiteral("vector_add"));
    const QJsonArray outcomes = doc.value(QStringLiteral("outcomes")).toArray();
    QCOMPARE(outcomes.size(), 6); // every candidate of the problem, found beside the problems/ folder
    const QJsonObject partial = outcomeOf(outcomes, QStringLiteral("vector_add_partial_write"));
    QVERIFY(flagCodes(partial).contains(QStringLiteral("low_coverage")));
    QVERIFY(partial.value(QStringLiteral("expectation")).toObject().value(QStringLiteral("met")).toBool());
    const QJsonObject honest = outcomeOf(outcomes, QStringLiteral("vector_add_honest"));
    QVERIFY(flagCodes(honest).isEmpty());
    QCOMPARE(honest.value(QStringLiteral("result")).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    // Named candidates only, by id and by file.
    const Run two = runKwb({QStringLiteral("rerun"), data("problems/vector_add.json"), QStringLiteral("vector_add_honest"),
        data("candidates/vector_add/partial_write.json"), QStringLiteral("--format=json"), QStringLiteral("--quiet")});
    QCOMPARE(two.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(two.out).object().value(QStringLiteral("outcomes")).toArray().size(), 2);
    const Run unknown = runKwb({QStringLiteral("rerun"), data("problems/vector_add.json"), QStringLiteral("nope")});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY(unknown.err.contains("no candidate file or id 'nope'"));
}

void TestRerunCli::survivesFaultsAndHangs()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    const QString root = m_dir.path() + QStringLiteral("/survive");
    writeFile(root + QStringLiteral("/problems/tiny.json"), kTinyProblem);
    writeFile(root + QStringLiteral("/candidates/tiny/a.json"), candidateJson("a_crash_abort"));
    writeFile(root + QStringLiteral("/candidates/tiny/b.json"), candidateJson("b_hang_forever"));
    writeFile(root + QStringLiteral("/candidates/tiny/c.json"), candidateJson("c_segv_write"));
    writeFile(root + QStringLiteral("/candidates/tiny/d.json"), candidateJson("d_after", true));
    QElapsedTimer t;
    t.start();
    const Run r = runKwb({QStringLiteral("rerun"), root + QStringLiteral("/problems/tiny.json"), QStringLiteral("--timeout=1"),
        QStringLiteral("--format=json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(t.elapsed() < 15000);
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    const QJsonArray outcomes = doc.value(QStringLiteral("outcomes")).toArray();
    QCOMPARE(outcomes.size(), 4);
    const auto status = [&](const char* id) {
        return outcomeOf(outcomes, QString::fromLatin1(id)).value(QStringLiteral("result")).toObject().value(QStringLiteral("status")).toString();
    };
    QCOMPARE(status("a_crash_abort"), QStringLiteral("fault"));
    QCOMPARE(status("b_hang_forever"), QStringLiteral("timeout"));
    QCOMPARE(status("c_segv_write"), QStringLiteral("fault"));
    QCOMPARE(status("d_after"), QStringLiteral("ok"));
    QCOMPARE(flagCodes(outcomeOf(outcomes, QStringLiteral("a_crash_abort"))), QStringList{QStringLiteral("fault")});
    QCOMPARE(flagCodes(outcomeOf(outcomes, QStringLiteral("b_hang_forever"))), QStringList{QStringLiteral("timeout")});
    QCOMPARE(doc.value(QStringLiteral("runner_restarts")).toInt(), 3);
    // Progress went to stderr, one line per stage.
    QVERIFY2(r.err.contains("[4/4] d_after: timing"), r.err.constData());
    // Each stage line after the first says how long the stage before took (where a record's time goes).
    QVERIFY2(QString::fromUtf8(r.err).contains(QRegularExpression(
                 QStringLiteral("\\[4/4\\] d_after: timing \\(after [0-9]+\\.[0-9]{2} s of [a-z_ ]+\\)\n"))),
        r.err.constData());

    const Run table = runKwb({QStringLiteral("rerun"), root + QStringLiteral("/problems/tiny.json"),
        QStringLiteral("--timeout=1"), QStringLiteral("--quiet")});
    QCOMPARE(table.exitCode, 0);
    QVERIFY(table.out.contains("b_hang_forever  timeout"));
    QVERIFY(table.out.contains("kwb-runner was restarted 3 time(s)"));
    QVERIFY(table.out.contains("[error] fault: the candidate faulted: kwb-runner was killed by signal 6 (SIGABRT)"));
}

void TestRerunCli::expectationsDecideExitCode()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    // The stand-in runner acts out partial writes but not faults: the vector_add
    // fixtures expecting fault/timeout/oom are not met, and the exit code says so.
    const Run r = runKwb({QStringLiteral("rerun"), data("problems/vector_add.json"), QStringLiteral("--check-expectations"),
        QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.contains("expectations: NOT MET"));
    QVERIFY(r.out.contains("vector_add_illegal_address: expectation not met: expected flag(s) not raised: fault"));
    const Run ok = runKwb({QStringLiteral("rerun"), data("problems/vector_add.json"), QStringLiteral("vector_add_honest"),
        QStringLiteral("vector_add_partial_write"), QStringLiteral("--check-expectations"), QStringLiteral("--quiet")});
    QVERIFY2(ok.exitCode == 0, ok.out.constData());
    QVERIFY(ok.out.contains("expectations: all met"));
}

void TestRerunCli::noDeviceExitsOne()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    const Run r = runKwb({QStringLiteral("rerun"), data("problems/relu.json")},
        {{QStringLiteral("KWB_FAKE_NO_DEVICE"), QStringLiteral("1")}});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("kwb rerun: no GPU: no CUDA device"), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void TestRerunCli::missingRunnerExitsOne()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    const Run r = runKwb({QStringLiteral("rerun"), data("problems/relu.json")},
        {{QStringLiteral("KWB_RUNNER"), QStringLiteral("/nonexistent/kwb-runner")}});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("/nonexistent/kwb-runner"), r.err.constData());
}

void TestRerunCli::badSpecNamesFileAndPosition()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    const QString bad = m_dir.path() + QStringLiteral("/bad/candidate.json");
    writeFile(bad, "{\"schema\": \"kwb.candidate/1\",\n \"id\": \"x\",\n \"problem\": \"relu\",\n \"source\": 5}");
    const Run r = runKwb({QStringLiteral("rerun"), data("problems/relu.json"), bad});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains((bad + QStringLiteral(":4:12: [source]: schema error: expected a string")).toUtf8()), r.err.constData());
    const Run missing = runKwb({QStringLiteral("rerun"), QStringLiteral("no_such_problem_id"),
        QStringLiteral("--problems=") + data("problems")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains("no problem spec with id 'no_such_problem_id'"));
    const Run byId = runKwb({QStringLiteral("rerun"), QStringLiteral("relu"), QStringLiteral("--problems=") + data("problems"),
        QStringLiteral("--candidates=") + data("candidates"), QStringLiteral("--quiet"), QStringLiteral("--format=json")});
    QVERIFY2(byId.exitCode == 0, byId.err.constData());
    // relu has 4 fixtures of the first engine, 5 of issue 12's checks (memoize, drift, reference scan, host
    // compute, persisting L2) and the 5 tampering fixtures of tamper/ (problem relu).
    QCOMPARE(QJsonDocument::fromJson(byId.out).object().value(QStringLiteral("outcomes")).toArray().size(), 14);
}

void TestRerunCli::verifyWritesAndResumes()
{
#ifndef KWB_WITH_GPU
    QSKIP("no GPU support in this build");
#endif
    using namespace kwb;
    const QString dir = m_dir.path() + QStringLiteral("/verify");
    QDir().mkpath(dir);
    std::vector<EvalRecord> records(4);
    records[0].id = "r-honest";
    records[0].source.path = kwbtest::testData("candidates/vector_add/honest.json");
    records[1].id = "r-partial";
    records[1].extra.push_back({"candidate_spec", nlohmann::json(kwbtest::testData("candidates/vector_add/partial_write.json")).dump()});
    records[1].extra.push_back({"problem_spec", nlohmann::json(kwbtest::testData("problems/vector_add.json")).dump()});
    records[1].extra.push_back({"kept", "{\"a\":[1,2]}"});
    records[2].id = "r-plain"; // no spec: written with a not_run flag
    records[3].id = "r-mutate";
    records[3].source.path = kwbtest::testData("candidates/relu/mutate_input.json");
    for (auto& r : records) {
        r.outcome = Outcome::Correct;
        r.speedup = 3.0;
    }
    EvalRecord bare; // seeded from specs alone: verify fills outcome, timings and speedup
    bare.id = "r-bare";
    bare.source.path = kwbtest::testData("candidates/relu/honest.json");
    records.push_back(bare);
    const QString in = dir + QStringLiteral("/records.jsonl");
    QVERIFY(writeRecordsFile(in.toStdString(), records).isOk());
    const QString out = dir + QStringLiteral("/verified.jsonl");

    const Run r = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("verified 5 records"));
    RecordSet set = loadNativeRecords(out.toStdString());
    QCOMPARE(set.records.size(), std::size_t{5});
    QCOMPARE(set.badRecordCount(), std::size_t{0});
    const auto byId = [&](const char* id) -> const EvalRecord& {
        for (const auto& rec : set.records)
            if (rec.id == id) return rec;
        static EvalRecord none;
        return none;
    };
    const EvalRecord& honest = byId("r-honest");
    QVERIFY(honest.verification.flags.empty());
    QVERIFY(findRaw(honest.verification.extra, "rerun"));
    QCOMPARE(*honest.verification.coverage->writtenFraction, 1.0);
    const EvalRecord& partial = byId("r-partial");
    QVERIFY(partial.verification.coverage.has_value());
    QVERIFY(std::fabs(*partial.verification.coverage->writtenFraction - 0.003) < 1e-4);
    QCOMPARE(partial.verification.coverage->grid.rows * partial.verification.coverage->grid.cols,
        static_cast<std::int32_t>(partial.verification.coverage->grid.writtenFraction.size()));
    QCOMPARE(qs(partial.verification.flags.at(0).code), QStringLiteral("low_coverage"));
    QVERIFY(findRaw(partial.extra, "kept")); // unknown fields survive
    QCOMPARE(*partial.speedup, 3.0);
    const EvalRecord& plain = byId("r-plain");
    QCOMPARE(qs(plain.verification.flags.at(0).code), QStringLiteral("not_run"));
    QCOMPARE(qs(byId("r-mutate").verification.flags.at(0).code), QStringLiteral("input_mutation"));
    QCOMPARE(*byId("r-partial").speedup, 3.0); // kept
    QVERIFY(byId("r-partial").candidate.medianMs.has_value()); // missing, so filled
    const EvalRecord& bareOut = byId("r-bare");
    QCOMPARE(bareOut.outcome, Outcome::Correct);
    QCOMPARE(*bareOut.candidate.medianMs, 0.1);
    QCOMPARE(qs(bareOut.candidate.provenance.gpu), QStringLiteral("Simulated GPU"));
    QCOMPARE(*bareOut.candidate.provenance.trials, std::int64_t{5});
    QVERIFY(bareOut.findBaseline("reference"));
    QCOMPARE(*bareOut.findBaseline("reference")->stats.medianMs, 0.2);
    QCOMPARE(*bareOut.speedup, 2.0);
    QCOMPARE(qs(bareOut.speedupBaseline), QStringLiteral("reference"));

    // A second run finds everything done and leaves the file alone.
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray before = f.readAll();
    f.close();
    const Run again = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), out});
    QCOMPARE(again.exitCode, 0);
    QVERIFY(again.out.contains("verified 0 records") && again.out.contains("(5 already there)"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
    f.close();

    // Interrupted mid-write: one complete line and half of the next.
    const int firstEnd = before.indexOf('\n') + 1;
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(before.left(firstEnd + 40));
    f.close();
    const Run resumed = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), out});
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QVERIFY2(resumed.out.contains("verified 4 records") && resumed.out.contains("(1 already there)"), resumed.out.constData());
    set = loadNativeRecords(out.toStdString());
    QCOMPARE(set.records.size(), std::size_t{5});
    QCOMPARE(set.badRecordCount(), std::size_t{0});
}

QTEST_GUILESS_MAIN(TestRerunCli)
#include "tst_rerun_cli.moc"
