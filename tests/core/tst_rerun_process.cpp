// The process client against real child processes: a stand-in runner that
// crashes, hangs, scribbles on the protocol channel or dies of a fatal error,
// and scripts that break the handshake. The parent must turn each into a
// result (or an error) with its reason and keep serving with a fresh runner.
#include <QtTest>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "rerun/flags.h"
#include "rerun/process_client.h"
#include "test_util.h"

using namespace kwb;
using kwbtest::qs;

namespace {

RerunRequest makeRequest(const std::string& candidateId, double timeoutS = 10.0)
{
    RerunRequest req;
    req.id = "req-" + candidateId;
    req.problem = *loadProblemSpec(kwbtest::testData("problems/vector_add.json"));
    req.candidate = *loadCandidateSpec(kwbtest::testData("candidates/vector_add/honest.json"));
    req.candidate.id = candidateId;
    req.options.timeoutS = timeoutS;
    return req;
}

ProcessClientOptions fakeRunner(std::vector<std::string> args = {})
{
    ProcessClientOptions o;
    o.runnerPath = KWB_FAKE_RUNNER;
    o.runnerArgs = std::move(args);
    o.startupTimeoutS = 10.0;
    return o;
}

double since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

class TestRerunProcess : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void honestRunWithProgress();
    void crashesBecomeFaults_data();
    void crashesBecomeFaults();
    void hangBecomesTimeout();
    void sanitizerPassGetsItsOwnLimit();
    void externalSigkillBecomesOom();
    void fatalResultRestartsRunner();
    void strayOutputIsTolerated();
    void noDevice();
    void cancellation();
    void brokenHandshakes_data();
    void brokenHandshakes();
    void findRunnerHonoursEnvironment();

private:
    QTemporaryDir m_dir;
    std::string script(const char* name, const char* body);
};

std::string TestRerunProcess::script(const char* name, const char* body)
{
    const std::string path = m_dir.path().toStdString() + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
    return path;
}

void TestRerunProcess::honestRunWithProgress()
{
    ProcessClient client(fakeRunner());
    auto caps = client.capabilities();
    QVERIFY2(caps.isOk(), caps.status().toString().c_str());
    QVERIFY(caps->devicePresent);
    QCOMPARE(qs(caps->device.name), QStringLiteral("Simulated GPU"));
    std::vector<std::string> stages;
    TaskContext ctx;
    ctx.progress = [&](const Progress& p) { stages.push_back(p.stage); };
    auto r = client.execute(makeRequest("vector_add_honest"), ctx);
    QVERIFY2(r.isOk(), r.status().toString().c_str());
    QCOMPARE(r->status, RerunStatus::Ok);
    QCOMPARE(qs(r->id), QStringLiteral("req-vector_add_honest"));
    QCOMPARE(r->sizes.at("N"), std::int64_t{4194304});
    QCOMPARE(stages, (std::vector<std::string>{"compile", "correctness", "timing"}));
    QVERIFY(deriveFlags(*r).empty());
    QCOMPARE(client.restarts(), 0);
    // Exploit stand-ins come back with the fields their flags need.
    auto partial = client.execute(makeRequest("vector_add_partial_write"), {});
    QVERIFY(partial.isOk());
    const auto flags = deriveFlags(*partial);
    QVERIFY(!flags.empty());
    QCOMPARE(qs(flags.front().code), QStringLiteral("low_coverage"));
}

void TestRerunProcess::crashesBecomeFaults_data()
{
    QTest::addColumn<QString>("candidate");
    QTest::addColumn<QString>("signal");
    QTest::addRow("abort") << "crash_abort" << "SIGABRT";
    // "SEGV": under AddressSanitizer the child reports the SEGV and aborts instead.
    QTest::addRow("segfault") << "segv_write" << "SEGV";
}

void TestRerunProcess::crashesBecomeFaults()
{
    QFETCH(QString, candidate);
    QFETCH(QString, signal);
    ProcessClient client(fakeRunner());
    const pid_t firstPid = (void(client.capabilities()), client.childPid());
    auto r = client.execute(makeRequest(candidate.toStdString()), {});
    QVERIFY2(r.isOk(), r.status().toString().c_str());
    QCOMPARE(r->status, RerunStatus::Fault);
    QVERIFY(r->runnerRestarted);
    QVERIFY2(qs(r->message).contains(signal), r->message.c_str());
    QVERIFY2(qs(r->message).contains(QStringLiteral("last stage: compile")), r->message.c_str());
    QCOMPARE(qs(deriveFlags(*r).front().code), QStringLiteral("fault"));
    // The parent keeps going with a fresh runner.
    auto next = client.execute(makeRequest("vector_add_honest"), {});
    QVERIFY2(next.isOk(), next.status().toString().c_str());
    QCOMPARE(next->status, RerunStatus::Ok);
    QCOMPARE(client.restarts(), 1);
    QVERIFY(client.childPid() != firstPid);
}

