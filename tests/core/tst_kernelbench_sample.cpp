// KernelBench samples as re-run requests (core/rerun/kernelbench_sample.h) and
// the PyTorch bridge's behaviour on a machine without PyTorch, which is what
// this machine and CI are: the bridge must say so through the protocol and
// exit non-zero.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <fstream>

#include "base/mapped_file.h"
#include "records/leaderboard_importer.h"
#include "rerun/flags.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/process_client.h"
#include "rerun/protocol.h"
#include "test_util.h"

using namespace kwb;
using kwbtest::qs;

namespace {

const std::string kBridgeDir = kwbtest::testData("kernelbench_bridge");
const std::string kBridgeScript = std::string(KWB_TEST_DATA_DIR) + "/../../app/runner/bridge/kwb_torch_bridge.py";

std::string readText(const std::string& path)
{
    auto text = readFileContents(path);
    return text ? *text : std::string();
}

void writeText(const QString& path, const std::string& text)
{
    std::ofstream out(path.toStdString());
    out << text;
}

// Restores an environment variable when the scope ends.
class EnvGuard {
public:
    EnvGuard(const char* name, const std::string& value) : m_name(name)
    {
        if (const char* old = std::getenv(name)) m_old = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~EnvGuard()
    {
        if (m_old) ::setenv(m_name, m_old->c_str(), 1);
        else ::unsetenv(m_name);
    }

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

bool pythonHasTorch()
{
    QProcess py;
    py.start(QStringLiteral("python3"), {QStringLiteral("-c"), QStringLiteral("import torch")});
    if (!py.waitForFinished(60000)) return false;
    return py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0;
}

} // namespace

class TestKernelBenchSample : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findsProblemInCheckout_data();
    void findsProblemInCheckout();
    void missingProblemNamesWhereItLooked();
    void twoMatchesAreAnError();
    void problemFileMustDefineModel();
    void sampleMustDefineModelNew();
    void everyLeaderboardKernelIsASample();
    void leaderboardRecordNeedsItsProblem();
    void requestFromRecordWithProblemSource();
    void requestSurvivesTheProtocol();
    void bridgeLookupErrors();
    void bridgeWithoutTorchSaysSo();
    void bridgeCheckExitsNonZeroWithoutTorch();
};

void TestKernelBenchSample::findsProblemInCheckout_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<int>("id");
    QTest::addColumn<QString>("name");
    // A checkout (DIR/KernelBench/level1) and the package folder itself (DIR/level1).
    QTest::addRow("checkout relu") << qs(kBridgeDir) << 1 << QStringLiteral("1_ReLU");
    QTest::addRow("checkout softmax") << qs(kBridgeDir) << 2 << QStringLiteral("2_Softmax");
    QTest::addRow("package folder") << qs(kBridgeDir + "/KernelBench") << 2 << QStringLiteral("2_Softmax");
}

void TestKernelBenchSample::findsProblemInCheckout()
{
    QFETCH(QString, dir);
    QFETCH(int, id);
    QFETCH(QString, name);
    auto p = findKernelBenchProblem(dir.toStdString(), 1, id);
    QVERIFY2(p, p ? "" : p.status().toString().c_str());
    QCOMPARE(qs(p->name), name);
    QCOMPARE(p->level.value_or(-1), 1);
    QCOMPARE(p->problemId.value_or(-1), id);
    QVERIFY(p->source.find("def get_inputs") != std::string::npos);
    const ProblemSpec spec = kernelBenchProblemSpec(*p);
    QCOMPARE(qs(spec.id), QStringLiteral("kernelbench_L1_") + name);
    QCOMPARE(qs(spec.reference.builtin), QStringLiteral("kernelbench_model"));
    QCOMPARE(spec.outputs.size(), std::size_t{1});
    QCOMPARE(spec.tolerance.kind, TolerancePolicy::Kind::KernelBench);
}

