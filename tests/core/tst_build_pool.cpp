// The build pool: parallel processes with timeouts, long-lived build lanes,
// the compiler's first error, and samples pre-built through stand-ins for
// `kwb_torch_bridge.py --build FILE` and `--build-serve` (shell scripts that
// behave like them: "built …" or a compiler log; a JSON line per sample).
#include <sys/resource.h>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>

#include <fstream>

#include "rerun/kernelbench_sample.h"
#include "test_util.h"
#include "workbench/build_board.h"
#include "workbench/build_lanes.h"
#include "workbench/build_pool.h"

#include <thread>

using namespace kwb;
using namespace kwb::workbench;

namespace {

void writeFile(const std::string& path, const std::string& text, bool executable = false)
{
    std::ofstream(path) << text;
    if (executable) QFile::setPermissions(QString::fromStdString(path), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

// Sets KWB_BUILD_LANES for one scope: "1" the lanes, "0" a process per sample.
struct LanesMode {
    explicit LanesMode(const char* v) { qputenv("KWB_BUILD_LANES", v); }
    ~LanesMode() { qunsetenv("KWB_BUILD_LANES"); }
};

// The two stand-ins in one script: `--build FILE` (exit status, stderr) and
// `--build-serve` (a JSON line per path read). BROKEN fails with a compiler
// error, SLOW takes 6 s; every sample built is appended to `calls`.
std::string bridgeStandIn(const std::string& d)
{
    return "#!/bin/sh\n"
           "one() { echo \"$1\" >> \"" + d + "/calls\"; if grep -q SLOW \"$1\"; then sleep 6; fi\n"
           "  if grep -q BROKEN \"$1\"; then echo \"[2/3] nvcc\" >&2; echo \"$1.cu(4): error: expected a ';'\" >&2; return 1; fi; }\n"
           "if [ \"$2\" = --build ]; then one \"$3\" || { echo \"failed $3: Error building extension\" >&2; exit 1; }\n"
           "  echo \"built $3 in 0.1 s (compiled)\" >&2; exit 0; fi\n"
           "[ \"$2\" = --build-serve ] || exit 9\n"
           "echo start >> \"" + d + "/lanes\"\n"
           "while IFS= read -r f; do\n"
           "  if one \"$f\"; then echo \"{\\\"path\\\":\\\"$f\\\",\\\"ok\\\":true,\\\"cache_hit\\\":false}\";\n"
           "  else echo \"{\\\"path\\\":\\\"$f\\\",\\\"ok\\\":false,\\\"error\\\":\\\"Error building extension\\\"}\"; fi\n"
           "done\n";
}

// Cancels `flag` after `ms` milliseconds, from a thread the caller joins.
std::thread cancelAfter(CancelFlag& flag, int ms)
{
    return std::thread([&flag, ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        flag.cancel();
    });
}

int lineCount(const std::string& path)
{
    std::ifstream in(path);
    int n = 0;
    for (std::string l; std::getline(in, l);) ++n;
    return n;
}

RerunJob sampleJob(const std::string& id, const std::string& source)
{
    RerunJob j;
    j.recordId = id;
    j.executor = ExecutorKind::Bridge;
    j.request.candidate.id = id;
    j.request.candidate.form = CandidateForm::KernelBenchSample;
    j.request.candidate.source = source;
    return j;
}

} // namespace

class TstBuildPool : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void runsInParallelAndBounded()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        // Each task marks its start and end; with 3 workers at most 3 are inside at once, and more than one is.
        writeFile(d + "/task.sh",
            "#!/bin/sh\nmkdir \"$1/in.$2\" 2>/dev/null; n=$(ls -d \"$1\"/in.* | wc -l); echo $n > \"$1/seen.$2\"; sleep 0.3; "
            "rmdir \"$1/in.$2\"; echo done >&2\n",
            true);
        std::vector<PoolTask> tasks;
        for (int i = 0; i < 9; ++i) tasks.push_back({{d + "/task.sh", d, std::to_string(i)}, 30.0});
        std::vector<Progress> seen;
        TaskContext ctx;
        ctx.progress = [&](const Progress& p) { seen.push_back(p); };
        const auto results = runPool(tasks, 3, ctx);
        int most = 0;
        for (int i = 0; i < 9; ++i) {
            QCOMPARE(results[static_cast<std::size_t>(i)].exitCode, 0);
            QVERIFY(results[static_cast<std::size_t>(i)].stderrText.find("done") != std::string::npos);
            std::ifstream in(d + "/seen." + std::to_string(i));
            int n = 0;
            in >> n;
            most = std::max(most, n);
        }
        QVERIFY2(most >= 2 && most <= 3, qPrintable(QString::number(most)));
        QCOMPARE(seen.back().done, std::int64_t{9});
        QCOMPARE(seen.back().total, std::int64_t{9});
    }

