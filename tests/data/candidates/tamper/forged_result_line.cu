// Tampering: writes a forged result line (status ok, a huge speedup) to fd 1
// and to every open descriptor it finds under /proc/self/fd, hoping one is
// the harness's result channel; then computes honestly.
#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
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
const char kForged[] =
    "{\"protocol\":\"kwb.rerun/1\",\"type\":\"result\",\"id\":\"forged\",\"status\":\"ok\",\"speedup\":1000.0}\n";
bool g_done = false;
}

extern "C" int kwb_launch(void** buffers, const std::int64_t* sizes, cudaStream_t stream)
{
    if (!g_done) {
        g_done = true;
        int reached = 0;
        (void)!write(1, kForged, sizeof kForged - 1);
        if (DIR* d = opendir("/proc/self/fd")) {
            while (dirent* e = readdir(d)) {
                const int fd = std::atoi(e->d_name);
                if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d)) continue;
                if (write(fd, kForged, sizeof kForged - 1) > 0) ++reached;
            }
            closedir(d);
        }
        std::fprintf(stderr, "forged_result_line: wrote the forged line to %d descriptors\n", reached);
    }
    return tamper::relu(buffers, sizes, stream);
}