void TestRerunProcess::hangBecomesTimeout()
{
    ProcessClient client(fakeRunner());
    const auto t0 = std::chrono::steady_clock::now();
    auto r = client.execute(makeRequest("hang_forever", 0.5), {});
    const double took = since(t0);
    QVERIFY2(r.isOk(), r.status().toString().c_str());
    QCOMPARE(r->status, RerunStatus::Timeout);
    QVERIFY2(took < 3.0, qPrintable(QString::number(took)));
    QVERIFY(took >= 0.5);
    QVERIFY2(qs(r->message).contains(QStringLiteral("no result after")), r->message.c_str());
    QCOMPARE(qs(deriveFlags(*r).front().code), QStringLiteral("timeout"));
    QCOMPARE(client.childPid(), pid_t{-1});
    for (int i = 0; i < 2; ++i) {
        auto next = client.execute(makeRequest("vector_add_honest"), {});
        QVERIFY(next.isOk());
        QCOMPARE(next->status, RerunStatus::Ok);
    }
    QCOMPARE(client.restarts(), 1);
}

void TestRerunProcess::sanitizerPassGetsItsOwnLimit()
{
    RerunOptions o;
    o.timeoutS = 0.5;
    QCOMPARE(replyDeadlineS(o), 0.5);
    o.sanitize = {"memcheck", "initcheck"};
    QCOMPARE(sanitizerToolLimitS(0.5), 10.0);
    QCOMPARE(sanitizerToolLimitS(60.0), 600.0);
    QCOMPARE(replyDeadlineS(o), 0.5 + 2 * 15.0);

    // The same 1.2 s run: killed at the candidate's 0.5 s without the pass, answered with it.
    ProcessClient client(fakeRunner());
    auto plain = client.execute(makeRequest("sanitized_pass", 0.5), {});
    QVERIFY2(plain.isOk(), plain.status().toString().c_str());
    QCOMPARE(plain->status, RerunStatus::Timeout);
    RerunRequest req = makeRequest("sanitized_pass", 0.5);
    req.options.sanitize = {"memcheck"};
    auto sanitized = client.execute(req, {});
    QVERIFY2(sanitized.isOk(), sanitized.status().toString().c_str());
    QCOMPARE(sanitized->status, RerunStatus::Ok);
}

void TestRerunProcess::externalSigkillBecomesOom()
{
    ProcessClient client(fakeRunner());
    QVERIFY(client.capabilities().isOk());
    const pid_t pid = client.childPid();
    std::thread killer([pid] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::kill(pid, SIGKILL); // what the kernel's OOM killer does
    });
    auto r = client.execute(makeRequest("hang_until_killed", 10.0), {});
    killer.join();
    QVERIFY(r.isOk());
    QCOMPARE(r->status, RerunStatus::OutOfMemory);
    QVERIFY2(qs(r->message).contains(QStringLiteral("SIGKILL")), r->message.c_str());
    QCOMPARE(qs(deriveFlags(*r).front().code), QStringLiteral("oom"));
}

void TestRerunProcess::fatalResultRestartsRunner()
{
    ProcessClient client(fakeRunner());
    auto r = client.execute(makeRequest("fatal_sticky"), {});
    QVERIFY(r.isOk());
    QCOMPARE(r->status, RerunStatus::Fault);
    QVERIFY(r->fatal);
    QVERIFY(r->runnerRestarted);
    QCOMPARE(client.childPid(), pid_t{-1}); // reaped; the next request starts a fresh one
    auto next = client.execute(makeRequest("vector_add_honest"), {});
    QVERIFY(next.isOk());
    QCOMPARE(next->status, RerunStatus::Ok);
    QCOMPARE(client.restarts(), 1);
}

void TestRerunProcess::strayOutputIsTolerated()
{
    ProcessClient client(fakeRunner());
    auto r = client.execute(makeRequest("garbage_printer"), {});
    QVERIFY2(r.isOk(), r.status().toString().c_str());
    QCOMPARE(r->status, RerunStatus::Ok);
    QCOMPARE(client.restarts(), 0);
}