void TestKernelBenchSample::missingProblemNamesWhereItLooked()
{
    auto p = findKernelBenchProblem(kBridgeDir, 1, 77);
    QVERIFY(!p);
    QCOMPARE(p.status().code(), ErrorCode::NotFound);
    const QString msg = qs(p.status().message());
    QVERIFY2(msg.contains(qs(kBridgeDir + "/KernelBench/level1/77_*.py")), qPrintable(msg));
    QVERIFY2(msg.contains(qs(kBridgeDir + "/level1/77_*.py")), qPrintable(msg));
    auto noDir = findKernelBenchProblem("", 1, 1);
    QVERIFY(!noDir);
    QVERIFY(qs(noDir.status().message()).contains(QStringLiteral("--kernelbench")));
}

void TestKernelBenchSample::twoMatchesAreAnError()
{
    QTemporaryDir tmp;
    QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("KernelBench/level2")));
    const std::string problem = readText(kBridgeDir + "/KernelBench/level1/1_ReLU.py");
    writeText(tmp.path() + QStringLiteral("/KernelBench/level2/5_A.py"), problem);
    writeText(tmp.path() + QStringLiteral("/KernelBench/level2/5_B.py"), problem);
    writeText(tmp.path() + QStringLiteral("/KernelBench/level2/55_C.py"), problem);
    auto p = findKernelBenchProblem(tmp.path().toStdString(), 2, 5);
    QVERIFY(!p);
    const QString msg = qs(p.status().message());
    QVERIFY2(msg.contains(QStringLiteral("more than one")) && msg.contains(QStringLiteral("5_A.py"))
            && msg.contains(QStringLiteral("5_B.py")),
        qPrintable(msg));
    // "55_C.py" is problem 55, not a third match for 5.
    QVERIFY(!msg.contains(QStringLiteral("55_C")));
}

void TestKernelBenchSample::problemFileMustDefineModel()
{
    const std::string sample = kBridgeDir + "/samples/relu_honest.py";
    auto p = loadKernelBenchProblemFile(sample);
    QVERIFY(!p);
    QCOMPARE(qs(p.status().where().file), qs(sample));
    const QString msg = qs(p.status().message());
    QVERIFY2(msg.contains(QStringLiteral("class Model")) && msg.contains(QStringLiteral("get_inputs()"))
            && msg.contains(QStringLiteral("get_init_inputs()")),
        qPrintable(msg));
    auto missing = loadKernelBenchProblemFile(kBridgeDir + "/KernelBench/level1/9_Nothing.py");
    QVERIFY(!missing);
}

void TestKernelBenchSample::sampleMustDefineModelNew()
{
    auto problem = findKernelBenchProblem(kBridgeDir, 1, 1);
    QVERIFY(problem);
    // The problem file defines Model, not ModelNew: it is no sample.
    auto req = kernelBenchRequest(*problem, "not-a-sample", problem->source);
    QVERIFY(!req);
    QVERIFY2(qs(req.status().message()).contains(QStringLiteral("ModelNew")), qPrintable(qs(req.status().message())));

    const std::string sample = readText(kBridgeDir + "/samples/relu_partial_write.py");
    RerunOptions options;
    options.trials = 7;
    auto ok = kernelBenchRequest(*problem, "samples/relu partial#1", sample, options, "rec-1");
    QVERIFY2(ok, ok ? "" : ok.status().toString().c_str());
    QCOMPARE(ok->candidate.form, CandidateForm::KernelBenchSample);
    QCOMPARE(qs(ok->candidate.id), QStringLiteral("samples_relu_partial_1")); // spec-safe
    QCOMPARE(qs(ok->candidate.problem), qs(ok->problem.id));
    QCOMPARE(ok->options.trials, 7);
    QVERIFY(ok->kernelbench);
    QCOMPARE(qs(ok->kernelbench->recordId), QStringLiteral("rec-1"));
    QCOMPARE(qs(ok->kernelbench->problemSource), qs(problem->source));
}

