// The kwb.rerun/1 wire format, pinned: tests/data/golden/protocol/<type>.jsonl
// hold lines written by the encoder. Each golden line must decode and encode
// back to the same bytes, and the messages built below must encode to exactly
// those lines. The bridge's Python tests read the same files, so C++ and Python
// cannot drift apart together. KWB_REGENERATE_GOLDENS=1 rewrites the files from
// the messages below (see tests/data/golden/README.md).
#include <QtTest>

#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "golden_util.h"
#include "rerun/kernelbench_sample.h"
#include "rerun/protocol.h"

using namespace kwb;

namespace {

// A vector add small enough to read, with every spec member the runner uses.
ProblemSpec nativeProblem()
{
    auto j = nlohmann::json::parse(R"json({
      "schema": "kwb.problem/1", "id": "vector_add", "name": "Vector add",
      "description": "out = a + b; memory-bound.",
      "sizes": {"N": 4096},
      "inputs": [
        {"name": "a", "shape": ["N"], "dtype": "float32", "distribution": "uniform", "low": 0, "high": 1},
        {"name": "b", "shape": ["N"], "dtype": "float32", "distribution": "normal"}
      ],
      "outputs": [{"name": "out", "shape": ["N"], "dtype": "float32"}],
      "reference": {"builtin": "vector_add"},
      "precision": "fp32",
      "tolerance": {"policy": "kernelbench"},
      "seed": {"policy": "per_trial", "base": 42},
      "flops": "N", "bytes": "12 * N"})json");
    auto p = problemSpecFromJson(j, "<golden problem>");
    if (!p) qFatal("golden problem: %s", p.status().toString().c_str());
    return *p;
}

CandidateSpec nativeCandidate()
{
    auto j = nlohmann::json::parse(R"json({
      "schema": "kwb.candidate/1", "id": "vector_add_partial_write", "problem": "vector_add",
      "name": "Writes 0.3% of the output", "form": "nvrtc",
      "source": "extern \"C\" __global__ void vector_add_partial(const float* a, const float* b, float* out, int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = a[i] + b[i];\n}\n",
      "launches": [{"entry": "vector_add_partial", "grid": ["ceil_div(N * 3 / 1000, 256)"], "block": [256],
                    "args": ["a", "b", "out", {"i32": "N * 3 / 1000"}]}],
      "expect_flags": ["low_coverage"]})json");
    auto c = candidateSpecFromJson(j, "<golden candidate>");
    if (!c) qFatal("golden candidate: %s", c.status().toString().c_str());
    return *c;
}

RerunRequest nativeRequest()
{
    RerunRequest r;
    r.id = "rerun-1";
    r.problem = nativeProblem();
    r.candidate = nativeCandidate();
    r.options.trials = 25;
    r.options.warmup = 3;
    r.options.l2Flush = false;
    r.options.correctnessTrials = 2;
    r.options.coverageRows = 8;
    r.options.coverageCols = 16;
    r.options.timeoutS = 30.5;
    r.options.seed = 123456789012345ULL;
    r.options.timeReference = false;
    r.options.cupti = false;
    r.options.sizes = {{"N", 1024}};
    return r;
}

RerunRequest kernelBenchRerun()
{
    KernelBenchProblemFile problem;
    problem.path = "KernelBench/level1/19_ReLU.py";
    problem.name = "19_ReLU";
    problem.level = 1;
    problem.problemId = 19;
    problem.source = "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
                     "        return torch.relu(x)\n\nbatch_size = 16\ndim = 16384\n\ndef get_inputs():\n"
                     "    return [torch.randn(batch_size, dim)]\n\ndef get_init_inputs():\n    return []\n";
    const std::string sample = "import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n"
                               "    def forward(self, x):\n        return torch.clamp_min(x, 0.0)\n";
    RerunOptions options;
    options.trials = 10;
    auto r = kernelBenchRequest(problem, "leaderboard/relu_sample.py", sample, options, "leaderboard/relu_sample.py");
    if (!r) qFatal("golden kernelbench request: %s", r.status().toString().c_str());
    r->id = "rerun-kb";
    return *r;
}

