// The kwb.rerun/1 protocol: every message survives encode/decode, versions are
// checked, malformed lines are rejected with the member's path and the reason.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "rerun/protocol.h"
#include "rerun/trial_plan.h"
#include "test_util.h"

using namespace kwb;
using kwbtest::qs;

namespace {

RerunResult sampleResult()
{
    RerunResult r;
    r.id = "req-7";
    r.problemId = "vector_add";
    r.candidateId = "vector_add_partial_write";
    r.status = RerunStatus::Ok;
    r.message = "bad byte \xff here\nsecond line";
    r.device.name = "NVIDIA H200";
    r.device.smCount = 132;
    r.device.peakBandwidthBytesPerS = 4.8e12;
    r.device.driverVersion = 13000;
    r.sizes = {{"N", 4194304}};
    r.precision = DType::F32;
    r.tolerance = {1e-4, 1e-4};
    r.compileCacheHit = true;
    r.compileMs = 12.5;
    OutputCoverage c;
    c.output = "out";
    c.coverage.writtenFraction = 0.003;
    c.coverage.writtenElements = 12582;
    c.coverage.totalElements = 4194304;
    c.coverage.firstUnwritten = {12582, 12583};
    c.coverage.grid = CoverageGrid{1, 2, {0.5f, 0.0f}};
    c.sentinelA = 0x7FC00001u;
    c.sentinelB = 0xFFC00002u;
    r.coverage.push_back(c);
    OutputCheck o;
    o.output = "out";
    o.trials = 3;
    o.trialsPassed = 0;
    o.zerosPass = false;
    o.deterministic = true;
    o.count = 4194304;
    o.outOfTolerance = 4181722;
    o.outOfToleranceShare = 0.997;
    o.firstMismatch = 12582;
    o.maxAbsError = std::numeric_limits<double>::quiet_NaN();
    o.relL2Error = std::numeric_limits<double>::infinity();
    o.nanCount = 4181722;
    r.outputs.push_back(o);
    r.inputs.push_back({"a", "deadbeef", "deadbeef", false});
    r.candidateTiming = summarizeTimings({0.01, 0.011, 0.012}, true);
    r.candidateTiming->eventOverheadMs = 0.0026;
    r.candidateTiming->ungatedTrials = 2;
    r.candidateTiming->gateTimeouts = 1;
    r.candidateTiming->gateBlocked = "trial 0: 499 ms in the call";
    r.referenceTiming = summarizeTimings({0.03, 0.031, 0.032});
    r.speedup = 3.0;
    r.candidateCupti.available = true;
    r.candidateCupti.timedStreamId = 7;
    r.candidateCupti.kernelCount = 2;
    r.candidateCupti.otherStreamKernels = 1;
    r.candidateCupti.streams = {7, 13};
    r.candidateCupti.kernels = {{"vector_add_partial", 7, 1, 0.01, false}, {"sm90_xmma_gemm", 13, 1, 0.2, true}};
    r.flops = 4194304.0;
    r.bytes = 50331648.0;
    r.rooflineFloorMs = 0.0105;
    r.wallMs = 850.0;
    r.overheadMs = 120.0;
    r.flags.push_back({"low_coverage", "only 0.3% written", "error"});
    return r;
}

} // namespace

class TestProtocol : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void simpleMessagesRoundTrip();
    void rerunRequestRoundTrip();
    void resultRoundTrip();
    void linesAreSingleLines();
    void versionMismatch();
    void malformedLines_data();
    void malformedLines();
    void unknownMembersIgnored();
    void timingSummary();
    void timingBudget();
    void checkedTrialsOfAPlan();
};

