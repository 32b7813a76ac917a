// One runner per GPU with stand-in runners as fake GPUs: `--gpus` resolves
// against nvidia-smi and CUDA_VISIBLE_DEVICES, every runner is pinned and has
// NVLink multicast off, a hang or crash on one GPU costs only its record while
// the others go on, and the results (placement aside) are those of one runner.
// Then `kwb verify --gpus all` and `--shard I/N` as users run them: the merged
// shards are byte for byte the file of one local run.
#include <QtTest>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <sys/stat.h>

#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "records/eval_record.h"
#include "records/native_writer.h"
#include "test_util.h"
#include "workbench/run_summary.h"
#include "workbench/runner_pool.h"
#include "workbench/shard.h"

using namespace kwb;
using kwbtest::qs;

namespace {

void writeFile(const QString& path, const std::string& text, bool executable = false)
{
    QDir().mkpath(QFileInfo(path).path());
    std::ofstream(path.toStdString(), std::ios::binary) << text;
    if (executable) ::chmod(path.toLocal8Bit().constData(), 0755);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A stand-in nvidia-smi that lists `n` GPUs (n = 0: none, as on a machine without a driver).
QString fakeNvidiaSmi(const QString& dir, int n)
{
    std::string script = "#!/bin/sh\n[ \"$1\" = -L ] || exit 9\n";
    if (n == 0) script += "echo 'No devices were found'\nexit 6\n";
    for (int i = 0; i < n; ++i)
        script += "echo 'GPU " + std::to_string(i) + ": NVIDIA Fake H200 (UUID: GPU-fake-" + std::to_string(i) + "0000)'\n";
    const QString path = dir + QStringLiteral("/nvidia-smi-%1").arg(n);
    writeFile(path, script, true);
    return path;
}

RerunRequest makeRequest(const std::string& candidateId, double timeoutS)
{
    RerunRequest req;
    req.id = "req-" + candidateId;
    req.problem = *loadProblemSpec(kwbtest::testData("problems/vector_add.json"));
    req.candidate = *loadCandidateSpec(kwbtest::testData("candidates/vector_add/honest.json"));
    req.candidate.id = candidateId;
    req.options.timeoutS = timeoutS;
    return req;
}

struct BatchRun {
    std::vector<PoolResult> results; // in delivery order
    double seconds = 0;
    std::int32_t restarts = 0;
};

BatchRun runBatch(RunnerPool& pool, const std::vector<RerunRequest>& requests)
{
    std::vector<PoolJob> jobs;
    for (const auto& r : requests) jobs.push_back({r.candidate.id, &r, &r.candidate, false});
    BatchRun run;
    const auto t0 = std::chrono::steady_clock::now();
    pool.run(jobs, nullptr, {}, [&](PoolResult&& r) {
        run.results.push_back(std::move(r));
        return true;
    });
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    run.restarts = pool.runnerRestarts();
    return run;
}

QString verdictOf(const RerunOutcome& o)
{
    if (!o.result) return QStringLiteral("error: ") + qs(o.error.toString());
    QString v = QString::fromLatin1(rerunStatusName(o.result->status));
    for (const auto& f : o.result->flags) v += QLatin1Char(' ') + qs(f.code);
    return v;
}

// A pool of `gpus` GPUs pinned by index (none: one unpinned runner), each served by `runnerPath`.
RunnerPoolOptions pinnedPool(int gpus, const std::string& runnerPath)
{
    RunnerPoolOptions o;
    o.runner = ProcessClientOptions{};
    o.runner->runnerPath = runnerPath;
    o.runner->startupTimeoutS = 10.0;
    for (int g = 0; g < gpus; ++g) o.gpus.push_back({g, std::to_string(g), "", ""});
    return o;
}

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

#if defined(KWB_CLI) && defined(KWB_WITH_GPU)
#define KWB_TEST_CLI 1
Run runKwb(const QStringList& args, const QMap<QString, QString>& env = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("KWB_RUNNER"), QStringLiteral(KWB_FAKE_RUNNER));
    e.remove(QStringLiteral("CUDA_VISIBLE_DEVICES"));
    for (auto it = env.begin(); it != env.end(); ++it) e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(KWB_CLI), args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

// Lines of a native output with verification.placement taken out (and returned).
QList<QJsonObject> recordsOf(const QByteArray& text, QList<QJsonObject>* placements = nullptr)
{
    QList<QJsonObject> out;
    for (const QByteArray& line : text.split('\n')) {
        if (line.isEmpty()) continue;
        QJsonObject o = QJsonDocument::fromJson(line).object();
        QJsonObject v = o.value(QStringLiteral("verification")).toObject();
        if (placements) placements->append(v.value(QStringLiteral("placement")).toObject());
        v.remove(QStringLiteral("placement"));
        o.insert(QStringLiteral("verification"), v);
        out.append(o);
    }
    return out;
}

std::string candidateJson(const std::string& id)
{
    return "{\"schema\": \"kwb.candidate/1\", \"id\": \"" + id + "\", \"problem\": \"tiny\", \"form\": \"nvrtc\", "
        "\"source\": \"extern \\\"C\\\" __global__ void k(float* o) {}\", "
        "\"launches\": [{\"entry\": \"k\", \"grid\": \"ceil_div(N, 256)\", \"block\": 256, \"args\": [\"out\"]}]}";
}

const char* kTinyProblem = R"json({"schema": "kwb.problem/1", "id": "tiny", "sizes": {"N": 4096},
  "inputs": [{"name": "x", "shape": ["N"]}], "outputs": [{"name": "out", "shape": ["N"]}],
  "reference": {"builtin": "relu"}, "flops": "N", "bytes": "8 * N"})json";