void TestRerunProcess::noDevice()
{
    ProcessClient client(fakeRunner({"--no-device"}));
    auto caps = client.capabilities();
    QVERIFY(caps.isOk());
    QVERIFY(!caps->devicePresent);
    QVERIFY(qs(caps->reason).contains(QStringLiteral("no CUDA device")));
    auto r = client.execute(makeRequest("vector_add_honest"), {});
    QVERIFY(r.isOk());
    QCOMPARE(r->status, RerunStatus::NoDevice);
}

void TestRerunProcess::cancellation()
{
    ProcessClient client(fakeRunner());
    QVERIFY(client.capabilities().isOk());
    CancelFlag cancel;
    TaskContext ctx;
    ctx.cancel = &cancel;
    std::thread canceller([&cancel] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        cancel.cancel();
    });
    const auto t0 = std::chrono::steady_clock::now();
    auto r = client.execute(makeRequest("hang_cancel_me", 30.0), ctx);
    canceller.join();
    QVERIFY(!r.isOk());
    QCOMPARE(r.status().code(), ErrorCode::Cancelled);
    QVERIFY(since(t0) < 3.0);
    auto next = client.execute(makeRequest("vector_add_honest"), {});
    QVERIFY(next.isOk());
    QCOMPARE(next->status, RerunStatus::Ok);
}

void TestRerunProcess::brokenHandshakes_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("reason");
    QTest::addRow("exits at once") << "exit3.sh" << "echo 'cannot init' >&2; exit 3" << "exited with status 3; its stderr ends with: cannot init";
    QTest::addRow("prints garbage") << "garbage.sh" << "echo 'hello there'; echo '{\"not\": \"protocol\"}'"
                                    << "did not complete the handshake";
    QTest::addRow("never answers") << "silent.sh" << "exec sleep 30" << "no reply within 1 s";
    QTest::addRow("wrong version") << "v2.sh"
                                   << "read line; echo '{\"protocol\": \"kwb.rerun/2\", \"type\": \"capabilities\", "
                                      "\"id\": \"hello-1\"}'; exec sleep 30"
                                   << "no reply within 1 s";
    QTest::addRow("refuses") << "refuse.sh"
                             << "read line; echo '{\"protocol\": \"kwb.rerun/1\", \"type\": \"error\", \"id\": "
                                "\"hello-1\", \"message\": \"driver too old\"}'"
                             << "driver too old";
}

void TestRerunProcess::brokenHandshakes()
{
    QFETCH(QString, name);
    QFETCH(QString, body);
    QFETCH(QString, reason);
    ProcessClientOptions o;
    o.runnerPath = script(name.toUtf8().constData(), body.toUtf8().constData());
    o.startupTimeoutS = 1.0;
    ProcessClient client(o);
    const auto t0 = std::chrono::steady_clock::now();
    auto caps = client.capabilities();
    QVERIFY(!caps.isOk());
    const QString m = qs(caps.status().toString());
    QVERIFY2(m.contains(reason), qPrintable(m));
    QVERIFY2(m.contains(qs(o.runnerPath)) || m.contains(QStringLiteral("refused")), qPrintable(m));
    QVERIFY(since(t0) < 4.0);
    QCOMPARE(client.childPid(), pid_t{-1});
    // A request fails the same way: an executor error, not a candidate result.
    auto r = client.execute(makeRequest("vector_add_honest"), {});
    QVERIFY(!r.isOk());
}

void TestRerunProcess::findRunnerHonoursEnvironment()
{
    qputenv("KWB_RUNNER", KWB_FAKE_RUNNER);
    auto found = findRunner();
    QVERIFY(found.isOk());
    QCOMPARE(qs(*found), QStringLiteral(KWB_FAKE_RUNNER));
    qputenv("KWB_RUNNER", "/nonexistent/kwb-runner");
    auto missing = findRunner();
    QVERIFY(!missing.isOk());
    QVERIFY(qs(missing.status().message()).contains(QStringLiteral("/nonexistent/kwb-runner")));
    qunsetenv("KWB_RUNNER");
    auto none = findRunner(); // the test binary has no kwb-runner beside it
    QVERIFY(!none.isOk());
    QVERIFY(qs(none.status().message()).contains(QStringLiteral("set KWB_RUNNER")));

    ProcessClientOptions o;
    o.runnerPath = "/nonexistent/kwb-runner";
    ProcessClient client(o);
    auto caps = client.capabilities();
    QVERIFY(!caps.isOk());
    QVERIFY(qs(caps.status().message()).contains(QStringLiteral("/nonexistent/kwb-runner")));
}

QTEST_GUILESS_MAIN(TestRerunProcess)
#include "tst_rerun_process.moc"
