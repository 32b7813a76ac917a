// Problem and candidate specs: the fixtures parse, malformed specs fail with
// file, position and reason, size expressions are safe on hostile input.
#include <QtTest>

#include <chrono>
#include <string>

#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"
#include "problems/size_expression.h"
#include "problems/tolerance_policy.h"
#include "test_util.h"

using namespace kwb;
using kwbtest::qs;

namespace {

const char* kGoodProblem = R"json({
  "schema": "kwb.problem/1",
  "id": "p",
  "sizes": {"N": 1000, "M": 8},
  "inputs": [{"name": "x", "shape": ["N"], "distribution": "normal", "std": 2}],
  "outputs": [{"name": "y", "shape": ["M", "ceil_div(N, M)"]}],
  "reference": {"builtin": "relu"},
  "flops": "N",
  "bytes": "8 * N"
})json";

} // namespace

class TestProblemSpecs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fixturesParse();
    void candidatesFoundByProblem();
    void goodProblemResolves();
    void roundTripThroughJson();
    void malformedProblem_data();
    void malformedProblem();
    void malformedCandidate_data();
    void malformedCandidate();
    void candidateValidatedAgainstProblem();
    void expressions_data();
    void expressions();
    void badExpressions_data();
    void badExpressions();
    void hostileExpressionsAreFast();
    void tolerancePolicies();
    void launchesResolve();
};

void TestProblemSpecs::fixturesParse()
{
    for (const char* name : {"vector_add", "relu", "softmax_rows", "gemm", "scale_tiny"}) {
        auto spec = loadProblemSpec(kwbtest::testData("problems/") + name + ".json");
        QVERIFY2(spec.isOk(), spec.status().toString().c_str());
        QCOMPARE(qs(spec->id), QString::fromLatin1(name));
        auto sizes = resolveSizes(*spec);
        QVERIFY(sizes.isOk());
        auto outs = resolveTensors(spec->outputs, *sizes);
        QVERIFY(outs.isOk());
        QVERIFY(outs->front().elementCount() > 0);
        auto flops = resolveFlops(*spec, *sizes);
        QVERIFY(flops.isOk() && flops->has_value());
    }
    auto gemm = loadProblemSpec(kwbtest::testData("problems/gemm.json"));
    QVERIFY(gemm.isOk());
    auto flops = resolveFlops(*gemm, *resolveSizes(*gemm));
    QCOMPARE(**flops, 2.0 * 1024 * 1024 * 1024);
}

void TestProblemSpecs::candidatesFoundByProblem()
{
    const auto scan = findCandidates(kwbtest::testData("candidates"), "vector_add");
    for (const auto& e : scan.errors) qWarning("%s", e.toString().c_str());
    QVERIFY(scan.errors.empty());
    QCOMPARE(scan.candidates.size(), std::size_t{6});
    for (const auto& c : scan.candidates) {
        QCOMPARE(qs(c.problem), QStringLiteral("vector_add"));
        QVERIFY(!c.source.empty());
        QVERIFY(c.honest != !c.expectedFlags.empty());
    }
    const auto all = findCandidates(kwbtest::testData("candidates"), "");
    // 15 of the first engine, 14 of issue 12's checks, 5 tampering fixtures (tamper/, problem relu).
    QCOMPARE(all.candidates.size(), std::size_t{34});
    // Every fixture is consistent with its problem.
    for (const auto& c : all.candidates) {
        auto p = loadProblemSpec(kwbtest::testData("problems/") + c.problem + ".json");
        QVERIFY2(p.isOk(), p.status().toString().c_str());
        Status s = validateCandidate(c, *p);
        QVERIFY2(s.isOk(), s.toString().c_str());
        auto launches = resolveLaunches(c, *resolveSizes(*p));
        QVERIFY2(launches.isOk(), launches.status().toString().c_str());
    }
    const auto none = findCandidates(kwbtest::testData("candidates"), "no_such_problem");
    QVERIFY(none.candidates.empty());
}