#endif

} // namespace

class TestRunnerPool : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void parsesNvidiaSmi();
    void resolvesGpuLists();
    void noGpusSaysWhy();
    void runnerEnvironmentPinsAndDisablesMulticast();
    void hangOnOneGpuCostsOnlyItsRecord();
    void aGpuWaitingForItsJobHoldsNoOtherBack();
    void startNamesTheGpuWithoutADevice();
    void verifyOnFourGpusMatchesOne();
    void rerunOnFourGpusMatchesOne();
    void shardsMergeToTheLocalFile();

private:
#ifdef KWB_TEST_CLI
    // kwb's environment with the logging runner, which notes in LIVE.log which
    // runners were alive when each started.
    QMap<QString, QString> withLiveLog(QMap<QString, QString> env, const QString& live) const
    {
        env.insert(QStringLiteral("KWB_RUNNER"), m_wrapper);
        env.insert(QStringLiteral("KWB_TEST_LIVE_DIR"), live);
        return env;
    }
    // The runner kwb probes first was gone before the GPUs' runners started: on a
    // real node it sat idle beside them, unpinned, holding memory of the first GPU.
    static void expectNoProbeBesideGpus(const QString& live)
    {
        QVERIFY2(QDir(live).entryList(QDir::Files).size() >= 5, "the logging runner did not run"); // the probe's, one per GPU
        const QByteArray beside = readAll(live + QStringLiteral(".log"));
        QVERIFY2(!beside.contains("beside unset"), beside.constData());
    }
#endif

    QTemporaryDir m_dir;
    QString m_wrapper; // a runner that logs its environment, then becomes the stand-in runner
    QString m_log;
};

void TestRunnerPool::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_log = m_dir.filePath(QStringLiteral("runner-env.log"));
    m_wrapper = m_dir.filePath(QStringLiteral("logging-runner"));
    writeFile(m_wrapper,
        "#!/bin/sh\necho \"cvd=${CUDA_VISIBLE_DEVICES-unset} order=${CUDA_DEVICE_ORDER-unset} nvls=${NCCL_NVLS_ENABLE-unset} "
        "symm=${TORCH_SYMM_MEM_DISABLE_MULTICAST-unset} nvshmem=${NVSHMEM_DISABLE_NVLS-unset}\" >> '"
            + m_log.toStdString() + "'\n"
        // Which runners were alive when this one started (KWB_TEST_LIVE_DIR: a pid file each).
        "if [ -n \"${KWB_TEST_LIVE_DIR-}\" ]; then mkdir -p \"$KWB_TEST_LIVE_DIR\"\n"
        "  for f in \"$KWB_TEST_LIVE_DIR\"/*; do [ -f \"$f\" ] && kill -0 \"${f##*/}\" 2>/dev/null && "
        "echo \"${CUDA_VISIBLE_DEVICES-unset} beside $(cat \"$f\")\" >> \"$KWB_TEST_LIVE_DIR.log\"; done\n"
        "  echo \"${CUDA_VISIBLE_DEVICES-unset}\" > \"$KWB_TEST_LIVE_DIR/$$\"\nfi\n"
        "[ \"${CUDA_VISIBLE_DEVICES-}\" = \"${KWB_TEST_NO_DEVICE_ON-none}\" ] && exec '"
            + std::string(KWB_FAKE_RUNNER) + "' --no-device\nexec '" + KWB_FAKE_RUNNER + "' \"$@\"\n",
        true);
}