    void timeoutKillsTheGroup()
    {
        const auto results = runPool({{{"/bin/sh", "-c", "sleep 30 & sleep 30"}, 0.3}, {{"/bin/true"}, 5.0}}, 2);
        QVERIFY(results[0].timedOut);
        QCOMPARE(results[0].exitCode, -1);
        QVERIFY(results[0].seconds < 10);
        QCOMPARE(results[1].exitCode, 0);
        const auto missing = runPool({{{"/nonexistent/compiler"}, 5.0}}, 1);
        QVERIFY(!missing[0].startError.empty() || missing[0].exitCode == 127);
    }

    // Builds run niced (10 by default, KWB_BUILD_NICE overrides) so the GPU side's processes
    // are scheduled on time; what a build starts inherits it.
    void buildsRunBelowNormalPriority()
    {
        const char* probe = "sleep 0.3; sh -c 'cut -d\\) -f2 /proc/$$/stat | cut -d\" \" -f18' >&2";
        const int base = ::getpriority(PRIO_PROCESS, 0);
        qunsetenv("KWB_BUILD_NICE");
        auto r = runPool({{{"/bin/sh", "-c", probe}, 5.0}}, 1);
        QCOMPARE(r[0].exitCode, 0);
        QCOMPARE(QString::fromStdString(r[0].stderrText).trimmed().toInt(), std::min(19, base + 10));
        qputenv("KWB_BUILD_NICE", "0");
        r = runPool({{{"/bin/sh", "-c", probe}, 5.0}}, 1);
        QCOMPARE(QString::fromStdString(r[0].stderrText).trimmed().toInt(), base);
        qunsetenv("KWB_BUILD_NICE");
    }

    void cancelledTasksSaySo()
    {
        // An interrupted pool: the running task is killed, the rest never start; both
        // say "cancelled" (kwb verify then reports them apart from compile failures).
        CancelFlag cancel;
        TaskContext ctx;
        ctx.cancel = &cancel;
        std::thread canceller = cancelAfter(cancel, 300);
        const auto results = runPool({{{"/bin/sleep", "30"}, 60.0}, {{"/bin/sleep", "30"}, 60.0}, {{"/bin/true"}, 5.0}}, 1, ctx);
        canceller.join();
        QVERIFY(results[0].cancelled);
        QVERIFY(!results[0].timedOut);
        QVERIFY(results[0].seconds < 10);
        QVERIFY(results[1].cancelled);
        QVERIFY(results[2].cancelled);
        const auto plain = runPool({{{"/bin/false"}, 5.0}}, 1);
        QVERIFY(!plain[0].cancelled); // a failure is not a cancellation
    }

    void firstErrorOfACompilerLog_data()
    {
        QTest::addColumn<QString>("log");
        QTest::addColumn<QString>("first");
        QTest::addRow("nvcc") << "[1/3] nvcc …\n/tmp/x/cuda.cu(12): error: identifier \"foo\" is undefined\n"
                                 "/tmp/x/cuda.cu(13): error: expected a \";\"\n2 errors detected\n"
                              << "/tmp/x/cuda.cu(12): error: identifier \"foo\" is undefined";
        QTest::addRow("gcc") << "main.cpp: In function 'f':\nmain.cpp:3:5: error: 'g' was not declared\n"
                             << "main.cpp:3:5: error: 'g' was not declared";
        QTest::addRow("python") << "Traceback (most recent call last):\n  File \"s.py\", line 1\nSyntaxError: invalid syntax\n\n"
                                << "SyntaxError: invalid syntax";
    }
    void firstErrorOfACompilerLog()
    {
        QFETCH(QString, log);
        QFETCH(QString, first);
        QCOMPARE(QString::fromStdString(firstCompilerError(log.toStdString())), first);
    }

    void samplesBuiltOncePerSourceAndFailuresNamed_data()
    {
        QTest::addColumn<QByteArray>("lanes");
        QTest::newRow("lanes") << QByteArray("1");
        QTest::newRow("a process per sample") << QByteArray("0");
    }