void TestProtocol::simpleMessagesRoundTrip()
{
    auto hello = decodeMessage(encodeMessage(HelloRequest{"h1"}));
    QVERIFY(hello.isOk());
    QCOMPARE(qs(std::get<HelloRequest>(*hello).id), QStringLiteral("h1"));
    auto bye = decodeMessage(encodeMessage(ShutdownRequest{"s"}));
    QVERIFY(bye.isOk() && std::holds_alternative<ShutdownRequest>(*bye));

    Capabilities caps;
    caps.id = "h1";
    caps.runnerVersion = "0.1";
    caps.devicePresent = false;
    caps.reason = "no CUDA device";
    caps.references = {"gemm", "relu"};
    auto c = decodeMessage(encodeMessage(caps));
    QVERIFY(c.isOk());
    const auto& cc = std::get<Capabilities>(*c);
    QVERIFY(!cc.devicePresent);
    QCOMPARE(qs(cc.reason), QStringLiteral("no CUDA device"));
    QCOMPARE(cc.references, caps.references);

    auto p = decodeMessage(encodeMessage(ProgressMessage{"r", "timing", 40, 100}));
    QVERIFY(p.isOk());
    QCOMPARE(std::get<ProgressMessage>(*p).done, std::int64_t{40});
    QCOMPARE(qs(std::get<ProgressMessage>(*p).stage), QStringLiteral("timing"));

    auto e = decodeMessage(encodeMessage(ErrorMessage{"", "broken"}));
    QVERIFY(e.isOk());
    QCOMPARE(qs(std::get<ErrorMessage>(*e).message), QStringLiteral("broken"));
}

void TestProtocol::rerunRequestRoundTrip()
{
    auto problem = loadProblemSpec(kwbtest::testData("problems/softmax_rows.json"));
    auto candidate = loadCandidateSpec(kwbtest::testData("candidates/softmax_rows/two_pass_so.json"));
    QVERIFY(problem.isOk() && candidate.isOk());
    RerunRequest req;
    req.id = "r1";
    req.problem = *problem;
    req.candidate = *candidate;
    req.options.trials = 7;
    req.options.l2Flush = false;
    req.options.seed = 123456789012345ULL;
    req.options.sizes = {{"rows", 64}};
    req.options.timeoutS = 2.5;
    auto back = decodeMessage(encodeMessage(req));
    QVERIFY2(back.isOk(), back.status().toString().c_str());
    const auto& r = std::get<RerunRequest>(*back);
    QCOMPARE(qs(r.id), QStringLiteral("r1"));
    QCOMPARE(r.options.trials, 7);
    QVERIFY(!r.options.l2Flush);
    QCOMPARE(r.options.seed, std::uint64_t{123456789012345ULL});
    QCOMPARE(r.options.sizes.at("rows"), std::int64_t{64});
    QCOMPARE(r.options.timeoutS, 2.5);
    QCOMPARE(r.options.timingBudgetS, 0.0);
    // No budget: not on the wire (older runners' requests stay byte-identical).
    QVERIFY(encodeMessage(req).find("timing_budget_s") == std::string::npos);
    req.options.timingBudgetS = 2.5;
    auto budgeted = decodeMessage(encodeMessage(req));
    QVERIFY(budgeted.isOk());
    QCOMPARE(std::get<RerunRequest>(*budgeted).options.timingBudgetS, 2.5);
    req.options.timingBudgetS = -1.0;
    QVERIFY(!decodeMessage(encodeMessage(req)).isOk());
    req.options.timingBudgetS = 0.0;
    QCOMPARE(problemSpecToJson(r.problem).dump(), problemSpecToJson(*problem).dump());
    QCOMPARE(r.candidate.source, candidate->source); // the source travels inline
    QCOMPARE(r.candidate.form, CandidateForm::SharedObject);
    QCOMPARE(r.candidate.sizeArgs, candidate->sizeArgs);
    QVERIFY(r.candidate.honest);
}