DeviceInfo h200()
{
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.ordinal = 0;
    d.computeMajor = 9;
    d.computeMinor = 0;
    d.smCount = 132;
    d.memoryBytes = 150110011392;
    d.l2Bytes = 52428800;
    d.smClockMhz = 1980.0;
    d.memoryClockMhz = 3201.0;
    d.peakBandwidthBytesPerS = 4.8e12;
    d.peakFp32FlopsPerS = 6.69e13;
    d.peakFp16FlopsPerS = 9.89e14;
    d.driverVersion = 13000;
    d.runtimeVersion = 13000;
    d.uuid = "GPU-5a3e0c1d-6b8f-4e2a-9c71-0d4f2b6a8e13";
    return d;
}

// Every optional member set, non-finite numbers, escapes and non-ASCII text.
RerunResult fullResult()
{
    RerunResult r;
    r.id = "rerun-1";
    r.problemId = "vector_add";
    r.candidateId = "vector_add_partial_write";
    r.status = RerunStatus::Ok;
    r.message = "line one\nline \"two\"\ttabbed, µs and ✓";
    r.runnerRestarted = true;
    r.device = h200();
    r.sizes = {{"N", 1024}};
    r.precision = DType::F16;
    r.tolerance = {1e-2, 1e-2};
    r.compileCacheHit = true;
    r.compileMs = 12.5;
    OutputCoverage c;
    c.output = "out";
    c.coverage.writtenFraction = 0.25;
    c.coverage.writtenElements = 256;
    c.coverage.totalElements = 1024;
    c.coverage.firstUnwritten = {256, 257, 258};
    c.coverage.grid = CoverageGrid {2, 2, {1.0f, 0.0f, 0.0f, 0.0f}};
    c.sentinelA = 0x7FC00001u;
    c.sentinelB = 0xFFC00002u;
    r.coverage.push_back(c);
    OutputCheck o;
    o.output = "out";
    o.trials = 2;
    o.trialsPassed = 0;
    o.passed = false;
    o.zerosPass = true;
    o.deterministic = false;
    o.nondeterministicElements = 3;
    o.count = 1024;
    o.outOfTolerance = 768;
    o.outOfToleranceShare = 0.75;
    o.firstMismatch = 256;
    o.maxAbsError = std::numeric_limits<double>::quiet_NaN();
    o.relL2Error = std::numeric_limits<double>::infinity();
    o.refRms = 0.5;
    o.maxErrorOverRefRms = -std::numeric_limits<double>::infinity();
    o.nanCount = 768;
    o.infCount = 1;
    r.outputs.push_back(o);
    r.inputs.push_back({"a", "9f86d081884c7d65", "9f86d081884c7d65", false});
    r.inputs.push_back({"b", "60303ae22b998861", "fd61a03af4f77d87", true});
    r.candidateTiming = summarizeTimings({0.0125, 0.015, 0.0175, 0.02}, true);
    r.candidateTiming->eventOverheadMs = 0.0025;
    r.referenceTiming = summarizeTimings({0.05, 0.0625, 0.075});
    r.speedup = 3.75;
    r.candidateCupti.available = true;
    r.candidateCupti.note = "2 kernels outside the timed stream";
    r.candidateCupti.timedStreamId = 7;
    r.candidateCupti.kernelCount = 3;
    r.candidateCupti.timedStreamKernels = 2;
    r.candidateCupti.otherStreamKernels = 1;
    r.candidateCupti.kernelMs = 0.03125;
    r.candidateCupti.otherStreamMs = 0.25;
    r.candidateCupti.memcpyCount = 1;
    r.candidateCupti.memsetCount = 2;
    r.candidateCupti.streams = {7, 13};
    r.candidateCupti.kernels
        = {{"vector_add_partial", 7, 2, 0.03125, false}, {"sm90_xmma_gemm_f16f16", 13, 1, 0.25, true}};
    r.referenceCupti.available = false;
    r.referenceCupti.note = "CUPTI was not requested";
    r.flops = 1024.0;
    r.bytes = 12288.0;
    r.rooflineFloorMs = 2.56e-6;
    r.wallMs = 850.0;
    r.overheadMs = 120.0;
    // Issue 12's members.
    r.checksRun = {"coverage", "correctness", "determinism", "input_hashes", "timing", "fresh_inputs", "post_timing",
        "persisting_l2_reset", "host_timer", "own_kernels", "per_call", "sanitizer", "adversarial", "isolation"};
    r.freshInputs = FreshInputsCheck {100, 10, 2, 0.5, "9e3779b97f4a7c15"};
    OutputCheck post = o;
    post.trials = 1;
    r.postTiming.push_back(post);
    r.hostTiming = HostTiming {0.0625, 0.125, 20, "runner"};
    PerCallTiming pc;
    // Powers of two: every step of the statistics is exact or rounded once, so
    // Debug and optimised builds write the same digits.
    pc.candidate = summarizeTimings({0.015625, 0.03125});
    pc.reference = summarizeTimings({0.0625});
    pc.checked = 2;
    pc.failed = 1;
    r.perCallTiming = pc;
    r.ownKernels = OwnKernels {{"vector_add_partial"}, {"vector_add_partial"}, 0.03125, 0.25, 0.0, 0.28125, 0.111111};
    r.sanitizer.push_back({"memcheck", 2, "Invalid __global__ read of size 4 bytes\n    at vector_add_partial+0x70"});
    r.sanitizer.push_back({"racecheck", 0, ""});
    r.adversarial.push_back({"near_max", true, 1.5e-7, 2.0, ""});
    r.adversarial.push_back({"signed", false, 1.25, 0.75, "output 'out': relative L2 error above 0.001"});
    r.isolation = IsolationInfo {"separate", "landlock+seccomp", "", {"open /proc/self/mem for writing"}};
    r.flags.push_back({"low_coverage", "out: 25% of the elements written", "error", {}});
    r.flags.push_back({"zero_acceptance", "all zeros would pass allclose", "warning", {}});
    r.fatal = true;
    return r;
}