void TestKernelBenchSample::everyLeaderboardKernelIsASample()
{
    KWB_REQUIRE_SHARED_DATA();
    const RecordSet set = loadLeaderboard(kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"));
    QCOMPARE(set.records.size(), std::size_t{413});
    std::size_t samples = 0;
    for (const auto& r : set.records) samples += isKernelBenchSample(r) ? 1 : 0;
    QCOMPARE(samples, std::size_t{413});
}

void TestKernelBenchSample::leaderboardRecordNeedsItsProblem()
{
    KWB_REQUIRE_SHARED_DATA();
    const RecordSet set = loadLeaderboard(kwbtest::sharedData("kernelbench/leaderboard/raw_data.json"));
    const EvalRecord& r = set.records.front();
    KernelBenchSampleOptions o;
    auto req = kernelBenchRequestFromRecord(r, o);
    QVERIFY(!req);
    const QString msg = qs(req.status().message());
    // The leaderboard numbers problems from 0, KernelBench's files from 1: the importer shifts.
    const std::int64_t number = *r.problem.id;
    QCOMPARE(number, std::int64_t{40}); // raw problem_id 39: 40_LayerNorm.py
    QCOMPARE(kernelBenchFileNumber(r).value_or(-1), number);
    QVERIFY2(msg.contains(qs(r.id)) && msg.contains(QStringLiteral("--kernelbench"))
            && msg.contains(QStringLiteral("problem ") + QString::number(number)),
        qPrintable(msg));
    // With a checkout that lacks the problem, the error names the paths looked at.
    o.kernelbenchDir = kBridgeDir;
    auto req2 = kernelBenchRequestFromRecord(r, o);
    QVERIFY(!req2);
    QVERIFY2(qs(req2.status().message()).contains(QStringLiteral("KernelBench/level1/") + QString::number(number) + QStringLiteral("_*.py")),
        qPrintable(qs(req2.status().message())));

    // A checkout that has it: the leaderboard's id 0 of level 1 is KernelBench's 1_*.py.
    const EvalRecord* zero = nullptr;
    for (const auto& rec : set.records)
        if (rec.problem.level == 1 && rec.problem.id == 1) zero = &rec;
    QVERIFY(zero);
    QTemporaryDir tmp;
    QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("KernelBench/level1")));
    writeText(tmp.path() + QStringLiteral("/KernelBench/level1/1_Square_matmul.py"),
        readText(kBridgeDir + "/KernelBench/level1/1_ReLU.py"));
    o.kernelbenchDir = tmp.path().toStdString();
    auto req3 = kernelBenchRequestFromRecord(*zero, o);
    QVERIFY2(req3, req3 ? "" : req3.status().toString().c_str());
    QCOMPARE(qs(req3->problem.name), QStringLiteral("1_Square_matmul"));
    QCOMPARE(qs(req3->kernelbench->recordId), qs(zero->id));

    // Records of other sources keep their number.
    EvalRecord own = *zero;
    own.id = "eval/L1/1/sample_0";
    own.run = "eval";
    QCOMPARE(kernelBenchFileNumber(own).value_or(-1), std::int64_t{1});
}

void TestKernelBenchSample::requestFromRecordWithProblemSource()
{
    EvalRecord r;
    r.id = "mine/relu-1";
    r.model = "test-model";
    r.problem.suite = "KernelBench";
    r.problem.level = 1;
    r.problem.id = 1;
    r.source.code = readText(kBridgeDir + "/samples/relu_honest.py");
    r.source.language = "python+cuda";
    const std::string problemText = readText(kBridgeDir + "/KernelBench/level1/1_ReLU.py");
    r.extra.push_back({"problem_source", nlohmann::json(problemText).dump()});
    QVERIFY(isKernelBenchSample(r));
    auto req = kernelBenchRequestFromRecord(r, {});
    QVERIFY2(req, req ? "" : req.status().toString().c_str());
    QCOMPARE(qs(req->kernelbench->problemSource), qs(problemText));
    QCOMPARE(qs(req->candidate.source), qs(r.source.code));
    QCOMPARE(qs(req->candidate.name), QStringLiteral("test-model mine/relu-1"));
    QCOMPARE(req->problem.level.value_or(-1), 1);

    // The record's own problem_file wins over --kernelbench as well.
    EvalRecord f = r;
    f.extra.clear();
    f.extra.push_back({"problem_file", nlohmann::json(kBridgeDir + "/KernelBench/level1/2_Softmax.py").dump()});
    auto req2 = kernelBenchRequestFromRecord(f, {});
    QVERIFY2(req2, req2 ? "" : req2.status().toString().c_str());
    QCOMPARE(qs(req2->problem.name), QStringLiteral("2_Softmax"));

    EvalRecord notSample = r;
    notSample.source.code = "print('hello')";
    QVERIFY(!isKernelBenchSample(notSample));
    QVERIFY(!kernelBenchRequestFromRecord(notSample, {}));
}

