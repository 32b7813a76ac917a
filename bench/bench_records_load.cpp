// Record-loading benchmark: generates N native records (JSONL), then loads
// them with the native reader and reports throughput. Not a test.
//   bench_records_load [--records N] [--repeat R] [--keep FILE]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <sys/resource.h>

#include "base/json_writer.h"
#include "records/native_reader.h"
#include "records/native_writer.h"

using namespace kwb;

namespace {

// Records shaped like real ones: provenance on both timings, a share with
// verification flags and a coverage grid, a share with inline source.
std::vector<EvalRecord> generate(std::size_t n)
{
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> speed(-0.3, 0.8);
    std::uniform_real_distribution<double> ms(0.05, 15.0);
    const char* models[] = {"o1-preview-2024-09-12", "claude-3-5-sonnet-20241022", "deepseek", "gpt-4o-2024-08-06",
        "Meta-Llama-3.1-405B-Instruct", "gemini-1.5-flash-002", "qwen2.5-coder-32b"};
    const std::string source = std::string(600, 'x');
    std::vector<EvalRecord> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        EvalRecord r;
        r.id = "bench/" + std::to_string(i);
        r.problem = {"KernelBench", static_cast<std::int64_t>(1 + i % 3), static_cast<std::int64_t>(1 + i % 100),
            std::to_string(1 + i % 100) + "_Problem_name_" + std::to_string(i % 100)};
        r.model = models[i % 7];
        r.run = "run-" + std::to_string(i % 20);
        r.sample = static_cast<std::int64_t>(i % 10);
        const bool correct = i % 4 != 0;
        r.outcome = correct ? Outcome::Correct : (i % 8 == 0 ? Outcome::CompileError : Outcome::Incorrect);
        r.compiled = r.outcome != Outcome::CompileError;
        if (!correct) r.error = "max_difference 0.0312 exceeds atol 1e-4";
        const double base = ms(rng);
        const double s = speed(rng);
        r.candidate.meanMs = base / s;
        r.candidate.medianMs = base / s * 0.99;
        r.candidate.stdMs = 0.01;
        r.candidate.provenance = {"NVIDIA H200", "cuda_event", 100, true, {1e-4, 1e-4}, "fp32", "bench", "", {}};
        Baseline b{"torch_eager", {}};
        b.stats.meanMs = base;
        b.stats.medianMs = base * 0.99;
        b.stats.provenance = {"NVIDIA H200", "cuda_event", 100, true, {}, "fp32", "bench", "H200/baseline_time_torch", {}};
        r.baselines.push_back(std::move(b));
        if (correct) {
            r.speedup = s;
            r.speedupBaseline = "torch_eager";
        }
        if (i % 10 == 0) {
            Coverage c;
            c.writtenFraction = 0.5;
            c.writtenElements = 500;
            c.totalElements = 1000;
            c.grid.rows = 8;
            c.grid.cols = 8;
            c.grid.writtenFraction.assign(64, 0.5f);
            r.verification.coverage = c;
            r.verification.flags.push_back({"low_coverage", "kernel wrote 50.0% of its output", "error"});
        }
        if (i % 5 == 0) {
            r.source.code = source;
            r.source.language = "cuda";
        }
        r.extra.push_back({"temperature", "0.7"});
        out.push_back(std::move(r));
    }
    return out;
}

double peakRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

} // namespace

int main(int argc, char** argv)
{
    std::size_t n = 100000;
    int repeat = 5;
    std::string keep;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--records")) n = std::stoul(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--repeat")) repeat = std::stoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--keep")) keep = argv[i + 1];
    }
    const std::string path = keep.empty() ? "/tmp/kwb_bench_records.jsonl" : keep;
    {
        const auto records = generate(n);
        if (auto s = writeRecordsFile(path, records); !s.isOk()) {
            std::fprintf(stderr, "%s\n", s.toString().c_str());
            return 1;
        }
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::fseek(f, 0, SEEK_END);
    const double bytes = static_cast<double>(std::ftell(f));
    std::fclose(f);

    double best = 1e30;
    std::vector<double> times;
    std::size_t loaded = 0;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const RecordSet set = loadNativeRecords(path);
        const auto t1 = std::chrono::steady_clock::now();
        loaded = set.records.size();
        if (set.badRecordCount() != 0) {
            std::fprintf(stderr, "unexpected bad records: %zu\n", set.badRecordCount());
            return 1;
        }
        const double sec = std::chrono::duration<double>(t1 - t0).count();
        times.push_back(sec);
        best = std::min(best, sec);
    }
    std::sort(times.begin(), times.end());
    const double med = times[times.size() / 2];
    std::printf("records: %zu, file: %.1f MB (%.0f bytes/record)\n", loaded, bytes / 1e6, bytes / static_cast<double>(n));
    std::printf("load (native JSONL, one thread): median %.3f s = %.0f MB/s, %.0f records/s; best %.0f MB/s\n", med,
        bytes / med / 1e6, static_cast<double>(n) / med, bytes / best / 1e6);
    std::printf("peak RSS: %.0f MB\n", peakRssMb());
    if (keep.empty()) std::remove(path.c_str());
    return 0;
}
