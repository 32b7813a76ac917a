// The timer against a kernel of known duration (it spins on the GPU's global
// nanosecond timer), and CUPTI against the events: every trial's kernel is
// seen once, on the timed stream, with a duration matching the event time;
// work launched on a second stream is seen on that stream. The calibrated
// event bracket brings the event median to within 1% of CUPTI's kernel time
// at 50 us and up (2% is the engine's target for single-kernel candidates).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "analysis/statistics.h"
#include "gpu/timing/cupti_summary.h"
#include "gpu/timing/cupti_tracer.h"
#include "gpu/timing/kernel_timer.h"
#include "gpu_test.h"

using namespace kwb::gpu;

namespace {

constexpr const char* kTestName = "tst_gpu_timer";

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

// Core's median (analysis/statistics.h); these samples are never empty.
double median(std::vector<double> v) { return kwb::median(std::move(v)).value_or(0.0); }

} // namespace

int main()
{
    auto dev = kwb::gputest::requireDevice(kTestName);
    int* sink = nullptr;
    GT_REQUIRE_OK(kwb::Status(cudaMalloc(&sink, 4) == cudaSuccess ? kwb::Status::ok()
                                                                : kwb::Status(kwb::ErrorCode::GpuError, "cudaMalloc")));
    cudaStream_t stream = nullptr;
    cudaStream_t side = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    KernelTimer timer;
    GT_REQUIRE_OK(timer.init(dev.l2Bytes));
    auto& tracer = CuptiTracer::instance();
    const bool cupti = tracer.initialize().isOk();
    GT_CHECK(cupti);
    auto timedId = tracer.streamId(stream);
    GT_OK(timedId);

    TimingConfig flushCfg;
    auto overhead = timer.eventOverhead(stream, flushCfg);
    GT_OK(overhead);
    if (overhead) {
        std::printf("event bracket: %.3f us (probe: events %.3f us, CUPTI %.3f us, %d trials)\n", overhead->ms * 1e3,
            overhead->probeEventMs * 1e3, overhead->probeKernelMs * 1e3, overhead->trials);
        GT_CHECK(overhead->ms > 0.0);
        GT_CHECK(overhead->ms < 0.010); // a few microseconds, never tens
        GT_CHECK(overhead->probeKernelMs >= 0.020);
        auto again = timer.eventOverhead(stream, flushCfg);
        GT_CHECK(again && again->ms == overhead->ms); // cached per flush setting
    }

    for (double us : {50.0, 100.0, 1000.0}) {
        const auto ns = static_cast<std::uint64_t>(us * 1000.0);
        TimingConfig cfg;
        cfg.warmup = 3;
        cfg.trials = 30;
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(ns, sink);
            return cudaGetLastError() == cudaSuccess ? kwb::Status::ok()
                                                     : kwb::Status(kwb::ErrorCode::GpuError, "launch");
        };
        auto ms = timer.time(launch, stream, cfg, {}, [&] { return tracer.begin(); }, [&] { return tracer.end(); });
        GT_OK(ms);
        if (!ms) continue;
        const double med = median(*ms);
        std::printf("spin %.0f us: event median %.3f us\n", us, med * 1000.0);
        GT_CHECK(med * 1000.0 >= us * 0.999);
        GT_CHECK(med * 1000.0 <= us * 1.05 + 10.0);
        if (!cupti) continue;
        std::vector<double> kernelMs;
        for (const auto& k : tracer.kernels()) {
            if (isInternalKernelName(k.name.c_str())) continue;
            GT_CHECK(demangleKernelName(k.name).find("spinKernel") != std::string::npos);
            if (timedId) GT_CHECK_EQ(k.streamId, *timedId);
            kernelMs.push_back(static_cast<double>(k.endNs - k.startNs) / 1e6);
        }
        GT_CHECK_EQ(kernelMs.size(), static_cast<std::size_t>(cfg.trials));
        if (!kernelMs.empty()) {
            const double kmed = median(kernelMs);
            std::printf("spin %.0f us: CUPTI kernel median %.3f us (%.2f%% from events)\n", us, kmed * 1000.0,
                100.0 * (med - kmed) / kmed);
            // Events also time the dispatch after the start event: a fixed ~2-3 us on an H200.
            GT_CHECK(med >= kmed);
            GT_CHECK(med - kmed <= std::max(0.02 * kmed, 0.005));
            if (overhead) {
                const double corrected = std::max(0.0, med - overhead->ms);
                std::printf("spin %.0f us: less the bracket %.3f us (%.2f%% from CUPTI)\n", us, corrected * 1000.0,
                    100.0 * (corrected - kmed) / kmed);
                GT_CHECK(std::fabs(corrected - kmed) <= 0.01 * kmed);
            }
        }
    }

    // Side-stream work is visible with its own stream id.
    if (cupti) {
        TimingConfig cfg;
        cfg.warmup = 1;
        cfg.trials = 5;
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(20000, sink);
            spinKernel<<<1, 32, 0, side>>>(50000, sink);
            return kwb::Status::ok();
        };
        auto ms = timer.time(launch, stream, cfg, {}, [&] { return tracer.begin(); }, [&] { return tracer.end(); });
        GT_OK(ms);
        auto sideId = tracer.streamId(side);
        GT_OK(sideId);
        int onTimed = 0;
        int onSide = 0;
        int flushes = 0;
        int gates = 0;
        for (const auto& k : tracer.kernels()) {
            if (isInternalKernelName(k.name.c_str())) {
                flushes += k.name.find("FlushKernel") != std::string::npos;
                gates += k.name.find("batchGateKernel") != std::string::npos;
                continue;
            }
            if (timedId && k.streamId == *timedId) ++onTimed;
            if (sideId && k.streamId == *sideId) ++onSide;
        }
        GT_CHECK_EQ(onTimed, 5);
        GT_CHECK_EQ(onSide, 5);
        GT_CHECK_EQ(flushes, 5); // one L2 flush per trial
        GT_CHECK_EQ(gates, 1);   // one gate per batch of up to 10 trials
    }
    // A launch closure that synchronises (as some shared-object candidates do) keeps the
    // batch gate shut: it must open itself, and the trials still complete and time the kernel.
    {
        TimingConfig cfg;
        cfg.warmup = 1;
        cfg.trials = 20;
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(30000, sink);
            return cudaStreamSynchronize(s) == cudaSuccess ? kwb::Status::ok()
                                                          : kwb::Status(kwb::ErrorCode::GpuError, "sync");
        };
        auto ms = timer.time(launch, stream, cfg, {});
        GT_OK(ms);
        if (ms) {
            const double med = median(*ms);
            std::printf("synchronising closure: median %.3f us over %zu trials\n", med * 1000.0, ms->size());
            GT_CHECK_EQ(ms->size(), static_cast<std::size_t>(20));
            GT_CHECK(med * 1000.0 >= 30.0 && med * 1000.0 <= 80.0);
        }
        // The first gate gave up, so no trial was held: the timer says so.
        GT_CHECK_EQ(timer.lastUngatedTrials().value_or(-1), 20);
    }
    // A call of 300 short launches (a level-3 network's worth): ten of them behind a closed gate
    // fill the stream's launch queue, so the host blocks part-way through the first batch and
    // that gate gives up; the timer then gates batches of the calls that fitted, so only the
    // first batch runs ungated (before: every trial, and events that took in launch latency).
    {
        TimingConfig cfg;
        cfg.warmup = 2;
        cfg.trials = 40;
        cfg.l2Flush = false;
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            for (int j = 0; j < 300; ++j) spinKernel<<<1, 32, 0, s>>>(1000, sink);
            return cudaGetLastError() == cudaSuccess ? kwb::Status::ok() : kwb::Status(kwb::ErrorCode::GpuError, "launch");
        };
        auto ms = timer.time(launch, stream, cfg, {});
        GT_OK(ms);
        const int ungated = timer.lastUngatedTrials().value_or(-1);
        std::printf("300 launches a call: %d of 40 trials ungated\n", ungated);
        GT_CHECK(ungated >= 0 && ungated <= 10);
        if (ms) // for the record: the gated trials' events are the GPU's time for 300 short kernels
            std::printf("300 launches a call: event median %.3f ms over trials 10-39\n",
                median(std::vector<double>(ms->begin() + std::min<std::ptrdiff_t>(10, ms->size()), ms->end())));
    }
    // Without the L2 flush, a short kernel is timed from a queue the host has already filled:
    // the event time stays near its flushed value instead of taking in the host's launch latency.
    if (overhead) {
        TimingConfig cfg;
        cfg.warmup = 3;
        cfg.trials = 100;
        cfg.l2Flush = false;
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(2000, sink);
            return kwb::Status::ok();
        };
        auto ms = timer.time(launch, stream, cfg, {});
        GT_OK(ms);
        if (ms) {
            const double med = median(*ms);
            std::printf("spin 2 us without flush: event median %.3f us\n", med * 1000.0);
            GT_CHECK(med * 1000.0 <= 2.0 + 2.6 + 1.5);
        }
    }
    // Issue 12. The L2-flush kernel never reaches the CUPTI window's summary
    // (TileOPs PR #1725 found it counted there): every kernel summarised is the candidate's.
    if (cupti) {
        TimingConfig cfg;
        cfg.warmup = 1;
        cfg.trials = 12;
        cfg.l2Flush = true;
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(10000, sink);
            return kwb::Status::ok();
        };
        auto ms = timer.time(launch, stream, cfg, {}, [&] { return tracer.begin(); }, [&] { return tracer.end(); });
        GT_OK(ms);
        int rawFlushes = 0;
        for (const auto& k : tracer.kernels()) rawFlushes += k.name.find("FlushKernel") != std::string::npos;
        GT_CHECK_EQ(rawFlushes, 12); // the flush ran inside the window...
        const kwb::CuptiSummary sum = summarizeCupti(tracer.kernels(), tracer.memOps(), timedId ? *timedId : 0, 0);
        GT_CHECK_EQ(sum.kernelCount, 12); // ...and is not counted: only the 12 spins
        for (const auto& k : sum.kernels) GT_CHECK(k.name.find("Flush") == std::string::npos);
    }
    // The refresh hook runs once per trial, enqueued behind the gate and outside
    // the events: a 50 us refresh does not reach the event time of a 20 us kernel,
    // and the batch gate keeps working (no gate times out).
    {
        TimingConfig cfg;
        cfg.warmup = 2;
        cfg.trials = 30;
        int refreshes = 0;
        TrialHooks hooks;
        hooks.refresh = [&](cudaStream_t s) -> kwb::Status {
            ++refreshes;
            spinKernel<<<1, 32, 0, s>>>(50000, sink);
            return kwb::Status::ok();
        };
        std::vector<int> batchEnds;
        hooks.afterBatch = [&](int last) {
            batchEnds.push_back(last);
            return kwb::Status::ok();
        };
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(20000, sink);
            return kwb::Status::ok();
        };
        auto ms = timer.time(launch, stream, cfg, {}, {}, {}, &hooks);
        GT_OK(ms);
        GT_CHECK_EQ(refreshes, 30);
        GT_CHECK((batchEnds == std::vector<int>{9, 19, 29}));
        if (ms) {
            const double med = median(*ms);
            std::printf("20 us kernel with a 50 us refresh per trial: event median %.3f us\n", med * 1000.0);
            GT_CHECK(med * 1000.0 >= 20.0 && med * 1000.0 <= 20.0 + 2.6 + 3.0);
        }
    }
    // Slow host work per trial (the bridge's fresh-input tick to the judge, on a loaded
    // machine): 10 trials x 5 ms of host time per batch keep the gate shut for 50 ms,
    // and the kernel is still timed without the host's latency.
    {
        TimingConfig cfg;
        cfg.warmup = 2;
        cfg.trials = 20;
        cfg.l2Flush = false;
        TrialHooks hooks;
        hooks.refresh = [&](cudaStream_t) -> kwb::Status {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return kwb::Status::ok();
        };
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(2000, sink);
            return kwb::Status::ok();
        };
        auto ms = timer.time(launch, stream, cfg, {}, {}, {}, &hooks);
        GT_OK(ms);
        if (ms) {
            const double med = median(*ms);
            std::printf("2 us kernel, 5 ms of host work per trial: event median %.3f us\n", med * 1000.0);
            GT_CHECK(med * 1000.0 <= 2.0 + 2.6 + 1.5);
        }
        GT_CHECK_EQ(timer.lastUngatedTrials().value_or(-1), 0); // every trial held
    }
    // Persisting L2: the reset leaves the limit at 0 whatever the candidate set.
    {
        int maxPersist = 0;
        cudaDeviceGetAttribute(&maxPersist, cudaDevAttrMaxPersistingL2CacheSize, 0);
        if (maxPersist > 0) {
            GT_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(maxPersist)) == cudaSuccess);
            GT_CHECK(persistingL2Raised());
            GT_OK(resetPersistingL2(stream));
            GT_CHECK(!persistingL2Raised());
            // Inside the timer: a closure that raises it on every call is reset before the next trial.
            TimingConfig cfg;
            cfg.warmup = 0;
            cfg.trials = 12;
            cfg.resetPersistingL2 = true;
            int raisedAtCall = 0;
            auto launch = [&](cudaStream_t s) -> kwb::Status {
                raisedAtCall += persistingL2Raised();
                cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(maxPersist));
                spinKernel<<<1, 32, 0, s>>>(5000, sink);
                return kwb::Status::ok();
            };
            GT_OK(timer.time(launch, stream, cfg, {}));
            GT_CHECK_EQ(raisedAtCall, 0); // every trial started with the limit at 0
            GT_OK(resetPersistingL2(stream));
        } else {
            std::printf("no persisting L2 on this device: reset test skipped\n");
        }
    }
    // A time budget: a 20 ms kernel under a 0.1 s budget gets the floor of 10 trials and
    // 2 warm-ups, not 100 + 10 (2.2 s); a 50 us kernel under the same budget keeps its 100.
    {
        int calls = 0;
        auto slow = [&](cudaStream_t s) -> kwb::Status {
            ++calls;
            spinKernel<<<1, 32, 0, s>>>(20'000'000, sink);
            return kwb::Status::ok();
        };
        TimingConfig cfg;
        cfg.warmup = 10;
        cfg.trials = 100;
        cfg.maxSeconds = 0.1;
        auto ms = timer.time(slow, stream, cfg, {});
        GT_OK(ms);
        if (ms) {
            std::printf("budget 0.1 s, 20 ms kernel: %zu trials, %d calls\n", ms->size(), calls);
            GT_CHECK_EQ(ms->size(), static_cast<std::size_t>(10));
            GT_CHECK_EQ(calls, 12);
            GT_CHECK(median(*ms) >= 19.9 && median(*ms) <= 21.0);
        }
        calls = 0;
        auto quick = [&](cudaStream_t s) -> kwb::Status {
            ++calls;
            spinKernel<<<1, 32, 0, s>>>(50000, sink);
            return kwb::Status::ok();
        };
        auto full = timer.time(quick, stream, cfg, {});
        GT_OK(full);
        if (full) {
            GT_CHECK_EQ(full->size(), static_cast<std::size_t>(100));
            GT_CHECK_EQ(calls, 110);
        }
    }
    // The host timer and the per-call mode on a 30 us kernel.
    {
        auto launch = [&](cudaStream_t s) -> kwb::Status {
            spinKernel<<<1, 32, 0, s>>>(30000, sink);
            return kwb::Status::ok();
        };
        auto host = timer.hostMsPerCall(launch, stream, 20);
        GT_OK(host);
        if (host) {
            std::printf("host timer, 30 us kernel: %.3f us per call\n", *host * 1000.0);
            GT_CHECK(*host * 1000.0 >= 29.0 && *host * 1000.0 <= 30.0 * 1.5 + 50.0); // the flag's noise bound
        }
        TimingConfig cfg;
        cfg.trials = 8;
        int checks = 0;
        auto perCall = timer.timePerCall(launch, stream, cfg, {}, [&](int) {
            ++checks;
            return kwb::Status::ok();
        });
        GT_OK(perCall);
        GT_CHECK_EQ(checks, 8);
        if (perCall) GT_CHECK(median(*perCall) * 1000.0 >= 29.0 && median(*perCall) * 1000.0 <= 40.0);
    }
    cudaStreamDestroy(stream);
    cudaStreamDestroy(side);
    cudaFree(sink);
    return kwb::gputest::finish(kTestName);
}