void TestProblemSpecs::goodProblemResolves()
{
    auto spec = parseProblemSpec(kGoodProblem, "good.json");
    QVERIFY2(spec.isOk(), spec.status().toString().c_str());
    QCOMPARE(spec->inputs[0].distribution, Distribution::Normal);
    QCOMPARE(spec->inputs[0].stddev, 2.0);
    QCOMPARE(spec->name, std::string("p")); // defaults to the id
    auto sizes = resolveSizes(*spec, {{"N", 10}});
    QVERIFY(sizes.isOk());
    auto outs = resolveTensors(spec->outputs, *sizes);
    QVERIFY(outs.isOk());
    QCOMPARE(outs->front().shape, (std::vector<std::int64_t>{8, 2}));
    QCOMPARE(outs->front().byteCount(), std::int64_t{64});
    auto bad = resolveSizes(*spec, {{"Q", 1}});
    QVERIFY(!bad.isOk());
    QVERIFY(bad.status().message().find("no size 'Q'") != std::string::npos);
}

void TestProblemSpecs::roundTripThroughJson()
{
    auto spec = loadProblemSpec(kwbtest::testData("problems/scale_tiny.json"));
    QVERIFY(spec.isOk());
    auto again = problemSpecFromJson(problemSpecToJson(*spec), "<json>");
    QVERIFY2(again.isOk(), again.status().toString().c_str());
    QCOMPARE(problemSpecToJson(*again).dump(), problemSpecToJson(*spec).dump());
    QCOMPARE(again->reference.params.at("alpha"), 1e-6);

    // KernelBench's MSELoss inputs: Pareto(0.01, 1.5) survives the round trip.
    auto mse = loadProblemSpec(std::string(KWB_DATASET_DIR) + "/problems/kb1_94_mse_loss.json");
    QVERIFY2(mse.isOk(), mse.status().toString().c_str());
    QCOMPARE(mse->inputs[0].distribution, Distribution::Pareto);
    QCOMPARE(mse->inputs[1].scale, 0.01);
    QCOMPARE(mse->inputs[1].alpha, 1.5);
    auto mseAgain = problemSpecFromJson(problemSpecToJson(*mse), "<json>");
    QVERIFY2(mseAgain.isOk(), mseAgain.status().toString().c_str());
    QCOMPARE(problemSpecToJson(*mseAgain).dump(), problemSpecToJson(*mse).dump());

    auto cand = loadCandidateSpec(kwbtest::testData("candidates/gemm/honest.json"));
    QVERIFY(cand.isOk());
    auto candAgain = candidateSpecFromJson(candidateSpecToJson(*cand), "<json>");
    QVERIFY2(candAgain.isOk(), candAgain.status().toString().c_str());
    QCOMPARE(candAgain->source, cand->source);
    QCOMPARE(candAgain->launches.size(), std::size_t{1});
    QCOMPARE(candAgain->launches[0].args.size(), std::size_t{6});
    QCOMPARE(candidateSpecToJson(*candAgain).dump(), candidateSpecToJson(*cand).dump());
}