void TestKernelBenchSample::requestSurvivesTheProtocol()
{
    auto problem = findKernelBenchProblem(kBridgeDir, 1, 2);
    QVERIFY(problem);
    auto req = kernelBenchRequest(*problem, "softmax_zeros", readText(kBridgeDir + "/samples/softmax_zeros.py"), {}, "r#9");
    QVERIFY(req);
    const std::string line = encodeMessage(*req);
    auto back = decodeMessage(line);
    QVERIFY2(back, back ? "" : back.status().toString().c_str());
    const auto* got = std::get_if<RerunRequest>(&*back);
    QVERIFY(got);
    QCOMPARE(got->candidate.form, CandidateForm::KernelBenchSample);
    QCOMPARE(qs(got->candidate.source), qs(req->candidate.source));
    QVERIFY(got->kernelbench);
    QCOMPARE(qs(got->kernelbench->problemSource), qs(problem->source));
    QCOMPARE(qs(got->kernelbench->problemFile), qs(problem->path));
    QCOMPARE(qs(got->kernelbench->recordId), QStringLiteral("r#9"));
    QCOMPARE(qs(got->problem.reference.builtin), QStringLiteral("kernelbench_model"));
}

void TestKernelBenchSample::bridgeLookupErrors()
{
    {
        EnvGuard py("KWB_PYTHON", "/nonexistent/python3");
        auto b = findTorchBridge();
        QVERIFY(!b);
        QVERIFY2(qs(b.status().message()).contains(QStringLiteral("KWB_PYTHON is set to '/nonexistent/python3'")),
            qPrintable(qs(b.status().message())));
    }
    {
        EnvGuard script("KWB_TORCH_BRIDGE", "/nonexistent/kwb_torch_bridge.py");
        auto b = findTorchBridge();
        QVERIFY(!b);
        QVERIFY2(qs(b.status().message()).contains(QStringLiteral("/nonexistent/kwb_torch_bridge.py")),
            qPrintable(qs(b.status().message())));
    }
    EnvGuard script("KWB_TORCH_BRIDGE", kBridgeScript);
    auto b = findTorchBridge();
    QVERIFY2(b, b ? "" : b.status().toString().c_str());
    QVERIFY(b->python.ends_with("python3"));
    const ProcessClientOptions o = torchBridgeClientOptions(*b);
    QCOMPARE(qs(o.runnerPath), qs(b->python));
    QCOMPARE(qs(o.runnerArgs.back()), qs(b->script));
    // --python takes a name as a shell does (`--python python3`), or a path.
    auto byName = findTorchBridge("python3");
    QVERIFY2(byName, byName ? "" : byName.status().toString().c_str());
    QVERIFY(byName->python.find('/') != std::string::npos);
    QCOMPARE(qs(byName->python), qs(b->python));
    auto missing = findTorchBridge("no-such-python-xyz");
    QVERIFY(!missing);
    QVERIFY(qs(missing.status().message()).contains(QStringLiteral("--python 'no-such-python-xyz'")));
}

