// Timer quality: for kernels of known duration (a spin on the GPU's
// nanosecond timer) and streaming kernels of several sizes, the coefficient
// of variation of repeated medians, the per-trial spread, and CUPTI kernel
// time against event time, raw and less the event bracket that
// KernelTimer::eventOverhead() calibrates on its probe kernel.
// Usage: bench_timing [repeats] (default 10).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/timing/cupti_tracer.h"
#include "gpu/device/device_info.h"
#include "gpu/timing/kernel_timer.h"

using namespace kwb::gpu;

namespace {

__device__ std::uint64_t globalTimerNs()
{
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spinKernel(std::uint64_t ns, int* sink)
{
    const std::uint64_t t0 = globalTimerNs();
    int i = 0;
    while (globalTimerNs() - t0 < ns) ++i;
    if (i == -1) *sink = i;
}

__global__ void scaleKernel(const float4* __restrict__ in, float4* __restrict__ out, std::int64_t n4)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = in[i];
        out[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
    }
}

double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double cv(const std::vector<double>& v)
{
    double m = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return std::sqrt(s / static_cast<double>(v.size() > 1 ? v.size() - 1 : 1)) / m;
}

struct Case {
    std::string name;
    LaunchFn launch;
    bool flush;
    FlushMode mode = FlushMode::Read;
};

} // namespace

int main(int argc, char** argv)
{
    const int repeats = argc > 1 ? std::max(2, std::atoi(argv[1])) : 10;
    std::string why;
    if (deviceCount(&why) == 0) {
        std::printf("no CUDA device: %s\n", why.c_str());
        return 3;
    }
    auto dev = openDevice(0);
    if (!dev) return 1;
    std::printf("device: %s, driver %s, %d repeats of (10 warm-up + 100 timed trials)\n", dev->name.c_str(),
        kwb::gpu::kernelDriverVersion().c_str(), repeats);
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    int* sink = nullptr;
    cudaMalloc(&sink, 4);
    const std::int64_t maxN = 300LL << 20; // floats: 1.2 GB in, 1.2 GB out
    float* in = nullptr;
    float* out = nullptr;
    cudaMalloc(&in, static_cast<std::size_t>(maxN) * 4);
    cudaMalloc(&out, static_cast<std::size_t>(maxN) * 4);
    cudaMemset(in, 0, static_cast<std::size_t>(maxN) * 4);
    KernelTimer timer;
    if (!timer.init(dev->l2Bytes).isOk()) return 1;
    auto& tracer = CuptiTracer::instance();
    const bool cupti = tracer.initialize().isOk();

    std::vector<Case> cases;
    for (double us : {2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 500.0}) {
        const auto ns = static_cast<std::uint64_t>(us * 1000);
        auto launch = [ns, sink](cudaStream_t s) {
            spinKernel<<<1, 32, 0, s>>>(ns, sink);
            return kwb::Status::ok();
        };
        cases.push_back({"spin " + std::to_string(static_cast<int>(us)) + " us", launch, true});
        if (us <= 10.0) cases.push_back({"spin " + std::to_string(static_cast<int>(us)) + " us, no flush", launch, false});
    }
    for (std::int64_t n : {3LL << 20, 30LL << 20, 300LL << 20}) {
        auto launch = [n, in, out, &dev](cudaStream_t s) {
            scaleKernel<<<static_cast<unsigned>(dev->smCount * 8), 256, 0, s>>>(reinterpret_cast<const float4*>(in),
                reinterpret_cast<float4*>(out), n / 4);
            return kwb::Status::ok();
        };
        cases.push_back({"stream " + std::to_string(n * 8 >> 20) + " MiB", launch, true});
        cases.push_back({"stream " + std::to_string(n * 8 >> 20) + " MiB, write flush", launch, true, FlushMode::Write});
    }

    std::printf("%-30s %11s %11s %9s %11s %11s %9s %9s %9s\n", "case", "median us", "IQR us", "CV med", "trial CV",
        "CUPTI us", "evt-CUPTI", "bracket", "corr-CUPTI");
    TimingConfig cfg;
    cfg.warmup = 10;
    cfg.trials = 100;
    for (const auto& c : cases) {
        cfg.l2Flush = c.flush;
        cfg.flushMode = c.mode;
        std::vector<double> medians;
        std::vector<double> trialCvs;
        std::vector<double> iqrs;
        for (int r = 0; r < repeats; ++r) {
            auto ms = timer.time(c.launch, stream, cfg, {});
            if (!ms) {
                std::printf("%s: %s\n", c.name.c_str(), ms.status().toString().c_str());
                return 1;
            }
            medians.push_back(quantile(*ms, 0.5) * 1000.0);
            iqrs.push_back((quantile(*ms, 0.75) - quantile(*ms, 0.25)) * 1000.0);
            trialCvs.push_back(cv(*ms));
        }
        double cuptiUs = 0;
        double eventUs = 0;
        double bracketUs = 0;
        if (cupti) {
            auto oh = timer.eventOverhead(stream, cfg);
            if (oh) bracketUs = oh->ms * 1000.0;
            auto ms = timer.time(c.launch, stream, cfg, {}, [&] { return tracer.begin(); }, [&] { return tracer.end(); });
            if (ms) {
                std::vector<double> k;
                for (const auto& rec : tracer.kernels())
                    if (!isInternalKernelName(rec.name.c_str())) k.push_back(static_cast<double>(rec.endNs - rec.startNs) / 1e3);
                if (!k.empty()) cuptiUs = quantile(k, 0.5);
                eventUs = quantile(*ms, 0.5) * 1000.0;
            }
        }
        const double med = quantile(medians, 0.5);
        const double correctedUs = std::max(0.0, eventUs - bracketUs);
        std::printf("%-30s %11.2f %11.2f %8.3f%% %10.2f%% %11.2f %8.2f%% %9.3f %8.2f%%\n", c.name.c_str(), med,
            quantile(iqrs, 0.5), 100.0 * cv(medians), 100.0 * quantile(trialCvs, 0.5), cuptiUs,
            cuptiUs > 0 ? 100.0 * (eventUs - cuptiUs) / cuptiUs : 0.0, bracketUs,
            cuptiUs > 0 ? 100.0 * (correctedUs - cuptiUs) / cuptiUs : 0.0);
        std::printf("JSON {\"bench\":\"timing\",\"case\":\"%s\",\"l2_flush\":%s,\"median_us\":%.3f,\"iqr_us\":%.3f,"
                    "\"cv_of_medians\":%.5f,\"trial_cv\":%.5f,\"cupti_median_us\":%.3f,\"event_median_us_cupti_run\":%.3f,"
                    "\"event_bracket_us\":%.3f,\"corrected_median_us_cupti_run\":%.3f}\n",
            c.name.c_str(), c.flush ? "true" : "false", med, quantile(iqrs, 0.5), cv(medians), quantile(trialCvs, 0.5),
            cuptiUs, eventUs, bracketUs, correctedUs);
    }
    cudaFree(in);
    cudaFree(out);
    cudaFree(sink);
    cudaStreamDestroy(stream);
    return 0;
}