void TestProblemSpecs::malformedProblem_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    QTest::addRow("syntax") << "{\n  \"schema\": \"kwb.problem/1\",\n  \"id\": \"p\" \"x\"\n}" << 3 << 15 << ""
                            << "syntax error";
    QTest::addRow("truncated") << "{\"schema\": \"kwb.problem/1\", " << 1 << 0 << "" << "truncated";
    QTest::addRow("wrong schema") << "{\"schema\": \"kwb.problem/2\", \"id\": \"p\"}" << 1 << 12 << "schema"
                                  << "expected 'kwb.problem/1'";
    QTest::addRow("unknown member") << "{\"schema\": \"kwb.problem/1\",\n \"id\": \"p\",\n \"sahpe\": 1}" << 3 << 11
                                    << "sahpe" << "unknown member 'sahpe'";
    QTest::addRow("missing outputs")
        << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"reference\": {\"builtin\": \"relu\"}}" << 1 << 1 << ""
        << "missing member 'outputs'";
    QTest::addRow("bad dtype") << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\",\n \"outputs\": [{\"name\": \"y\", "
                                  "\"shape\": [4],\n   \"dtype\": \"float128\"}], \"reference\": {\"builtin\": \"relu\"}}"
                               << 3 << 13 << "outputs[0].dtype" << "unknown dtype 'float128'";
    QTest::addRow("unknown size in shape")
        << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"sizes\": {\"N\": 4},\n \"outputs\": [{\"name\": \"y\", "
           "\"shape\": [\"N\", \"M\"]}], \"reference\": {\"builtin\": \"relu\"}}"
        << 2 << 43 << "outputs[0].shape[1]" << "unknown size 'M'";
    QTest::addRow("bad expression") << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"sizes\": {\"N\": 4},\n "
                                       "\"outputs\": [{\"name\": \"y\", \"shape\": [\"N +\"]}], \"reference\": "
                                       "{\"builtin\": \"relu\"}}"
                                    << 2 << 38 << "outputs[0].shape[0]" << "ends early";
    QTest::addRow("duplicate tensor") << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"inputs\": [{\"name\": \"y\", "
                                         "\"shape\": [1]}],\n \"outputs\": [{\"name\": \"y\", \"shape\": [1]}], "
                                         "\"reference\": {\"builtin\": \"relu\"}}"
                                      << 2 << 23 << "outputs[0].name" << "used twice";
    QTest::addRow("negative size") << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"sizes\": {\"N\": -4}}" << 1
                                   << 55 << "sizes.N" << "negative";
    QTest::addRow("low above high")
        << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"inputs\": [{\"name\": \"x\", \"shape\": [1], \"low\": 2, "
           "\"high\": 1}]}"
        << 1 << 51 << "inputs[0]" << "'low' must be below 'high'";
    QTest::addRow("pareto scale")
        << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"inputs\": [{\"name\": \"x\", \"shape\": [1], "
           "\"distribution\": \"pareto\", \"scale\": 0}]}"
        << 1 << 51 << "inputs[0]" << "'scale' and 'alpha' must be > 0";
    QTest::addRow("bad tolerance policy")
        << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"outputs\": [{\"name\": \"y\", \"shape\": [1]}], "
           "\"reference\": {\"builtin\": \"relu\"},\n  \"tolerance\": {\"policy\": \"loose\"}}"
        << 2 << 27 << "tolerance.policy" << "unknown tolerance policy 'loose'";
    QTest::addRow("precision int") << "{\"schema\": \"kwb.problem/1\", \"id\": \"p\", \"outputs\": [{\"name\": \"y\", "
                                      "\"shape\": [1]}], \"reference\": {\"builtin\": \"relu\"}, \"precision\": \"int32\"}"
                                   << 1 << 129 << "precision" << "not fp32, fp16 or bf16";
    QTest::addRow("not an object") << "[1, 2]" << 1 << 1 << "" << "expected an object";
}

void TestProblemSpecs::malformedProblem()
{
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    const std::string utf8 = text.toStdString();
    auto spec = parseProblemSpec(utf8, "bad_problem.json");
    QVERIFY(!spec.isOk());
    const Status s = spec.status();
    const QString message = qs(s.toString());
    QVERIFY2(message.startsWith(QStringLiteral("bad_problem.json:")), qPrintable(message));
    QVERIFY2(message.contains(reason), qPrintable(message));
    QCOMPARE(s.where().line, std::int64_t(line));
    if (column > 0) QCOMPARE(s.where().column, std::int64_t(column));
    QCOMPARE(qs(s.where().path), path);
}

