// The build pool: parallel processes with timeouts, the compiler's first
// error, and samples pre-built through a stand-in for `kwb_torch_bridge.py
// --build` (a shell script that behaves like it: "built …" or a compiler log).
#include <sys/resource.h>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>

#include <fstream>

#include "rerun/kernelbench_sample.h"
#include "test_util.h"
#include "workbench/build_board.h"
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
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel.cancel();
        });
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

    void samplesBuiltOncePerSourceAndFailuresNamed()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        // Stand-in for `python3 kwb_torch_bridge.py --build FILE`: $1 is the script, $2 --build, $3 the sample.
        writeFile(d + "/python3",
            "#!/bin/sh\n[ \"$2\" = --build ] || exit 9\necho \"$3\" >> \"" + d + "/calls\"\n"
            "if grep -q BROKEN \"$3\"; then echo \"[2/3] nvcc\" >&2; echo \"$3.cu(4): error: expected a ';'\" >&2; "
            "echo \"failed $3: Error building extension\" >&2; exit 1; fi\necho \"built $3 in 0.1 s (compiled)\" >&2\n",
            true);
        writeFile(d + "/bridge.py", "# not run: the stand-in interpreter ignores it\n");
        TorchBridgeCommand cmd{d + "/python3", d + "/bridge.py"};
        const RerunJob a = sampleJob("a", "class ModelNew: pass  # ok\n");
        const RerunJob a2 = sampleJob("a-again", "class ModelNew: pass  # ok\n");
        const RerunJob b = sampleJob("b", "class ModelNew: pass  # BROKEN\n");
        RerunJob native;
        native.executor = ExecutorKind::Runner;
        auto report = prebuildSamples({&a, &a2, &b, &native}, cmd, 4, d + "/scratch");
        QVERIFY2(report.isOk(), report.status().toString().c_str());
        QCOMPARE(report->distinct, std::size_t{2});
        QCOMPARE(report->failed, std::size_t{1});
        const auto& built = report->bySource.at(sampleSourceKey(a.request.candidate.source));
        QVERIFY(built.ok);
        const auto& broken = report->bySource.at(sampleSourceKey(b.request.candidate.source));
        QVERIFY(!broken.ok);
        QVERIFY2(broken.error.find("error: expected a ';'") != std::string::npos, broken.error.c_str());
        std::ifstream calls(d + "/calls");
        int lines = 0;
        for (std::string l; std::getline(calls, l);) ++lines;
        QCOMPARE(lines, 2); // the duplicate source is built once
    }

    void eachSampleIsAnnouncedAsItsBuildEnds()
    {
        // The GPU loop starts on a sample as soon as its own build ends: a
        // quick sample is announced while a slow one is still building.
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/python3",
            "#!/bin/sh\nif grep -q SLOW \"$3\"; then sleep 6; fi\necho \"built $3 in 0.1 s (compiled)\" >&2\n", true);
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
