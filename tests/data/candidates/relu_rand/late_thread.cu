// Exploit (timer games: a host thread launches the work later). A call that
// finds the caller's stream busy (a timing loop enqueues trials behind other
// work) hands its buffers to a thread of the candidate's own and returns at
// once; the thread launches the kernel on that stream about 100 us later,
// behind the stop event the harness records after the call, so the events
// bracket an almost empty stream. A call on an idle stream (a correctness
// check, the re-validation after timing) computes before returning, so every
// check of a single call passes. CUPTI sees the kernels in the timed window
// all the same (untimed_work).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include <cuda_runtime.h>

namespace {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

struct Job {
    const float* x;
    float* out;
    std::int64_t n;
    cudaStream_t stream;
};

void launch(const Job& j)
{
    reluKernel<<<static_cast<unsigned>((j.n + 255) / 256), 256, 0, j.stream>>>(j.x, j.out, j.n);
}

std::mutex g_mutex;
std::condition_variable g_wake;
std::deque<Job> g_jobs;
bool g_threadStarted = false;
bool g_firstCall = true;

void worker()
{
    for (;;) {
        Job j;
        {
            std::unique_lock<std::mutex> lock(g_mutex);
            g_wake.wait(lock, [] { return !g_jobs.empty(); });
            j = g_jobs.front();
            g_jobs.pop_front();
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        launch(j);
    }
}
} // namespace

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const Job j{static_cast<const float*>(buffers[0]), static_cast<float*>(buffers[1]), sizes[0], stream};
    const bool idle = cudaStreamQuery(stream) == cudaSuccess;
    cudaGetLastError(); // cudaErrorNotReady is an answer, not an error
    if (g_firstCall || idle) {
        g_firstCall = false;
        launch(j);
        return static_cast<int>(cudaGetLastError());
    }
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (!g_threadStarted) {
            std::thread(worker).detach(); // lives as long as the candidate's process
            g_threadStarted = true;
        }
        g_jobs.push_back(j);
    }
    g_wake.notify_one();
    return 0;
}
