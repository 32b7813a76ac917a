// A deliberate illegal-address fault in a child process: the child sees the
// sticky error through the checked macros (code, call text, "sticky") and
// contextLost(); the parent survives and its own context keeps working.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "gpu/device/gpu_check.h"
#include "gpu_test.h"

extern char** environ;

using namespace kwb::gpu;

namespace {

constexpr const char* kTestName = "tst_gpu_fault";
constexpr int kChildSawSticky = 42;

__global__ void badWrite(float* p)
{
    p[threadIdx.x] = 1.0f; // p points at an unmapped address
}

__global__ void goodWrite(float* p)
{
    p[threadIdx.x] = 2.0f;
}

kwb::Status faultOnce()
{
    badWrite<<<1, 32>>>(reinterpret_cast<float*>(0x100));
    KWB_CUDA_CHECK(cudaGetLastError());
    KWB_CUDA_CHECK(cudaDeviceSynchronize());
    return kwb::Status::ok();
}

int child()
{
    if (!openDevice(0)) return 1;
    kwb::Status st = faultOnce();
    std::printf("child: %s\n", st.toString().c_str());
    const bool named = st.message().find("cudaDeviceSynchronize") != std::string::npos &&
                       st.message().find("cudaErrorIllegalAddress") != std::string::npos &&
                       st.message().find("sticky") != std::string::npos && st.where().line > 0;
    const bool lost = contextLost();
    // Every later call fails too: that is what makes the error sticky.
    float* p = nullptr;
    const bool allocFails = cudaMalloc(&p, 4) != cudaSuccess;
    std::printf("child: named=%d lost=%d allocFails=%d\n", named, lost, allocFails);
    return !st.isOk() && st.code() == kwb::ErrorCode::GpuError && named && lost && allocFails ? kChildSawSticky : 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--child") == 0) return child();
    kwb::gputest::requireDevice(kTestName);

    char self[4096] = {};
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    GT_CHECK(len > 0);
    char* args[] = {self, const_cast<char*>("--child"), nullptr};
    pid_t pid = 0;
    GT_CHECK_EQ(posix_spawn(&pid, self, nullptr, nullptr, args, environ), 0);
    int status = 0;
    waitpid(pid, &status, 0);
    GT_CHECK(WIFEXITED(status));
    GT_CHECK_EQ(WEXITSTATUS(status), kChildSawSticky);

    // The parent's context is unaffected.
    float* p = nullptr;
    GT_CHECK_EQ(cudaMalloc(&p, 32 * sizeof(float)), cudaSuccess);
    goodWrite<<<1, 32>>>(p);
    GT_CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
    float h[32] = {};
    cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
    GT_CHECK(h[31] == 2.0f);
    GT_CHECK(!contextLost());
    cudaFree(p);
    return kwb::gputest::finish(kTestName);
}
