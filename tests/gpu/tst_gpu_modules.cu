// NVRTC module cache: compile (miss), memory hit, disk hit in a fresh cache
// object, the kernel runs; a compile error names the file and carries the log.
// The nvcc shared-object form: builds, exports kwb_launch, runs, is cached.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gpu/device/driver_api.h"
#include "gpu/compile/module_cache.h"
#include "gpu/compile/shared_object_cache.h"
#include "gpu_test.h"

using namespace kwb::gpu;

namespace {

constexpr const char* kTestName = "tst_gpu_modules";

const char* kSource = R"(
extern "C" __global__ void axpb(float* out, const float* in, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}
template <typename T> __global__ void fillT(T* out, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}
)";

const char* kSharedSource = R"(
#include <cuda_runtime.h>
#include <cstdint>
__global__ void twice(float* out, const float* in, int64_t n)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
__global__ void plusOne(float* out, int64_t n)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] += 1.0f;
}
extern "C" int kwb_launch(void** buffers, const int64_t* sizes, cudaStream_t stream)
{
    int64_t n = sizes[0];
    unsigned grid = (unsigned)((n + 255) / 256);
    twice<<<grid, 256, 0, stream>>>((float*)buffers[1], (const float*)buffers[0], n);
    plusOne<<<grid, 256, 0, stream>>>((float*)buffers[1], n);
    return (int)cudaGetLastError();
}
)";

std::string freshDir(const char* tag)
{
    auto dir = std::filesystem::temp_directory_path() /
               (std::string("kwb-test-") + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

} // namespace

int main()
{
    kwb::gputest::requireDevice(kTestName);
    const std::string dir = freshDir("nvrtc");
    CompileRequest req;
    req.source = kSource;
    req.name = "axpb.cu";
    req.entryPoints = {"axpb", "fillT<float>"};

    CacheOutcome outcome{};
    {
        ModuleCache cache(dir);
        auto t0 = std::chrono::steady_clock::now();
        auto m = cache.get(req, &outcome);
        GT_OK(m);
        GT_CHECK(outcome == CacheOutcome::Compiled);
        if (m) std::printf("compile %.1f ms (NVRTC %.1f ms, load %.2f ms)\n",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                (*m)->compileMs, (*m)->loadMs);
        auto again = cache.get(req, &outcome);
        GT_OK(again);
        GT_CHECK(outcome == CacheOutcome::MemoryHit);
        if (m && again) GT_CHECK(m->get() == again->get());

        // Run both entry points through the driver API.
        const int n = 1000;
        float* in = nullptr;
        float* out = nullptr;
        cudaMalloc(&in, n * 4);
        cudaMalloc(&out, n * 4);
        if (m) {
            CUfunction fill = (*m)->functions.at("fillT<float>");
            float v = 3.0f;
            int nn = n;
            void* fillArgs[] = {&in, &v, &nn};
            GT_CHECK_EQ(driverApi()->launchKernel(fill, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, fillArgs, nullptr), CUDA_SUCCESS);
            CUfunction f = (*m)->functions.at("axpb");
            float a = 2.0f;
            float b = 0.5f;
            void* args[] = {&out, &in, &a, &b, &nn};
            GT_CHECK_EQ(driverApi()->launchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
            std::vector<float> h(n);
            cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost);
            GT_CHECK(h[0] == 6.5f && h[n - 1] == 6.5f);
        }
        cudaFree(in);
        cudaFree(out);
    }
    {
        ModuleCache cache(dir); // a new process would look the same: disk hit, no compile
        auto m = cache.get(req, &outcome);
        GT_OK(m);
        GT_CHECK(outcome == CacheOutcome::DiskHit);
        if (m) GT_CHECK((*m)->compileMs == 0.0);
        CompileRequest changed = req;
        changed.options = {"-DUNUSED=1"};
        GT_CHECK(ModuleCache::keyOf(changed, "sm_90") != ModuleCache::keyOf(req, "sm_90"));
    }
    {
        ModuleCache cache("");
        CompileRequest bad;
        bad.source = "extern \"C\" __global__ void k(float* p) { p[0] = undefined_thing; }";
        bad.name = "broken_candidate.cu";
        bad.entryPoints = {"k"};
        auto m = cache.get(bad);
        GT_CHECK(!m.isOk());
        const std::string msg = m.status().toString();
        std::printf("compile error: %s\n", msg.substr(0, 200).c_str());
        GT_CHECK(msg.find("broken_candidate.cu") != std::string::npos);
        GT_CHECK(msg.find("undefined_thing") != std::string::npos);
    }

    // nvcc shared-object form.
    {
        const std::string soDir = freshDir("nvcc");
        SharedObjectCache cache(soDir);
        SharedObjectRequest sreq;
        sreq.source = kSharedSource;
        sreq.name = "two_kernels.cu";
        bool cached = true;
        auto lib = cache.get(sreq, &cached);
        GT_OK(lib);
        GT_CHECK(!cached);
        if (lib) {
            std::printf("nvcc shared object: %.0f ms\n", (*lib)->compileMs);
            const std::int64_t n = 4097;
            float* in = nullptr;
            float* out = nullptr;
            cudaMalloc(&in, n * 4);
            cudaMalloc(&out, n * 4);
            std::vector<float> h(n, 1.5f);
            cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
            void* bufs[] = {in, out};
            GT_CHECK_EQ((*lib)->launch(bufs, &n, nullptr), 0);
            cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost);
            GT_CHECK(h[0] == 4.0f && h[n - 1] == 4.0f);
            cudaFree(in);
            cudaFree(out);
        }
        SharedObjectCache second(soDir);
        auto again = second.get(sreq, &cached);
        GT_OK(again);
        GT_CHECK(cached);
        std::filesystem::remove_all(soDir);
    }
    std::filesystem::remove_all(dir);
    return kwb::gputest::finish(kTestName);
}