void TestProblemSpecs::malformedCandidate_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    const QByteArray head("{\"schema\": \"kwb.candidate/1\", \"id\": \"c\", \"problem\": \"p\", ");
    QTest::addRow("no source") << QString::fromUtf8(head + "\"launches\": []}") << "" << "exactly one of 'source_file' and 'source'";
    QTest::addRow("both sources") << QString::fromUtf8(head + "\"source\": \"x\", \"source_file\": \"a.cu\"}") << ""
                                  << "exactly one of";
    QTest::addRow("missing file") << QString::fromUtf8(head + "\"source_file\": \"nope.cu\", \"launches\": []}") << "source_file"
                                  << "cannot read";
    QTest::addRow("no launches") << QString::fromUtf8(head + "\"source\": \"x\"}") << "" << "at least one entry in 'launches'";
    QTest::addRow("bad form") << QString::fromUtf8(head + "\"source\": \"x\", \"form\": \"ptx\"}") << "form" << "unknown form 'ptx'";
    QTest::addRow("bad entry") << QString::fromUtf8(head + "\"source\": \"x\", \"launches\": [{\"entry\": \"a b\", \"grid\": 1, "
                                         "\"block\": 1}]}")
                               << "launches[0].entry" << "not a function name";
    QTest::addRow("too many dims") << QString::fromUtf8(head + "\"source\": \"x\", \"launches\": [{\"entry\": \"k\", \"grid\": [1, 2, "
                                             "3, 4], \"block\": 1}]}")
                                   << "launches[0].grid" << "1 to 3 extents";
    QTest::addRow("bad arg kind") << QString::fromUtf8(head + "\"source\": \"x\", \"launches\": [{\"entry\": \"k\", \"grid\": 1, "
                                            "\"block\": 1, \"args\": [{\"u8\": 1}]}]}")
                                  << "launches[0].args[0].u8" << "unknown argument kind 'u8'";
    QTest::addRow("bad grid expression") << QString::fromUtf8(head + "\"source\": \"x\", \"launches\": [{\"entry\": \"k\", \"grid\": "
                                                   "\"N ** 2\", \"block\": 1}]}")
                                         << "launches[0].grid" << "unexpected '*'";
    QTest::addRow("launches in so form") << QString::fromUtf8(head + "\"source\": \"x\", \"form\": \"shared_object\", \"launches\": []}")
                                         << "launches" << "belongs to the nvrtc form";
    QTest::addRow("honest and expected") << QString::fromUtf8(head + "\"source\": \"x\", \"form\": \"shared_object\", \"honest\": true, "
                                                   "\"expect_flags\": [\"fault\"]}")
                                         << "honest" << "cannot expect flags";
}

void TestProblemSpecs::malformedCandidate()
{
    QFETCH(QString, text);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    // The spec "lives" in tests/data/candidates so that source_file resolves there.
    const std::string file = kwbtest::testData("candidates/bad_candidate.json");
    auto spec = parseCandidateSpec(text.toStdString(), file);
    QVERIFY(!spec.isOk());
    const QString message = qs(spec.status().toString());
    QVERIFY2(message.startsWith(qs(file) + QStringLiteral(":1:")), qPrintable(message));
    QVERIFY2(message.contains(reason), qPrintable(message));
    QCOMPARE(qs(spec.status().where().path), path);
}

void TestProblemSpecs::candidateValidatedAgainstProblem()
{
    auto problem = parseProblemSpec(kGoodProblem, "good.json");
    QVERIFY(problem.isOk());
    auto cand = parseCandidateSpec(R"json({"schema": "kwb.candidate/1", "id": "c", "problem": "p", "source": "x",
        "launches": [{"entry": "k", "grid": "ceil_div(N, 128)", "block": 128, "args": ["x", "z", {"i32": "N"}]}]})json",
        "c.json");
    QVERIFY2(cand.isOk(), cand.status().toString().c_str());
    Status s = validateCandidate(*cand, *problem);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("argument 'z' is not a tensor") != std::string::npos, s.message().c_str());

    auto wrongSize = parseCandidateSpec(R"json({"schema": "kwb.candidate/1", "id": "c", "problem": "p", "source": "x",
        "launches": [{"entry": "k", "grid": "ceil_div(Q, 128)", "block": 128}]})json",
        "c.json");
    QVERIFY(wrongSize.isOk());
    s = validateCandidate(*wrongSize, *problem);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("names 'Q'") != std::string::npos, s.message().c_str());

    auto otherProblem = parseCandidateSpec(R"json({"schema": "kwb.candidate/1", "id": "c", "problem": "q", "source": "x",
        "form": "shared_object"})json",
        "c.json");
    QVERIFY(otherProblem.isOk());
    s = validateCandidate(*otherProblem, *problem);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("is for problem 'q'") != std::string::npos);
    // Default buffer order: inputs, then outputs.
    QCOMPARE(bufferOrder(*otherProblem, *problem), (std::vector<std::string>{"x", "y"}));
}