void TestKernelBenchSample::bridgeWithoutTorchSaysSo()
{
    if (pythonHasTorch()) QSKIP("python3 has PyTorch here: the bridge is checked on the GPU machine (tests/gpu)");
    EnvGuard script("KWB_TORCH_BRIDGE", kBridgeScript);
    auto b = findTorchBridge();
    QVERIFY2(b, b ? "" : b.status().toString().c_str());
    ProcessClient client(torchBridgeClientOptions(*b));
    auto caps = client.capabilities();
    QVERIFY2(caps, caps ? "" : caps.status().toString().c_str());
    QVERIFY(!caps->devicePresent);
    QVERIFY2(qs(caps->reason).startsWith(QStringLiteral("PyTorch is not installed")), qPrintable(qs(caps->reason)));
    QVERIFY(caps->references.empty());

    auto problem = findKernelBenchProblem(kBridgeDir, 1, 1);
    QVERIFY(problem);
    auto req = kernelBenchRequest(*problem, "relu_honest", readText(kBridgeDir + "/samples/relu_honest.py"));
    QVERIFY(req);
    auto result = client.execute(*req, {});
    QVERIFY2(result, result ? "" : result.status().toString().c_str());
    QCOMPARE(result->status, RerunStatus::NoDevice);
    QVERIFY2(qs(result->message).contains(QStringLiteral("PyTorch is not installed")), qPrintable(qs(result->message)));
    QCOMPARE(qs(result->candidateId), QStringLiteral("relu_honest"));
    const auto flags = deriveFlags(*result);
    QCOMPARE(flags.size(), std::size_t{1});
    QCOMPARE(qs(flags.front().code), QStringLiteral("not_run"));
    QCOMPARE(client.restarts(), 0);
}

void TestKernelBenchSample::bridgeCheckExitsNonZeroWithoutTorch()
{
    if (pythonHasTorch()) QSKIP("python3 has PyTorch here: the bridge is checked on the GPU machine (tests/gpu)");
    QProcess check;
    check.start(QStringLiteral("python3"), {qs(kBridgeScript), QStringLiteral("--check")});
    QVERIFY(check.waitForFinished(60000));
    QCOMPARE(check.exitCode(), 1);
    const QByteArray out = check.readAllStandardOutput();
    auto msg = decodeMessage(out.toStdString());
    QVERIFY2(msg, msg ? "" : msg.status().toString().c_str());
    const auto* caps = std::get_if<Capabilities>(&*msg);
    QVERIFY(caps);
    QVERIFY(!caps->devicePresent);

    // Serving the protocol: hello, then end of input: the exit status is non-zero too.
    QProcess serve;
    serve.start(QStringLiteral("python3"), {qs(kBridgeScript)});
    QVERIFY(serve.waitForStarted());
    serve.write(QByteArray::fromStdString(encodeMessage(HelloRequest{"h"}) + encodeMessage(ShutdownRequest{"s"})));
    serve.closeWriteChannel();
    QVERIFY(serve.waitForFinished(60000));
    QCOMPARE(serve.exitCode(), 1);
    // A wrong protocol version gets an error line naming both versions.
    QProcess wrong;
    wrong.start(QStringLiteral("python3"), {qs(kBridgeScript)});
    QVERIFY(wrong.waitForStarted());
    wrong.write("{\"protocol\":\"kwb.rerun/0\",\"type\":\"hello\",\"id\":\"x\"}\n");
    wrong.closeWriteChannel();
    QVERIFY(wrong.waitForFinished(60000));
    auto err = decodeMessage(wrong.readAllStandardOutput().toStdString());
    QVERIFY(err);
    const auto* e = std::get_if<ErrorMessage>(&*err);
    QVERIFY(e);
    QVERIFY2(qs(e->message).contains(QStringLiteral("kwb.rerun/0")) && qs(e->message).contains(QStringLiteral("kwb.rerun/1")),
        qPrintable(qs(e->message)));
}

QTEST_GUILESS_MAIN(TestKernelBenchSample)
#include "tst_kernelbench_sample.moc"
