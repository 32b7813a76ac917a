// The Slurm front end without Slurm: the job folder and its manifest, the job
// script, squeue's output, and how each task's state is told from the queue
// and the state files (there is no sacct without slurmdbd).
#include <QtTest>

#include <fstream>

#include "records/eval_record.h"
#include "records/native_writer.h"
#include "test_util.h"
#include "workbench/shard.h"
#include "workbench/slurm_array.h"
#include "workbench/slurm_job.h"

using namespace kwb;
using kwbtest::qs;

namespace {

void writeText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

} // namespace

class TestSlurmJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void preparesTheFolder();
    void refusesASecondPrepare();
    void manifestErrorsNameTheFile();
    void parsesSqueue();
    void tellsTaskStates();
    void taskLists_data();
    void taskLists();

private:
    QTemporaryDir m_dir;
    std::string m_records;
    Result<SlurmJob> m_job = Status(ErrorCode::NotFound, "not prepared");
};

void TestSlurmJob::initTestCase()
{
    QVERIFY(m_dir.isValid());
    std::vector<EvalRecord> records(20);
    for (std::size_t i = 0; i < records.size(); ++i) records[i].id = "r" + std::to_string(i);
    m_records = m_dir.filePath(QStringLiteral("records.jsonl")).toStdString();
    QVERIFY(writeRecordsFile(m_records, records).isOk());
    m_job = prepareSlurmJob({m_records}, m_dir.filePath(QStringLiteral("out.jsonl")).toStdString(),
        m_dir.filePath(QStringLiteral("out.jsonl.slurm")).toStdString(), 4, "/opt/kwb bin/kwb", {"--trials=5", "--timeout=60"},
        {"--partition=gpu"}, "gpu:h200:1");
    QVERIFY2(m_job, m_job.status().toString().c_str());
}

void TestSlurmJob::preparesTheFolder()
{
    const SlurmJob& job = *m_job;
    std::uint64_t total = 0;
    for (std::uint32_t i = 0; i < 4; ++i) {
        std::uint64_t n = 0;
        for (int r = 0; r < 20; ++r) n += shardOf("r" + std::to_string(r), 4) == i;
        QCOMPARE(job.shardSizes[i], n);
        total += n;
    }
    QCOMPARE(total, std::uint64_t{20});
    auto back = readSlurmJob(job.dir);
    QVERIFY2(back, back.status().toString().c_str());
    QCOMPARE(back->inputs, job.inputs);
    QCOMPARE(back->verifyArgs, job.verifyArgs);
    QCOMPARE(qs(back->gres), QStringLiteral("gpu:h200:1"));
    QCOMPARE(back->shardSizes, job.shardSizes);
    // The submissions survive the manifest, task lists included.
    SlurmJob copy = *back;
    copy.submissions.push_back({"77", {0, 1, 2, 3}, "2026-01-01T00:00:00Z"});
    copy.submissions.push_back({"80", {1, 3}, "2026-01-01T00:01:00Z"});
    QVERIFY(writeSlurmJob(copy).isOk());
    auto again = readSlurmJob(job.dir);
    QVERIFY(again);
    QCOMPARE(again->submissions.size(), std::size_t{2});
    QCOMPARE(again->submissions[1].tasks, (std::vector<std::uint32_t>{1, 3}));
    QCOMPARE(qs(again->submissions[0].jobId), QStringLiteral("77"));
    QVERIFY(writeSlurmJob(job).isOk());

    QFile script(qs(job.scriptPath()));
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QByteArray text = script.readAll();
    QVERIFY(text.startsWith("#!/bin/sh\n"));
    QVERIFY(text.contains("#SBATCH --gres=gpu:h200:1"));
    QVERIFY(text.contains("'/opt/kwb bin/kwb' verify")); // quoted for the shell
    QVERIFY(text.contains("--shard \"$task/4\""));
    QVERIFY(text.contains("/part-$task.jsonl --trials=5 --timeout=60"));
    QVERIFY(text.contains("export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1"));
    QVERIFY(text.contains("echo \"exit $rc $where\""));
}

void TestSlurmJob::refusesASecondPrepare()
{
    auto twice = prepareSlurmJob({m_records}, m_job->out, m_job->dir, 4, "kwb", {}, {}, "gpu:1");
    QVERIFY(!twice);
    QVERIFY(qs(twice.status().toString()).contains(qs(m_job->manifestPath())));
    QVERIFY(qs(twice.status().message()).contains(QStringLiteral("already prepared")));
    auto none = prepareSlurmJob({m_records}, m_job->out, m_dir.filePath(QStringLiteral("zero")).toStdString(), 0, "kwb", {}, {}, "gpu:1");
    QVERIFY(!none);
}