void TestRunnerPool::parsesNvidiaSmi()
{
    auto gpus = parseNvidiaSmiList("GPU 0: NVIDIA H200 (UUID: GPU-5c1b2a3d-0000-1111-2222-333344445555)\n"
                                   "GPU 1: NVIDIA H200 (UUID: GPU-aaaa)\n"
                                   "  MIG 3g.71gb     Device  0: (UUID: MIG-bbbb)\n");
    QVERIFY2(gpus, gpus.status().toString().c_str());
    QCOMPARE(gpus->size(), std::size_t{2});
    QCOMPARE(gpus->at(0).index, 0);
    QCOMPARE(qs(gpus->at(0).name), QStringLiteral("NVIDIA H200"));
    QCOMPARE(qs(gpus->at(0).uuid), QStringLiteral("GPU-5c1b2a3d-0000-1111-2222-333344445555"));
    QCOMPARE(qs(gpus->at(1).visibleDevices), QStringLiteral("GPU-aaaa")); // pinned by UUID
    auto bad = parseNvidiaSmiList("GPU x: what\n");
    QVERIFY(!bad);
    QVERIFY2(qs(bad.status().toString()).contains(QStringLiteral("nvidia-smi -L:1:1")), bad.status().toString().c_str());
}

void TestRunnerPool::resolvesGpuLists()
{
    GpuEnvironment env;
    env.nvidiaSmi = fakeNvidiaSmi(m_dir.path(), 4).toStdString();
    auto all = resolveGpus("all", env);
    QVERIFY2(all, all.status().toString().c_str());
    QCOMPARE(all->size(), std::size_t{4});
    QCOMPARE(qs(all->at(3).uuid), QStringLiteral("GPU-fake-30000"));
    QCOMPARE(all->at(3).index, 3);
    auto some = resolveGpus("2, 0", env);
    QVERIFY(some);
    QCOMPARE(some->size(), std::size_t{2});
    QCOMPARE(some->at(0).index, 0); // position in the list
    QCOMPARE(qs(some->at(0).visibleDevices), QStringLiteral("GPU-fake-20000"));
    QCOMPARE(qs(some->at(1).visibleDevices), QStringLiteral("GPU-fake-00000"));
    auto byUuid = resolveGpus("GPU-abc", env);
    QVERIFY(byUuid);
    QCOMPARE(qs(byUuid->at(0).visibleDevices), QStringLiteral("GPU-abc"));

    const auto refused = [&](const char* spec, const char* reason, const GpuEnvironment& e) {
        auto r = resolveGpus(spec, e);
        QVERIFY2(!r, spec);
        QVERIFY2(qs(r.status().message()).contains(QLatin1String(reason)), r.status().message().c_str());
    };
    refused("4", "there is no GPU 4", env);
    refused("0,0", "listed twice", env);
    refused("zero", "neither a GPU index nor a GPU UUID", env);
    refused("", "neither a GPU index", env);

    // Under Slurm (or any parent that set it), our CUDA_VISIBLE_DEVICES is the universe.
    GpuEnvironment slurm = env;
    slurm.cudaVisibleDevices = "3,5";
    auto inherited = resolveGpus("all", slurm);
    QVERIFY(inherited);
    QCOMPARE(inherited->size(), std::size_t{2});
    QCOMPARE(qs(inherited->at(1).visibleDevices), QStringLiteral("5"));
    auto second = resolveGpus("1", slurm);
    QVERIFY(second);
    QCOMPARE(qs(second->at(0).visibleDevices), QStringLiteral("5"));
    refused("2", "not among the 2 of CUDA_VISIBLE_DEVICES=3,5", slurm);
}