void TestProblemSpecs::expressions_data()
{
    QTest::addColumn<QString>("expression");
    QTest::addColumn<qlonglong>("expected");
    QTest::addRow("literal") << "42" << 42LL;
    QTest::addRow("name") << "N" << 1000LL;
    QTest::addRow("precedence") << "1 + 2 * 3" << 7LL;
    QTest::addRow("parentheses") << "(1 + 2) * 3" << 9LL;
    QTest::addRow("left assoc minus") << "10 - 3 - 2" << 5LL;
    QTest::addRow("left assoc div") << "100 / 10 / 5" << 2LL;
    QTest::addRow("truncating div") << "-7 / 2" << -3LL;
    QTest::addRow("remainder") << "N % 7" << 6LL;
    QTest::addRow("unary") << "-(-N)" << 1000LL;
    QTest::addRow("ceil_div") << "ceil_div(N, 256)" << 4LL;
    QTest::addRow("ceil_div exact") << "ceil_div(1024, 256)" << 4LL;
    QTest::addRow("ceil_div negative") << "ceil_div(-5, 2)" << -2LL;
    QTest::addRow("min max") << "max(min(N, 7), M)" << 8LL;
    QTest::addRow("nested call") << "ceil_div(N * 3 / 1000, min(256, M * 32))" << 1LL;
    QTest::addRow("spaces") << "  2*M*N\t" << 16000LL;
    QTest::addRow("big") << "2 * 1024 * 1024 * 1024" << 2147483648LL;
}

void TestProblemSpecs::expressions()
{
    QFETCH(QString, expression);
    QFETCH(qlonglong, expected);
    const SizeMap sizes{{"N", 1000}, {"M", 8}};
    auto v = evaluateSizeExpression(expression.toStdString(), sizes);
    QVERIFY2(v.isOk(), v.status().toString().c_str());
    QCOMPARE(qlonglong(*v), expected);
}

void TestProblemSpecs::badExpressions_data()
{
    QTest::addColumn<QString>("expression");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<int>("column");
    QTest::addRow("empty") << "" << "empty expression" << 1;
    QTest::addRow("unknown name") << "N + Q" << "unknown size 'Q'" << 5;
    QTest::addRow("unknown function") << "pow(N, 2)" << "unknown function 'pow'" << 1;
    QTest::addRow("div by zero") << "N / (M - 8)" << "division by zero" << 3;
    QTest::addRow("mod by zero") << "N % 0" << "remainder by zero" << 3;
    QTest::addRow("ceil_div by zero") << "ceil_div(N, 0)" << "divisor <= 0" << 1;
    QTest::addRow("overflow mul") << "N * 9223372036854775807" << "overflow" << 3;
    QTest::addRow("overflow add") << "9223372036854775807 + 1" << "overflow" << 21;
    QTest::addRow("overflow neg") << "-(-9223372036854775807 - 1)" << "overflow" << 1;
    QTest::addRow("min div") << "(-9223372036854775807 - 1) / -1" << "overflow" << 28;
    QTest::addRow("literal too big") << "99999999999999999999" << "does not fit" << 1;
    QTest::addRow("float") << "1.5" << "only integer literals" << 2;
    QTest::addRow("exponent") << "1e6" << "only integer literals" << 2;
    QTest::addRow("power") << "N ** 2" << "unexpected '*'" << 4;
    QTest::addRow("unbalanced") << "(N + 1" << "expected ')'" << 7;
    QTest::addRow("extra paren") << "N + 1)" << "unexpected ')'" << 6;
    QTest::addRow("trailing") << "N M" << "unexpected 'M'" << 3;
    QTest::addRow("one arg") << "min(N)" << "expected ','" << 6;
    QTest::addRow("three args") << "max(N, M, 1)" << "takes two arguments" << 9;
    QTest::addRow("shell") << "$(rm -rf /)" << "unexpected '$'" << 1;
    QTest::addRow("string") << "\"N\"" << "unexpected '\"'" << 1;
    QTest::addRow("newline") << "N\n+1" << "unexpected" << 2;
    QTest::addRow("call without parens") << "ceil_div" << "unknown size 'ceil_div'" << 1;
}

void TestProblemSpecs::badExpressions()
{
    QFETCH(QString, expression);
    QFETCH(QString, reason);
    QFETCH(int, column);
    const SizeMap sizes{{"N", 1000}, {"M", 8}};
    auto v = evaluateSizeExpression(expression.toStdString(), sizes);
    QVERIFY(!v.isOk());
    const QString message = qs(v.status().message());
    QVERIFY2(message.contains(reason), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("size expression")), qPrintable(message));
    QCOMPARE(v.status().where().column, std::int64_t(column));
}