void TestSlurmJob::manifestErrorsNameTheFile()
{
    const QString dir = m_dir.filePath(QStringLiteral("broken"));
    QDir().mkpath(dir);
    writeText(QString(dir + QStringLiteral("/job.json")).toStdString(), "{\"schema\": \"kwb.slurm/1\", \"shards\": \"four\"}");
    auto bad = readSlurmJob(dir.toStdString());
    QVERIFY(!bad);
    QVERIFY2(qs(bad.status().toString()).contains(dir + QStringLiteral("/job.json")), bad.status().toString().c_str());
    writeText(QString(dir + QStringLiteral("/job.json")).toStdString(), "{\"schema\": \"kwb.other/1\"}");
    bad = readSlurmJob(dir.toStdString());
    QVERIFY(!bad);
    QVERIFY(qs(bad.status().message()).contains(QStringLiteral("not a kwb.slurm/1 job manifest")));
    auto absent = readSlurmJob(m_dir.filePath(QStringLiteral("nowhere")).toStdString());
    QVERIFY(!absent);
}

void TestSlurmJob::parsesSqueue()
{
    const auto q = parseSqueue("77|0|RUNNING|node1|None\n77|3|PENDING||Resources\n90|N/A|RUNNING|node2|None\n\n80|12|COMPLETING|node2|None");
    QCOMPARE(q.size(), std::size_t{3}); // the plain job (N/A) is not an array task
    QCOMPARE(qs(q[0].jobId), QStringLiteral("77"));
    QCOMPARE(q[1].task, 3u);
    QCOMPARE(qs(q[1].reason), QStringLiteral("Resources"));
    QCOMPARE(qs(q[2].state), QStringLiteral("COMPLETING"));
}

void TestSlurmJob::tellsTaskStates()
{
    SlurmJob job = *m_job;
    job.submissions = {{"77", {0, 1, 2, 3}, ""}, {"80", {1}, ""}};
    // task 0: done; 1: resubmitted and pending in job 80 (an old failure on file);
    // 2: "running" on file but gone from the queue (killed); 3: never started.
    writeText(job.statePath(0), "exit 0 77_0 node1\n");
    writeText(job.statePath(1), "exit 1 77_1 node2\n");
    writeText(job.statePath(2), "running 77_2 node2\n");
    writeText(job.logPath(2), "kwb slurm: task 2\n");
    writeText(job.partPath(2), "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\""); // two complete lines
    std::remove(job.statePath(3).c_str());
    const std::vector<QueuedTask> queue{{"80", 1, "PENDING", "", "Priority"}, {"77", 1, "RUNNING", "n", ""} /* stale: not the latest */};
    const auto tasks = slurmTaskStatus(job, queue);
    QCOMPARE(tasks.size(), std::size_t{4});
    QCOMPARE(tasks[0].state, TaskState::Done);
    QCOMPARE(qs(tasks[0].node), QStringLiteral("node1"));
    QCOMPARE(tasks[1].state, TaskState::Pending);
    QCOMPARE(qs(tasks[1].jobTask), QStringLiteral("80_1"));
    QCOMPARE(qs(tasks[1].detail), QStringLiteral("Priority"));
    QCOMPARE(tasks[2].state, TaskState::Failed);
    QVERIFY2(qs(tasks[2].detail).contains(QStringLiteral("stopped without an exit status")), tasks[2].detail.c_str());
    QVERIFY(qs(tasks[2].detail).contains(qs("log: " + job.logPath(2))));
    QCOMPARE(tasks[2].records, std::uint64_t{2});
    QCOMPARE(tasks[3].state, TaskState::Missing);
    QCOMPARE(tasksToResubmit(tasks), (std::vector<std::uint32_t>{2, 3}));
    const ArrayProgress p = summarize(tasks);
    QCOMPARE(p.done, 1u);
    QCOMPARE(p.pending, 1u);
    QVERIFY(!p.finished());
    QVERIFY(qs(progressLine(p, 4)).startsWith(QStringLiteral("4 tasks: 1 done, 1 pending, 1 failed, 1 missing; ")));
    // Once job 80 left the queue, task 1's file decides: its failure in job 77 still stands.
    const auto later = slurmTaskStatus(job, {});
    QCOMPARE(later[1].state, TaskState::Failed);
    QVERIFY(qs(later[1].detail).contains(QStringLiteral("exited with status 1")));
    for (std::uint32_t i = 0; i < 4; ++i) {
        std::remove(job.statePath(i).c_str());
        std::remove(job.partPath(i).c_str());
        std::remove(job.logPath(i).c_str());
    }
}

void TestSlurmJob::taskLists_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("tasks");
    QTest::addRow("range") << "0-7" << QList<int>{0, 1, 2, 3, 4, 5, 6, 7};
    QTest::addRow("single") << "3" << QList<int>{3};
    QTest::addRow("mixed") << "0-2,5,7-8" << QList<int>{0, 1, 2, 5, 7, 8};
    QTest::addRow("none") << "" << QList<int>{};
}

void TestSlurmJob::taskLists()
{
    QFETCH(QString, text);
    QFETCH(QList<int>, tasks);
    std::vector<std::uint32_t> t;
    for (int x : tasks) t.push_back(static_cast<std::uint32_t>(x));
    QCOMPARE(qs(taskListText(t)), text);
}

QTEST_GUILESS_MAIN(TestSlurmJob)
#include "tst_slurm_job.moc"
