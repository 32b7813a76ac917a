// Tampering: attaches to its parent with ptrace (from there it could poke the
// verdict). When the attach succeeds this fixture detaches and skips its work
// to make the reach visible; when it fails it computes honestly.
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>


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

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    // Tried on the first call only (as proc_mem_write does): a syscall and a log line
    // on every call would be host work outside the events, which the host timer counts.
    static const bool reached = [] {
        const pid_t parent = getppid();
        if (ptrace(PTRACE_ATTACH, parent, nullptr, nullptr) == 0) {
            int st = 0;
            waitpid(parent, &st, __WALL);
            ptrace(PTRACE_DETACH, parent, nullptr, nullptr);
            std::fprintf(stderr, "ptrace_parent: attached to %d\n", static_cast<int>(parent));
            return true;
        }
        std::fprintf(stderr, "ptrace_parent: PTRACE_ATTACH %d: %s\n", static_cast<int>(parent), std::strerror(errno));
        return false;
    }();
    if (reached) return 0; // reached: no work done
    return tamper::relu(buffers, sizes, stream);
}