void TestRunnerPool::noGpusSaysWhy()
{
    GpuEnvironment none;
    none.nvidiaSmi = fakeNvidiaSmi(m_dir.path(), 0).toStdString();
    auto r = resolveGpus("all", none);
    QVERIFY(!r);
    QVERIFY2(qs(r.status().message()).contains(QStringLiteral("failed with status 6: No devices were found")),
        r.status().message().c_str());
    GpuEnvironment absent;
    absent.nvidiaSmi = "/nonexistent/nvidia-smi";
    r = resolveGpus("all", absent);
    QVERIFY(!r);
    QVERIFY2(qs(r.status().message()).contains(QStringLiteral("cannot list GPUs with nvidia-smi -L: cannot run '/nonexistent/nvidia-smi'")),
        r.status().message().c_str());
    GpuEnvironment empty;
    empty.cudaVisibleDevices = "";
    r = resolveGpus("all", empty);
    QVERIFY(!r);
    QVERIFY(qs(r.status().message()).contains(QStringLiteral("CUDA_VISIBLE_DEVICES is set but empty")));
}

void TestRunnerPool::runnerEnvironmentPinsAndDisablesMulticast()
{
    const auto unpinned = runnerEnvironment(GpuPlacement{});
    QCOMPARE(unpinned.count("CUDA_VISIBLE_DEVICES"), std::size_t{0});
    for (const auto& env : {unpinned, runnerEnvironment({1, "1", "", ""})}) {
        QCOMPARE(qs(env.at("NCCL_NVLS_ENABLE")), QStringLiteral("0"));
        QCOMPARE(qs(env.at("TORCH_SYMM_MEM_DISABLE_MULTICAST")), QStringLiteral("1"));
        QCOMPARE(qs(env.at("NVSHMEM_DISABLE_NVLS")), QStringLiteral("1"));
    }
    const auto byIndex = runnerEnvironment({1, "1", "", ""});
    QCOMPARE(qs(byIndex.at("CUDA_VISIBLE_DEVICES")), QStringLiteral("1"));
    QCOMPARE(qs(byIndex.at("CUDA_DEVICE_ORDER")), QStringLiteral("PCI_BUS_ID"));
    const auto byUuid = runnerEnvironment({0, "GPU-x", "GPU-x", ""});
    QCOMPARE(byUuid.count("CUDA_DEVICE_ORDER"), std::size_t{0});
}

void TestRunnerPool::hangOnOneGpuCostsOnlyItsRecord()
{
    QFile::remove(m_log);
    std::vector<RerunRequest> requests;
    const std::vector<std::string> ids{"slow-a", "hang-b", "slow-c", "slow-d", "slow-e", "crash-f", "slow-g", "slow-h",
        "slow-i", "slow-j", "slow-k", "honest-l"};
    for (const auto& id : ids) requests.push_back(makeRequest(id, 3.0));
    RunnerPool pool(pinnedPool(4, m_wrapper.toStdString()));
    QVERIFY(pool.start(true, false).isOk());
    const BatchRun multi = runBatch(pool, requests);

    RunnerPool one(pinnedPool(0, m_wrapper.toStdString()));
    QVERIFY(one.start(true, false).isOk());
    const BatchRun single = runBatch(one, requests);

    QCOMPARE(multi.results.size(), ids.size());
    QCOMPARE(single.results.size(), ids.size());
    std::vector<QString> multiVerdicts(ids.size());
    std::vector<QString> singleVerdicts(ids.size());
    std::set<std::size_t> slotsUsed;
    std::size_t beforeHang = 0;
    bool hangSeen = false;
    for (const auto& r : multi.results) {
        multiVerdicts[r.job] = verdictOf(r.outcome);
        slotsUsed.insert(r.slot);
        if (ids[r.job] == "hang-b") hangSeen = true;
        else if (!hangSeen) ++beforeHang;
    }
    for (const auto& r : single.results) singleVerdicts[r.job] = verdictOf(r.outcome);
    for (std::size_t i = 0; i < ids.size(); ++i) QCOMPARE(multiVerdicts[i], singleVerdicts[i]);
    QCOMPARE(multiVerdicts[1], QStringLiteral("timeout timeout"));
    QCOMPARE(multiVerdicts[5], QStringLiteral("fault fault"));
    QCOMPARE(multiVerdicts[0], QStringLiteral("ok"));
    // The full results of honest runs are the same wherever they ran.
    for (const auto& r : multi.results) {
        if (!r.outcome.result || r.outcome.result->status != RerunStatus::Ok) continue;
        for (const auto& s : single.results)
            if (s.job == r.job) QCOMPARE(kwb::workbench::rerunOutcomeJson(r.outcome).dump(), kwb::workbench::rerunOutcomeJson(s.outcome).dump());
    }
    // While one GPU hung for its 3 s timeout, the other three served every other record.
    QVERIFY2(beforeHang == ids.size() - 1, qPrintable(QString::number(beforeHang)));
    QCOMPARE(slotsUsed.size(), std::size_t{4});
    // Only the hang's and the crash's runners were replaced (lazily: when their GPU had more work).
    QVERIFY(multi.restarts <= 2);
    QCOMPARE(single.restarts, 2);
    QVERIFY2(multi.seconds < single.seconds - 1.5, qPrintable(QStringLiteral("%1 s on 4 GPUs vs %2 s on one").arg(multi.seconds).arg(single.seconds)));

    // Every runner, restarts included, was pinned to its GPU with multicast off.
    const QList<QByteArray> lines = readAll(m_log).split('\n');
    std::set<QByteArray> pinned;
    int started = 0;
    for (const QByteArray& l : lines) {
        if (l.isEmpty()) continue;
        ++started;
        QVERIFY2(l.contains("nvls=0 symm=1 nvshmem=1"), l.constData());
        if (!l.startsWith("cvd=unset")) {
            QVERIFY2(l.contains("order=PCI_BUS_ID"), l.constData());
            pinned.insert(l.left(l.indexOf(' ')));
        }
    }
    QCOMPARE(pinned, (std::set<QByteArray>{"cvd=0", "cvd=1", "cvd=2", "cvd=3"}));
    QCOMPARE(started, 4 + multi.restarts + 1 + single.restarts); // 4 pinned runners and one unpinned, with their restarts
}