void TestProtocol::resultRoundTrip()
{
    const RerunResult r = sampleResult();
    auto back = decodeMessage(encodeMessage(r));
    QVERIFY2(back.isOk(), back.status().toString().c_str());
    const auto& g = std::get<RerunResult>(*back);
    QCOMPARE(qs(g.id), QStringLiteral("req-7"));
    QCOMPARE(g.status, RerunStatus::Ok);
    QCOMPARE(g.device.smCount, 132);
    QCOMPARE(g.sizes.at("N"), std::int64_t{4194304});
    QCOMPARE(g.coverage.size(), std::size_t{1});
    QCOMPARE(g.coverage[0].coverage, r.coverage[0].coverage);
    QCOMPARE(g.coverage[0].sentinelB, 0xFFC00002u);
    QCOMPARE(g.outputs[0].outOfTolerance, std::int64_t{4181722});
    QVERIFY(std::isnan(g.outputs[0].maxAbsError));
    QVERIFY(std::isinf(g.outputs[0].relL2Error));
    QCOMPARE(*g.outputs[0].deterministic, true);
    QCOMPARE(g.candidateTiming->samplesMs.size(), std::size_t{3});
    QCOMPARE(g.candidateTiming->medianMs, 0.011);
    QVERIFY(g.referenceTiming->samplesMs.empty());
    QCOMPARE(*g.candidateTiming->eventOverheadMs, 0.0026);
    QVERIFY(std::fabs(g.candidateTiming->correctedMedianMs() - 0.0084) < 1e-15);
    QVERIFY(!g.referenceTiming->eventOverheadMs); // uncalibrated: no bracket, corrected = raw
    QCOMPARE(g.candidateTiming->ungatedTrials.value_or(-1), 2);
    QVERIFY(!g.referenceTiming->ungatedTrials); // unset: no gate, nothing said
    QCOMPARE(g.candidateTiming->gateTimeouts.value_or(-1), 1);
    QCOMPARE(g.candidateTiming->gateBlocked.value_or(""), std::string("trial 0: 499 ms in the call"));
    QVERIFY(!g.referenceTiming->gateTimeouts && !g.referenceTiming->gateBlocked);
    QCOMPARE(g.referenceTiming->correctedMedianMs(), 0.031);
    const std::string encoded = encodeMessage(g);
    QVERIFY(encoded.find("\"corrected_median_ms\"") != std::string::npos);
    QCOMPARE(encoded.find("\"corrected_median_ms\""), encoded.rfind("\"corrected_median_ms\"")); // candidate only
    QCOMPARE(*g.speedup, 3.0);
    QCOMPARE(g.candidateCupti.streams, (std::vector<std::uint32_t>{7, 13}));
    QCOMPARE(g.candidateCupti.kernels.size(), std::size_t{2});
    QVERIFY(g.candidateCupti.kernels[1].library);
    QCOMPARE(*g.rooflineFloorMs, 0.0105);
    QCOMPARE(g.flags, r.flags);
    QVERIFY(g.message.find("second line") != std::string::npos);
    // Same JSON after a second trip: nothing is lost or invented.
    QCOMPARE(rerunResultToJson(g).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        rerunResultToJson(std::get<RerunResult>(*decodeMessage(encodeMessage(g))))
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));

    auto status = rerunResultFromJson(nlohmann::json::parse(R"({"status": "oom", "message": "x"})"));
    QVERIFY(status.isOk());
    QCOMPARE(status->status, RerunStatus::OutOfMemory);
    for (auto s : {RerunStatus::Ok, RerunStatus::CompileError, RerunStatus::LaunchError, RerunStatus::Fault,
             RerunStatus::Timeout, RerunStatus::OutOfMemory, RerunStatus::NoDevice, RerunStatus::Unsupported,
             RerunStatus::InternalError})
        QCOMPARE(*rerunStatusFromName(rerunStatusName(s)), s);
}

void TestProtocol::linesAreSingleLines()
{
    auto candidate = loadCandidateSpec(kwbtest::testData("candidates/gemm/honest.json"));
    auto problem = loadProblemSpec(kwbtest::testData("problems/gemm.json"));
    RerunRequest req{"x", *problem, *candidate, {}};
    for (const std::string& line : {encodeMessage(req), encodeMessage(sampleResult())}) {
        QVERIFY(line.size() > 10);
        QCOMPARE(line.back(), '\n');
        QCOMPARE(line.find('\n'), line.size() - 1);
        QVERIFY(line.rfind("{\"", 0) == 0);
    }
}