// What a runner sends when it could not start: defaults everywhere else.
RerunResult minimalResult()
{
    RerunResult r;
    r.id = "rerun-2";
    r.status = RerunStatus::NoDevice;
    r.message = "no CUDA device";
    return r;
}

Capabilities withDevice()
{
    Capabilities c;
    c.id = "hello-1";
    c.runnerVersion = "0.4.0";
    c.devicePresent = true;
    c.device = h200();
    c.references = {"gemm", "relu", "softmax_rows", "vector_add"};
    return c;
}

Capabilities withoutDevice()
{
    Capabilities c;
    c.id = "hello-2";
    c.runnerVersion = "0.4.0";
    c.devicePresent = false;
    c.reason = "no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)";
    return c;
}

struct GoldenFile {
    const char* name; // tests/data/golden/protocol/<name>.jsonl
    std::vector<ProtocolMessage> messages;
};

// The golden lines, file by file, in file order (documented in the folder's README).
std::vector<GoldenFile> goldenFiles()
{
    return {
        {"hello", {HelloRequest {"hello-1"}}},
        {"rerun", {nativeRequest(), kernelBenchRerun()}},
        {"shutdown", {ShutdownRequest {"bye-1"}}},
        {"capabilities", {withDevice(), withoutDevice()}},
        {"progress", {ProgressMessage {"rerun-1", "compile", 0, 0}, ProgressMessage {"rerun-1", "timing", 40, 100}}},
        {"result", {fullResult(), minimalResult()}},
        {"error",
            {ErrorMessage {"rerun-3", "rerun request: [options.trials]: expected an integer, found string"},
                ErrorMessage {"", "line is not JSON"}}},
    };
}

std::vector<std::string> linesOf(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(text.substr(start)); // no newline: the comparison below reports it
            break;
        }
        lines.push_back(text.substr(start, end - start + 1));
        start = end + 1;
    }
    return lines;
}

} // namespace

class TestGoldenProtocol : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void encoderWritesGoldens_data();
    void encoderWritesGoldens();
    void goldensRoundTrip_data();
    void goldensRoundTrip();
    void everyMessageTypeHasGoldens();
    void corruptedGoldensNameTheMember_data();
    void corruptedGoldensNameTheMember();
};

void TestGoldenProtocol::encoderWritesGoldens_data()
{
    QTest::addColumn<int>("index");
    const auto files = goldenFiles();
    for (std::size_t i = 0; i < files.size(); ++i) QTest::addRow("%s", files[i].name) << int(i);
}

void TestGoldenProtocol::encoderWritesGoldens()
{
    QFETCH(int, index);
    const GoldenFile file = goldenFiles()[std::size_t(index)];
    std::string text;
    for (const auto& m : file.messages) text += encodeMessage(m);
    KWB_COMPARE_GOLDEN(std::string("protocol/") + file.name + ".jsonl", text);
}

void TestGoldenProtocol::goldensRoundTrip_data()
{
    encoderWritesGoldens_data();
}