    void samplesBuiltOncePerSourceAndFailuresNamed()
    {
        QFETCH(QByteArray, lanes);
        const LanesMode mode(lanes.constData());
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/python3", bridgeStandIn(d), true);
        writeFile(d + "/bridge.py", "# not run: the stand-in interpreter ignores it\n");
        TorchBridgeCommand cmd{d + "/python3", d + "/bridge.py"};
        const RerunJob a = sampleJob("a", "class ModelNew: pass  # ok\n");
        const RerunJob a2 = sampleJob("a-again", "class ModelNew: pass  # ok\n");
        const RerunJob b = sampleJob("b", "class ModelNew: pass  # BROKEN\n");
        const RerunJob c = sampleJob("c", "class ModelNew: pass  # ok too\n");
        RerunJob native;
        native.executor = ExecutorKind::Runner;
        auto report = prebuildSamples({&a, &a2, &b, &native, &c}, cmd, 2, d + "/scratch");
        QVERIFY2(report.isOk(), report.status().toString().c_str());
        QCOMPARE(report->distinct, std::size_t{3});
        QCOMPARE(report->failed, std::size_t{1});
        QCOMPARE(report->buildSeconds.size(), std::size_t{3});
        const auto& built = report->bySource.at(sampleSourceKey(a.request.candidate.source));
        QVERIFY(built.ok);
        QVERIFY(!built.cacheHit);
        QVERIFY(report->bySource.at(sampleSourceKey(c.request.candidate.source)).ok);
        const auto& broken = report->bySource.at(sampleSourceKey(b.request.candidate.source));
        QVERIFY(!broken.ok);
        QVERIFY2(broken.error.find("error: expected a ';'") != std::string::npos, broken.error.c_str());
        QCOMPARE(lineCount(d + "/calls"), 3); // the duplicate source is built once
        // Two lanes served three samples (a failed build does not end its lane).
        if (lanes == "1") QCOMPARE(lineCount(d + "/lanes"), 2);
    }