void TestProtocol::versionMismatch()
{
    auto r = decodeMessage(R"({"protocol": "kwb.rerun/2", "type": "hello", "id": "h"})");
    QVERIFY(!r.isOk());
    QCOMPARE(r.status().code(), ErrorCode::Unsupported);
    const QString m = qs(r.status().message());
    QVERIFY2(m.contains(QStringLiteral("kwb.rerun/2")) && m.contains(QStringLiteral("kwb.rerun/1")), qPrintable(m));
    auto none = decodeMessage(R"({"type": "hello", "id": "h"})");
    QVERIFY(!none.isOk());
    QVERIFY(none.status().message().find("no \"protocol\"") != std::string::npos);
}

void TestProtocol::malformedLines_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("reason");
    QTest::addRow("not json") << "garbage" << "syntax error";
    QTest::addRow("truncated") << "{\"protocol\": \"kwb.rerun/1\", \"type\":" << "truncated";
    QTest::addRow("array") << "[1, 2]" << "must be a JSON object";
    QTest::addRow("unknown type") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"launch\"}" << "unknown message type 'launch'";
    QTest::addRow("id not string") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"hello\", \"id\": 5}" << "[id]: schema error: expected a string";
    QTest::addRow("done not int") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"progress\", \"done\": \"x\"}"
                                  << "[done]: schema error: expected an integer";
    QTest::addRow("bad status") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"result\", \"status\": \"meh\"}"
                                << "unknown status 'meh'";
    QTest::addRow("bad coverage") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"result\", \"status\": \"ok\", "
                                     "\"coverage\": [{\"written_fraction\": true}]}"
                                  << "[coverage[0].written_fraction]: schema error: expected a number";
    QTest::addRow("grid size") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"result\", \"status\": \"ok\", "
                                  "\"coverage\": [{\"grid\": {\"rows\": 2, \"cols\": 2, \"written_fraction\": [1]}}]}"
                               << "rows * cols differs";
    QTest::addRow("rerun without problem") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"rerun\", \"id\": \"r\"}"
                                           << "no 'problem'";
    QTest::addRow("rerun bad problem") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"rerun\", \"id\": \"r\", "
                                          "\"problem\": {\"schema\": \"kwb.problem/1\"}}"
                                       << "missing member 'id'";
    QTest::addRow("negative trials") << "{\"protocol\": \"kwb.rerun/1\", \"type\": \"rerun\", \"id\": \"r\", "
                                        "\"problem\": {\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"outputs\": "
                                        "[{\"name\": \"y\", \"shape\": [1]}], \"reference\": {\"builtin\": \"relu\"}}, "
                                        "\"candidate\": {\"schema\": \"kwb.candidate/1\", \"id\": \"c\", \"problem\": "
                                        "\"p\", \"source\": \"s\", \"form\": \"shared_object\"}, \"options\": "
                                        "{\"trials\": -1}}"
                                     << "trial counts must be >= 0";
}

void TestProtocol::malformedLines()
{
    QFETCH(QString, line);
    QFETCH(QString, reason);
    auto r = decodeMessage(line.toStdString());
    QVERIFY(!r.isOk());
    const QString m = qs(r.status().toString());
    QVERIFY2(m.contains(reason), qPrintable(m));
}

void TestProtocol::unknownMembersIgnored()
{
    auto r = decodeMessage(R"({"protocol": "kwb.rerun/1", "type": "progress", "id": "r", "stage": "x", "eta_s": 4, "extra": {"a": 1}})");
    QVERIFY2(r.isOk(), r.status().toString().c_str());
    QCOMPARE(qs(std::get<ProgressMessage>(*r).stage), QStringLiteral("x"));
}

