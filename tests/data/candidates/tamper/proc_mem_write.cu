// Tampering: opens /proc/self/mem and its parent's /proc/PID/mem for writing,
// the way pygpubench's fixtures patch a harness's compare function. When an
// open succeeds the harness is within reach; this fixture then skips its work
// to make that visible (a real exploit would patch the compare through the
// descriptor). When both fail it computes honestly.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>


// The honest ReLU this fixture computes once its attempt is over.
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

namespace tamper {
__global__ void reluKernel(const float* x, float* out, std::int64_t n)
{
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

inline int relu(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    const std::int64_t n = sizes[0];
    reluKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
        static_cast<const float*>(buffers[0]), static_cast<float*>(buffers[1]), n);
    return static_cast<int>(cudaGetLastError());
}
} // namespace tamper

namespace {
bool tryOpen(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    std::fprintf(stderr, "proc_mem_write: open(%s, O_RDWR): %s\n", path.c_str(), fd >= 0 ? "opened" : std::strerror(errno));
    if (fd < 0) return false;
    close(fd);
    return true;
}
}

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    // Tried on the first call only, as a patcher would: trying on every call spent
    // ~60 us of host time per call (two failed opens, two log lines) that the host
    // timer rightly counted as work outside the events (timer_mismatch on the H200).
    static const bool reached = [] {
        const bool self = tryOpen("/proc/self/mem");
        const bool parent = tryOpen("/proc/" + std::to_string(getppid()) + "/mem");
        return self || parent;
    }();
    if (reached) return 0; // reached: no work done
    return tamper::relu(buffers, sizes, stream);
}