    void lanesReplaceCrashedAndHungLanes()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        // CRASH exits mid-sample, HANG never answers, JUNK answers outside the protocol,
        // MISMATCH answers for another sample.
        writeFile(d + "/lane.sh",
            "#!/bin/sh\necho start >> \"" + d + "/lanes\"\necho 'lane log' >&2\n"
            "while IFS= read -r f; do\n"
            "  case $f in CRASH*) echo 'nvcc died' >&2; exit 3;; HANG*) sleep 60;; JUNK*) echo 'not json';;\n"
            "  MISMATCH*) echo '{\"path\":\"other\",\"ok\":true}';;\n"
            "  *) echo '{\"ok\":true,\"cache_hit\":true}';; esac\n"
            "done\n",
            true);
        const std::vector<std::string> inputs{"a", "CRASH", "b", "HANG", "JUNK", "MISMATCH", "c", "d"};
        std::vector<std::size_t> order;
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = runLanes({d + "/lane.sh"}, inputs, 2, 1.5, {}, [&](std::size_t i, const LaneResult&) { order.push_back(i); });
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        QCOMPARE(r.size(), inputs.size());
        QCOMPARE(order.size(), inputs.size());
        for (std::size_t i : {0u, 2u, 6u, 7u}) {
            QVERIFY2(r[i].ok && r[i].cacheHit, inputs[i].c_str());
            QVERIFY(r[i].log.empty());
        }
        QVERIFY(!r[1].ok && !r[1].timedOut);
        QVERIFY2(r[1].log.find("nvcc died") != std::string::npos, r[1].log.c_str());
        QVERIFY2(r[1].log.find("exited with status 3") != std::string::npos, r[1].log.c_str());
        QVERIFY(!r[3].ok && r[3].timedOut);
        QVERIFY(r[3].seconds >= 1.5);
        QVERIFY(!r[4].ok && r[4].log.find("broke its protocol: not json") != std::string::npos);
        QVERIFY2(!r[5].ok && r[5].log.find("broke its protocol") != std::string::npos, r[5].log.c_str());
        QVERIFY2(wall < 20.0, std::to_string(wall).c_str()); // the hung lane was killed, not waited for
        // Two lanes at first, and one more after each lane that ended badly while inputs were left.
        const int started = lineCount(d + "/lanes");
        QVERIFY2(started >= 3 && started <= 6, std::to_string(started).c_str());
    }

    void lanesThatCannotServeFailEverySample()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/lane.sh", "#!/bin/sh\necho 'no CUDA device' >&2\nexit 1\n", true);
        const auto r = runLanes({d + "/lane.sh"}, {"a", "b", "c"}, 2, 30.0);
        QCOMPARE(r.size(), std::size_t{3});
        for (const auto& x : r) {
            QVERIFY(!x.ok && !x.cancelled);
            QVERIFY2(x.log.find("no CUDA device") != std::string::npos, x.log.c_str());
        }
        const auto missing = runLanes({d + "/no-such-program"}, {"a"}, 1, 30.0);
        QVERIFY(!missing[0].ok && missing[0].log.find("cannot start") != std::string::npos);
    }

    void lanesEndTogether()
    {
        // At the end every lane gets its end of input at once: four lanes that each take
        // a second to exit cost about one second, not four.
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/lane.sh", "#!/bin/sh\nwhile IFS= read -r f; do echo '{\"ok\":true}'; done\nsleep 1\n", true);
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = runLanes({d + "/lane.sh"}, {"a", "b", "c", "d"}, 4, 30.0);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (const auto& x : r) QVERIFY(x.ok);
        QVERIFY2(wall >= 0.9 && wall < 3.0, std::to_string(wall).c_str());
    }

    void lanesStopOnCancel()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/lane.sh", "#!/bin/sh\nwhile IFS= read -r f; do sleep 60; done\n", true);
        CancelFlag cancel;
        TaskContext ctx;
        ctx.cancel = &cancel;
        std::thread canceller = cancelAfter(cancel, 300);
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = runLanes({d + "/lane.sh"}, {"a", "b", "c"}, 2, 120.0, ctx);
        canceller.join();
        QVERIFY(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10.0);
        for (const auto& x : r) QVERIFY(x.cancelled && !x.ok);
    }

    void eachSampleIsAnnouncedAsItsBuildEnds_data() { samplesBuiltOncePerSourceAndFailuresNamed_data(); }

    void eachSampleIsAnnouncedAsItsBuildEnds()
    {
        // The GPU loop starts on a sample as soon as its own build ends: a
        // quick sample is announced while a slow one is still building.
        QFETCH(QByteArray, lanes);
        const LanesMode mode(lanes.constData());
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/python3", bridgeStandIn(d), true);
        TorchBridgeCommand cmd{d + "/python3", d + "/bridge.py"};
        const RerunJob slow = sampleJob("slow", "class ModelNew: pass  # SLOW\n");
        const RerunJob quick = sampleJob("quick", "class ModelNew: pass  # quick\n");
        BuildBoard board;
        const std::vector<const RerunJob*> jobs{&slow, &quick};
        QCOMPARE(sampleKeysToBuild(jobs).size(), std::size_t{2});
        board.expect(sampleKeysToBuild(jobs));
        std::thread builder([&] {
            auto r = prebuildSamples(jobs, cmd, 2, d + "/scratch", {},
                [&](const std::string& key, const SampleBuild& b) { board.publish(key, b); });
            QVERIFY(r.isOk());
            board.close();
        });
        const auto t0 = std::chrono::steady_clock::now();
        auto q = board.wait(sampleSourceKey(quick.request.candidate.source));
        const double quickS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        QVERIFY(q && q->ok);
        QVERIFY2(quickS < 4.5, std::to_string(quickS).c_str()); // not behind the slow one (6 s)
        auto s = board.wait(sampleSourceKey(slow.request.candidate.source));
        QVERIFY(s && s->ok);
        builder.join();
        // A key the pool never builds is not waited for.
        QVERIFY(!board.wait("not-a-sample"));
    }

    void boardStopsWaitingOnCloseAndCancel()
    {
        BuildBoard board;
        board.expect({"k"});
        CancelFlag cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            cancel.cancel();
        });
        QVERIFY(!board.wait("k", &cancel)); // cancelled while waiting
        canceller.join();
        std::thread closer([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            board.close();
        });
        QVERIFY(!board.wait("k")); // the pool ended without building it
        closer.join();
        SampleBuild failed;
        failed.error = "x.cu(1): error: boom";
        board.publish("k", failed);
        auto b = board.wait("k");
        QVERIFY(b && !b->ok && b->error == failed.error);
    }
};

QTEST_GUILESS_MAIN(TstBuildPool)
#include "tst_build_pool.moc"