void TestProblemSpecs::hostileExpressionsAreFast()
{
    const SizeMap sizes{{"N", 3}};
    const auto start = std::chrono::steady_clock::now();
    // Deep nesting is refused, not recursed into.
    const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
    auto a = evaluateSizeExpression(deep, sizes);
    QVERIFY(!a.isOk());
    QVERIFY(a.status().message().find("longer than") != std::string::npos);
    const std::string nested = std::string(1000, '(') + "1" + std::string(1000, ')');
    auto b = evaluateSizeExpression(nested, sizes);
    QVERIFY(!b.isOk());
    QVERIFY(b.status().message().find("nested deeper") != std::string::npos);
    auto c = evaluateSizeExpression(std::string(2000, '-') + "1", sizes);
    QVERIFY(!c.isOk());
    auto d = evaluateSizeExpression(std::string(500, '-') + "-", sizes);
    QVERIFY(!d.isOk());
    std::string calls;
    for (int i = 0; i < 200; ++i) calls += "max(";
    calls += "1";
    for (int i = 0; i < 200; ++i) calls += ",1)";
    auto e = evaluateSizeExpression(calls, sizes);
    QVERIFY(!e.isOk());
    // A long flat expression within the limit is fine.
    std::string flat = "N";
    while (flat.size() < 4000) flat += "+N";
    auto f = evaluateSizeExpression(flat, sizes);
    QVERIFY(f.isOk());
    QCOMPARE(*f, std::int64_t(3 * ((flat.size() + 1) / 2)));
    // Bytes that are not ASCII.
    auto g = evaluateSizeExpression(std::string("N\xff\x00+1", 5), sizes);
    QVERIFY(!g.isOk());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(ms < 1000.0, qPrintable(QString::number(ms)));
}

void TestProblemSpecs::tolerancePolicies()
{
    TolerancePolicy kb;
    QCOMPARE(resolveTolerance(kb, DType::F32).atol, 1e-4);
    QCOMPARE(resolveTolerance(kb, DType::F32).rtol, 1e-4);
    QCOMPARE(resolveTolerance(kb, DType::F16).atol, 1e-2);
    QCOMPARE(resolveTolerance(kb, DType::BF16).rtol, 1e-2);
    TolerancePolicy legacy{TolerancePolicy::Kind::KernelBenchLegacy};
    QCOMPARE(resolveTolerance(legacy, DType::F32).atol, 1e-2);
    TolerancePolicy own{TolerancePolicy::Kind::Explicit, 1e-3, 5e-3};
    QCOMPARE(resolveTolerance(own, DType::F32).atol, 1e-3);
    QCOMPARE(resolveTolerance(own, DType::F16).rtol, 5e-3);
    QCOMPARE(QString::fromLatin1(tolerancePolicyName(TolerancePolicy::Kind::KernelBenchLegacy)),
        QStringLiteral("kernelbench_legacy"));
}

void TestProblemSpecs::launchesResolve()
{
    auto cand = loadCandidateSpec(kwbtest::testData("candidates/vector_add/partial_write.json"));
    QVERIFY(cand.isOk());
    auto launches = resolveLaunches(*cand, {{"N", 4194304}});
    QVERIFY(launches.isOk());
    QCOMPARE(launches->front().grid[0], std::int64_t{(4194304 * 3 / 1000 + 255) / 256});
    QCOMPARE(launches->front().block[0], std::int64_t{256});
    QCOMPARE(launches->front().grid[1], std::int64_t{1});
    auto zeroGrid = resolveLaunches(*cand, {{"N", 0}});
    QVERIFY(!zeroGrid.isOk());
    QVERIFY(zeroGrid.status().message().find(">= 1") != std::string::npos);

    auto so = loadCandidateSpec(kwbtest::testData("candidates/gemm/fp16_arithmetic.json"));
    QVERIFY(so.isOk());
    QCOMPARE(so->form, CandidateForm::SharedObject);
    auto sizes = resolveSizeArgs(*so, {{"M", 2}, {"N", 3}, {"K", 4}});
    QVERIFY(sizes.isOk());
    QCOMPARE(*sizes, (std::vector<std::int64_t>{2, 3, 4}));
}

QTEST_GUILESS_MAIN(TestProblemSpecs)
#include "tst_problem_specs.moc"