void TestRunnerPool::aGpuWaitingForItsJobHoldsNoOtherBack()
{
    // kwb verify's GPUs wait in PoolJob::before for their record's sample to be
    // built. Job 0 waits until three other results are in: the other GPU serves
    // them meanwhile. Job 2's `before` answers for it (a sample that did not
    // build): delivered as given, not run, not placed on a GPU.
    std::vector<RerunRequest> requests;
    for (const char* id : {"honest-a", "honest-b", "honest-c", "honest-d"}) requests.push_back(makeRequest(id, 10.0));
    RunnerPool pool(pinnedPool(2, KWB_FAKE_RUNNER));
    QVERIFY(pool.start(true, false).isOk());

    std::atomic<bool> open{false};
    std::atomic<int> beforeCalls{0};
    std::vector<PoolJob> jobs;
    for (const auto& r : requests) jobs.push_back({r.candidate.id, &r, &r.candidate, false, {}});
    jobs[0].before = [&](const CancelFlag*) -> std::optional<RerunOutcome> {
        ++beforeCalls;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (!open.load() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return std::nullopt;
    };
    jobs[2].before = [&](const CancelFlag*) -> std::optional<RerunOutcome> {
        ++beforeCalls;
        RerunOutcome o;
        o.candidateId = "honest-c";
        o.error = Status(ErrorCode::InvalidArgument, "did not build (test)");
        return o;
    };
    std::vector<PoolResult> got;
    pool.run(jobs, nullptr, {}, [&](PoolResult&& r) {
        got.push_back(std::move(r));
        if (got.size() == 3) open.store(true);
        return true;
    });
    QCOMPARE(got.size(), std::size_t{4});
    QCOMPARE(beforeCalls.load(), 2);
    QCOMPARE(got.back().job, std::size_t{0}); // the waiting job came last
    std::set<std::size_t> firstThree{got[0].job, got[1].job, got[2].job};
    QCOMPARE(firstThree, (std::set<std::size_t>{1, 2, 3}));
    for (const auto& r : got) {
        if (r.job == 2) {
            QVERIFY(!r.ran);
            QVERIFY(!r.outcome.result);
            QCOMPARE(qs(r.outcome.error.message()), QStringLiteral("did not build (test)"));
        } else {
            QVERIFY(r.ran);
            QCOMPARE(verdictOf(r.outcome), QStringLiteral("ok"));
        }
    }
    // Job 0's GPU served nothing else while it waited: the other GPU ran jobs 1 and 3.
    std::size_t slotOf0 = got.back().slot, ranElsewhere = 0;
    for (const auto& r : got)
        if (r.ran && r.job != 0 && r.slot != slotOf0) ++ranElsewhere;
    QCOMPARE(ranElsewhere, std::size_t{2});
}

void TestRunnerPool::startNamesTheGpuWithoutADevice()
{
    qputenv("KWB_TEST_NO_DEVICE_ON", "2");
    RunnerPool pool(pinnedPool(4, m_wrapper.toStdString()));
    bool noDevice = false;
    const Status s = pool.start(true, false, &noDevice);
    qunsetenv("KWB_TEST_NO_DEVICE_ON");
    QVERIFY(!s);
    QVERIFY(noDevice);
    QVERIFY2(qs(s.message()).contains(QStringLiteral("GPU 2 (CUDA_VISIBLE_DEVICES=2): no GPU: no CUDA device (simulated)")),
        s.message().c_str());
    RunnerPool broken(pinnedPool(1, "/nonexistent/kwb-runner"));
    const Status b = broken.start(true, false);
    QVERIFY(!b);
    QVERIFY2(qs(b.message()).contains(QStringLiteral("GPU 0 (CUDA_VISIBLE_DEVICES=0): cannot start kwb-runner")), b.message().c_str());
}

#ifdef KWB_TEST_CLI
namespace {
// Records of the tiny problem whose candidate ids steer the stand-in runner.
QString writeRecords(const QString& root, const std::vector<std::string>& candidates, const QString& name)
{
    writeFile(root + QStringLiteral("/problems/tiny.json"), kTinyProblem);
    std::vector<EvalRecord> records;
    for (const auto& c : candidates) {
        EvalRecord r;
        r.id = "rec-" + c;
        if (c != "plain") {
            const QString spec = root + QStringLiteral("/candidates/tiny/") + qs(c) + QStringLiteral(".json");
            writeFile(spec, candidateJson(c));
            r.extra.push_back({"candidate_spec", nlohmann::json(spec.toStdString()).dump()});
            r.extra.push_back({"problem_spec", nlohmann::json(QString(root + QStringLiteral("/problems/tiny.json")).toStdString()).dump()});
        }
        records.push_back(std::move(r));
    }
    const QString path = root + QLatin1Char('/') + name;
    (void)writeRecordsFile(path.toStdString(), records);
    return path;
}
} // namespace
#endif

void TestRunnerPool::verifyOnFourGpusMatchesOne()
{
#ifndef KWB_TEST_CLI
    QSKIP("kwb verify needs a build with GPU support (KWB_ENABLE_CUDA=ON); the pool itself is tested above");
#else
    const QString root = m_dir.filePath(QStringLiteral("cli"));
    const QString in = writeRecords(root,
        {"honest", "partial", "slow_a", "hang", "mutate", "plain", "zeros", "slow_b", "side", "slow_c", "crash", "honest_2"},
        QStringLiteral("records.jsonl"));
    const QString one = root + QStringLiteral("/one.jsonl");
    const QString four = root + QStringLiteral("/four.jsonl");
    const QMap<QString, QString> smi4{{QStringLiteral("KWB_NVIDIA_SMI"), fakeNvidiaSmi(root, 4)}};
    const Run a = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), one, QStringLiteral("--timeout=2"), QStringLiteral("--quiet")});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    const QString live = root + QStringLiteral("/live");
    const Run b = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), four, QStringLiteral("--timeout=2"),
        QStringLiteral("--gpus=all")}, withLiveLog(smi4, live));
    QVERIFY2(b.exitCode == 0, b.err.constData());
    expectNoProbeBesideGpus(live);
    QVERIFY2(b.out.contains("verified 12 records") && b.out.contains("on 4 GPUs"), b.out.constData());
    QVERIFY2(b.err.contains("GPU 3: CUDA_VISIBLE_DEVICES=GPU-fake-30000"), b.err.constData());
    QVERIFY2(b.err.contains("(GPU "), b.err.constData());

    QList<QJsonObject> placements;
    const QList<QJsonObject> got = recordsOf(readAll(four), &placements);
    const QList<QJsonObject> want = recordsOf(readAll(one));
    QCOMPARE(got.size(), 12);
    QCOMPARE(want.size(), 12);
    std::set<int> gpusUsed;
    for (int i = 0; i < got.size(); ++i) {
        const QString id = got[i].value(QStringLiteral("id")).toString();
        QCOMPARE(id, want[i].value(QStringLiteral("id")).toString()); // same order: input order
        if (id == QStringLiteral("rec-hang") || id == QStringLiteral("rec-crash")) {
            // Measured wall time differs; the verdict does not.
            QCOMPARE(got[i].value(QStringLiteral("verification")).toObject().value(QStringLiteral("flags")),
                want[i].value(QStringLiteral("verification")).toObject().value(QStringLiteral("flags")));
            QCOMPARE(got[i].value(QStringLiteral("status")), want[i].value(QStringLiteral("status")));
        } else {
            QCOMPARE(got[i], want[i]);
        }
        if (id == QStringLiteral("rec-plain")) {
            QVERIFY(placements[i].isEmpty()); // not re-run, so nowhere
            continue;
        }
        const int gpu = placements[i].value(QStringLiteral("gpu")).toInt(-1);
        QVERIFY(gpu >= 0 && gpu < 4);
        gpusUsed.insert(gpu);
        QCOMPARE(placements[i].value(QStringLiteral("uuid")).toString(), QStringLiteral("GPU-fake-%1").arg(gpu) + QStringLiteral("0000"));
        QCOMPARE(placements[i].value(QStringLiteral("cuda_visible_devices")).toString(),
            placements[i].value(QStringLiteral("uuid")).toString());
        QVERIFY(!placements[i].value(QStringLiteral("host")).toString().isEmpty());
    }
    QVERIFY(gpusUsed.size() >= 3);

    // Resumable as before: an interrupted multi-GPU file is completed and sorted.
    const QByteArray before = readAll(four);
    QFile f(four);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(before.left(before.indexOf('\n') + 30));
    f.close();
    const Run c = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), four, QStringLiteral("--timeout=2"),
        QStringLiteral("--gpus=0,1"), QStringLiteral("--quiet")}, smi4);
    QVERIFY2(c.exitCode == 0, c.err.constData());
    QVERIFY2(c.out.contains("verified 11 records") && c.out.contains("(1 already there)"), c.out.constData());
    const QList<QJsonObject> resumed = recordsOf(readAll(four));
    QCOMPARE(resumed.size(), 12);
    for (int i = 0; i < resumed.size(); ++i)
        QCOMPARE(resumed[i].value(QStringLiteral("id")), want[i].value(QStringLiteral("id")));

    // No GPU on this machine: said clearly, nothing run.
    const Run none = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), root + QStringLiteral("/none.jsonl"),
        QStringLiteral("--gpus=all")}, {{QStringLiteral("KWB_NVIDIA_SMI"), fakeNvidiaSmi(root, 0)}});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains("No devices were found"), none.err.constData());
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/none.jsonl")));
    const Run badList = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), root + QStringLiteral("/x.jsonl"),
        QStringLiteral("--gpus=0,9")}, smi4);
    QCOMPARE(badList.exitCode, 1);
    QVERIFY2(badList.err.contains("there is no GPU 9"), badList.err.constData());