void TestProtocol::timingSummary()
{
    const TimingStats t = summarizeTimings({4.0, 1.0, 100.0, 3.0, 2.0});
    QCOMPARE(t.trials, 5);
    QCOMPARE(t.medianMs, 3.0);
    QCOMPARE(t.q1Ms, 2.0);
    QCOMPARE(t.q3Ms, 4.0);
    QCOMPARE(t.iqrMs, 2.0);
    QCOMPARE(t.minMs, 1.0);
    QCOMPARE(t.maxMs, 100.0);
    QCOMPARE(t.meanMs, 22.0);
    QVERIFY(std::fabs(t.stdMs - std::sqrt(7610.0 / 4.0)) < 1e-12);
    QVERIFY(std::fabs(t.cv - std::sqrt(7610.0 / 4.0) / 22.0) < 1e-12);
    QVERIFY(t.samplesMs.empty());
    const TimingStats even = summarizeTimings({1.0, 2.0, 3.0, 4.0}, true);
    QCOMPARE(even.medianMs, 2.5);
    QCOMPARE(even.q1Ms, 1.75);
    QCOMPARE(even.samplesMs, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
    const TimingStats none = summarizeTimings({});
    QCOMPARE(none.trials, 0);
    QCOMPARE(none.medianMs, 0.0);
    TimingStats tiny = summarizeTimings({0.001, 0.0012});
    tiny.eventOverheadMs = 0.0026; // a bracket longer than the median: corrected time stops at 0
    QCOMPARE(tiny.correctedMedianMs(), 0.0);
}

void TestProtocol::timingBudget()
{
    // No budget, or no usable estimate: what was asked for.
    QCOMPARE(planWithinBudget(10, 100, 0.0, 10, 574.0).trials, 100);
    QCOMPARE(planWithinBudget(10, 100, 3.0, 10, std::nan("")).trials, 100);
    QCOMPARE(planWithinBudget(10, 100, 3.0, 10, 0.0).warmup, 10);
    // A fast kernel fits: unchanged.
    auto fast = planWithinBudget(10, 100, 3.0, 10, 0.02);
    QCOMPARE(fast.trials, 100);
    QCOMPARE(fast.warmup, 10);
    // The leaderboard's 574 ms LayerNorm: 10 trials (the floor) and 2 warm-ups, not 100 + 10.
    auto slow = planWithinBudget(10, 100, 3.0, 10, 574.0);
    QCOMPARE(slow.trials, 10);
    QCOMPARE(slow.warmup, 2);
    // In between: as many trials as fit, warm-ups a quarter of the budget.
    auto mid = planWithinBudget(10, 100, 3.0, 10, 60.0);
    QCOMPARE(mid.trials, 50);
    QCOMPARE(mid.warmup, 10);
    QCOMPARE(planWithinBudget(10, 100, 3.0, 10, 150.0).warmup, 5);
    // Never more than asked for, and the floor is capped by what was asked for.
    QCOMPARE(planWithinBudget(1, 5, 3.0, 10, 574.0).trials, 5);
    QCOMPARE(planWithinBudget(1, 5, 3.0, 10, 574.0).warmup, 1);
}

void TestProtocol::checkedTrialsOfAPlan()
{
    // Every 10th trial and the last, as many as there are slots.
    QCOMPARE(checkedTrials(100, 10, 100), (std::vector<int>{9, 19, 29, 39, 49, 59, 69, 79, 89, 99}));
    QCOMPARE(checkedTrials(25, 10, 100), (std::vector<int>{9, 19, 24}));
    // A budget that cut 100 trials to 10 or 7: the last trial that ran is checked, not
    // trial 99 (the timer's plan decides, not the request).
    QCOMPARE(checkedTrials(10, 10, 10), (std::vector<int>{9}));
    QCOMPARE(checkedTrials(7, 10, 10), (std::vector<int>{6}));
    // Fewer slots than batches: evenly spread, always the last.
    const std::vector<int> three = checkedTrials(100, 10, 3);
    QCOMPARE(three.size(), std::size_t(3));
    QCOMPARE(three.back(), 99);
    QVERIFY(std::is_sorted(three.begin(), three.end()));
    QCOMPARE(checkedTrials(100, 10, 1), (std::vector<int>{99}));
    QCOMPARE(checkedTrials(1, 0, 4), (std::vector<int>{0}));
    QVERIFY(checkedTrials(0, 10, 4).empty());
}

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