// Decoding keeps every member the encoder writes: what comes back encodes to
// the same bytes.
void TestGoldenProtocol::goldensRoundTrip()
{
    QFETCH(int, index);
    const GoldenFile file = goldenFiles()[std::size_t(index)];
    std::string text;
    const std::string path = kwbtest::goldenPath(std::string("protocol/") + file.name + ".jsonl");
    QVERIFY2(kwbtest::readWholeFile(path, text), path.c_str());
    const auto lines = linesOf(text);
    QCOMPARE(lines.size(), file.messages.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        auto decoded = decodeMessage(lines[i]);
        QVERIFY2(decoded.isOk(), (path + ":" + std::to_string(i + 1) + ": " + decoded.status().toString()).c_str());
        QCOMPARE(decoded->index(), file.messages[i].index());
        const std::string again = encodeMessage(*decoded);
        QVERIFY2(again == lines[i],
            (path + ":" + std::to_string(i + 1) + ": " + kwbtest::firstDifference(lines[i], again)).c_str());
    }
}

void TestGoldenProtocol::everyMessageTypeHasGoldens()
{
    std::set<std::size_t> seen;
    for (const auto& f : goldenFiles())
        for (const auto& m : f.messages) seen.insert(m.index());
    QCOMPARE(seen.size(), std::variant_size_v<ProtocolMessage>);
}

void TestGoldenProtocol::corruptedGoldensNameTheMember_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("reason");
    const auto row = [](const char* name, const char* file, const char* from, const char* to, const char* reason) {
        QTest::addRow("%s", name) << QString::fromUtf8(file) << QString::fromUtf8(from) << QString::fromUtf8(to)
                                  << QString::fromUtf8(reason);
    };
    row("array element", "result", "\"streams\":[7,13]", "\"streams\":[7,\"x\"]",
        "[candidate_cupti.streams[1]]: schema error: expected an integer, found a string");
    row("nested object", "result", "\"rows\":2,", "\"rows\":2.5,",
        "[coverage[0].grid.rows]: schema error: expected an integer");
    row("no status", "result", "\"status\":\"ok\",", "", "[status]: schema error: no 'status' member");
    row("unknown precision", "result", "\"precision\":\"float16\"", "\"precision\":\"fp8\"", "unknown precision 'fp8'");
    row("out of range", "result", "\"timed_stream_id\":7", "\"timed_stream_id\":-7",
        "[candidate_cupti.timed_stream_id]: schema error: integer out of range");
    row("reference name", "capabilities", "\"references\":[\"gemm\"", "\"references\":[1",
        "[references[0]]: schema error: expected a string");
    row("negative seed", "rerun", "\"seed\":123456789012345", "\"seed\":-1",
        "[options.seed]: schema error: expected a non-negative integer");
    row("fresh counts", "result", "\"checked\":10,\"failed\":2", "\"checked\":1,\"failed\":2",
        "[fresh_inputs]: schema error: failed must be within 0..checked");
    row("measured by", "result", "\"measured_by\":\"runner\"", "\"measured_by\":\"candidate\"",
        "[host_timing]: schema error: measured_by must be 'runner' or 'judge'");
    row("sanitizer tool", "rerun", "\"sizes\":{", "\"sanitize\":[\"valgrind\"],\"sizes\":{",
        "[options]: schema error: sanitize names a tool other than");
    row("grid check", "result", "\"written_fraction\":[1.0,0.0,0.0,0.0]", "\"written_fraction\":[1.0]",
        "[coverage[0].grid]: schema error: rows * cols differs");
}

// The decoder walks the same member lists as the encoder: a member broken in
// a golden line is refused with its full path.
void TestGoldenProtocol::corruptedGoldensNameTheMember()
{
    QFETCH(QString, file);
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, reason);
    std::string text;
    QVERIFY(kwbtest::readWholeFile(kwbtest::goldenPath("protocol/" + file.toStdString() + ".jsonl"), text));
    const std::string line = linesOf(text).front();
    const auto at = line.find(from.toStdString());
    QVERIFY2(at != std::string::npos, qPrintable(from));
    const std::string broken = std::string(line).replace(at, std::size_t(from.toUtf8().size()), to.toStdString());
    auto decoded = decodeMessage(broken);
    QVERIFY(!decoded.isOk());
    const std::string message = decoded.status().toString();
    QVERIFY2(message.find(reason.toStdString()) != std::string::npos, message.c_str());
}

QTEST_GUILESS_MAIN(TestGoldenProtocol)
#include "tst_golden_protocol.moc"