#endif
}

void TestRunnerPool::rerunOnFourGpusMatchesOne()
{
#ifndef KWB_TEST_CLI
    QSKIP("kwb rerun needs a build with GPU support (KWB_ENABLE_CUDA=ON)");
#else
    // kwb rerun over many records: one runner per GPU, the outcomes in the order asked for.
    const QString root = m_dir.filePath(QStringLiteral("cli-rerun"));
    const std::vector<std::string> ids{"honest", "partial", "slow_a", "zeros", "crash", "side", "slow_b", "honest_2"};
    const QString in = writeRecords(root, ids, QStringLiteral("records.jsonl"));
    QStringList args{QStringLiteral("rerun"), QStringLiteral("--format=json"), QStringLiteral("--timeout=2"), QStringLiteral("--quiet")};
    for (const auto& id : ids) args << QStringLiteral("--record") << in + QStringLiteral("#rec-") + qs(id);
    const QMap<QString, QString> smi4{{QStringLiteral("KWB_NVIDIA_SMI"), fakeNvidiaSmi(root, 4)}};
    const Run one = runKwb(args);
    QVERIFY2(one.exitCode == 0, one.err.constData());
    const QString live = root + QStringLiteral("/live");
    const Run four = runKwb(args + QStringList{QStringLiteral("--gpus=all")}, withLiveLog(smi4, live));
    QVERIFY2(four.exitCode == 0, four.err.constData());
    expectNoProbeBesideGpus(live);
    const QJsonArray a = QJsonDocument::fromJson(one.out).object().value(QStringLiteral("outcomes")).toArray();
    const QJsonArray b = QJsonDocument::fromJson(four.out).object().value(QStringLiteral("outcomes")).toArray();
    QCOMPARE(a.size(), static_cast<qsizetype>(ids.size()));
    QCOMPARE(b.size(), a.size());
    std::set<int> used;
    for (qsizetype i = 0; i < a.size(); ++i) {
        QJsonObject x = a[i].toObject();
        QJsonObject y = b[i].toObject();
        QVERIFY(!x.contains(QStringLiteral("placement")));
        const QJsonObject where = y.take(QStringLiteral("placement")).toObject();
        const int gpu = where.value(QStringLiteral("gpu")).toInt(-1);
        QVERIFY2(gpu >= 0 && gpu < 4, QJsonDocument(where).toJson().constData());
        QCOMPARE(where.value(QStringLiteral("uuid")).toString(), QStringLiteral("GPU-fake-%1").arg(gpu) + QStringLiteral("0000"));
        used.insert(gpu);
        QCOMPARE(y.value(QStringLiteral("record_id")), x.value(QStringLiteral("record_id"))); // asked-for order
        if (ids[static_cast<std::size_t>(i)] == "crash") {
            QCOMPARE(y.value(QStringLiteral("status")), x.value(QStringLiteral("status")));
            continue;
        }
        QCOMPARE(y, x);
    }
    QVERIFY(used.size() >= 2);
    // The table says where the jobs ran.
    const Run table = runKwb(QStringList{QStringLiteral("rerun"), QStringLiteral("--timeout=2"), QStringLiteral("--quiet"),
        QStringLiteral("--gpus=0,1"), QStringLiteral("--record"), in + QStringLiteral("#rec-honest"), QStringLiteral("--record"),
        in + QStringLiteral("#rec-partial")}, smi4);
    QVERIFY2(table.exitCode == 0, table.err.constData());
    QVERIFY2(table.out.contains("ran on "), table.out.constData());
    // A GPU list that cannot be: said, nothing run.
    const Run bad = runKwb(args + QStringList{QStringLiteral("--gpus=0,9")}, smi4);
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("there is no GPU 9"), bad.err.constData());
#endif
}

void TestRunnerPool::shardsMergeToTheLocalFile()
{
#ifndef KWB_TEST_CLI
    QSKIP("kwb verify needs a build with GPU support (KWB_ENABLE_CUDA=ON); shards and merge are tested in tst_shard");
#else
    const QString root = m_dir.filePath(QStringLiteral("shards"));
    // Deterministic records only (a timeout's measured wall time would differ between runs).
    const QString in = writeRecords(root, {"honest", "partial", "slow_a", "mutate", "plain", "zeros", "side", "honest_2", "half"},
        QStringLiteral("records.jsonl"));
    const QString local = root + QStringLiteral("/local.jsonl");
    const Run a = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), local, QStringLiteral("--quiet")});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    auto order = inputRecordOrder({in.toStdString()});
    QVERIFY(order);
    for (int n : {1, 2, 4}) {
        std::vector<ShardPart> parts;
        std::size_t total = 0;
        for (int i = 0; i < n; ++i) {
            const QString part = root + QStringLiteral("/part-%1-of-%2.jsonl").arg(i).arg(n);
            const Run s = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), part, QStringLiteral("--quiet"),
                QStringLiteral("--shard=%1/%2").arg(i).arg(n)});
            QVERIFY2(s.exitCode == 0, s.err.constData());
            auto lines = readRecordLines(part.toStdString());
            QVERIFY2(lines, lines.status().toString().c_str());
            total += lines->size();
            parts.push_back({part.toStdString(), std::move(*lines)});
        }
        QCOMPARE(total, order->size()); // no overlap, nothing lost
        auto merged = mergeShardParts(*order, parts);
        QVERIFY2(merged, merged.status().toString().c_str());
        QCOMPARE(QByteArray::fromStdString(*merged), readAll(local));
    }
    const Run bad = runKwb({QStringLiteral("verify"), in, QStringLiteral("--out"), root + QStringLiteral("/x.jsonl"),
        QStringLiteral("--shard=4/4")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--shard: '4/4'"), bad.err.constData());
#endif
}

QTEST_GUILESS_MAIN(TestRunnerPool)
#include "tst_runner_pool.moc"
