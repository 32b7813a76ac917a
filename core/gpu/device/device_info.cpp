#include "gpu/device/device_info.h"

#include <cctype>
#include <cstdio>
#include <fstream>

#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

// FP32 lanes per SM by architecture (CUDA programming guide, arithmetic throughput table).
int fp32LanesPerSm(int major, int minor)
{
    if (major >= 8 && !(major == 8 && minor == 0)) return 128;
    if (major == 8 && minor == 0) return 64;
    if (major == 7) return 64;
    return 128;
}

// Dense fp16 tensor FLOP per SM per clock (H100 SXM: 989 TFLOP/s = 132 SMs x 1830 MHz x 4096).
// Taken at the max clock this slightly overestimates the peak, which only lowers the floor.
int tensorFp16FlopPerSmPerClock(int major)
{
    if (major >= 9) return 4096;
    if (major == 8) return 2048;
    if (major == 7) return 1024;
    return 0;
}

} // namespace

// The kernel driver's version string, read without NVML: the first token of
// /proc/driver/nvidia/version shaped like "580.159.04".
std::string kernelDriverVersion()
{
    std::ifstream in("/proc/driver/nvidia/version");
    std::string token;
    while (in >> token) {
        const bool digitsAndDots = token.find_first_not_of("0123456789.") == std::string::npos;
        if (digitsAndDots && token.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(token[0])))
            return token;
    }
    return {};
}


std::string archName(const DeviceInfo& d)
{
    return "sm_" + std::to_string(d.computeMajor) + std::to_string(d.computeMinor);
}

int deviceCount(std::string* whyNone)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (whyNone) {
            *whyNone = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
            // The runtime answers "driver version is insufficient" also where no driver is
            // installed at all (a machine without a GPU): say which of the two it is.
            int driver = 0;
            int runtime = 0;
            if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
            if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
            auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
            if (err == cudaErrorNoDevice)
                *whyNone = "no NVIDIA GPU on this machine (the driver found no CUDA device)";
            else if (err == cudaErrorInsufficientDriver && driver == 0)
                *whyNone = "no NVIDIA GPU driver on this machine (no GPU, or its driver is not installed)";
            else if (err == cudaErrorInsufficientDriver)
                *whyNone = "the NVIDIA driver supports CUDA " + version(driver) + ", older than the CUDA " +
                           version(runtime) + " runtime of this build (" + *whyNone + ")";
        }
        cudaGetLastError(); // not sticky: clear it
        return 0;
    }
    if (n == 0 && whyNone) *whyNone = "no CUDA device";
    return n;
}

Result<DeviceInfo> openDevice(int ordinal)
{
    KWB_CUDA_CHECK(cudaSetDevice(ordinal));
    KWB_CUDA_CHECK(cudaFree(nullptr)); // creates the primary context now, not inside a timed region
    cudaDeviceProp p{};
    KWB_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
    DeviceInfo d;
    d.ordinal = ordinal;
    d.name = p.name;
    char uuid[64];
    const auto* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
        u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    d.uuid = uuid;
    d.computeMajor = p.major;
    d.computeMinor = p.minor;
    d.smCount = p.multiProcessorCount;
    // clockRate / memoryClockRate left cudaDeviceProp in CUDA 13: ask the attributes.
    int smClockKHz = 0, memClockKHz = 0, memBusWidthBits = 0;
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&smClockKHz, cudaDevAttrClockRate, ordinal));
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&memClockKHz, cudaDevAttrMemoryClockRate, ordinal));
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&memBusWidthBits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
    d.smClockMhz = smClockKHz / 1000.0;
    d.memoryClockMhz = memClockKHz / 1000.0;
    d.l2Bytes = p.l2CacheSize;
    d.memoryBytes = static_cast<std::int64_t>(p.totalGlobalMem);
    KWB_CUDA_CHECK(cudaDriverGetVersion(&d.driverVersion));
    KWB_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtimeVersion));
    // 2 (DDR) * memory clock * bus width / 8.
    d.peakBandwidthBytesPerS = 2.0 * memClockKHz * 1e3 * memBusWidthBits / 8.0;
    const double clockHz = smClockKHz * 1e3;
    d.peakFp32FlopsPerS = 2.0 * fp32LanesPerSm(d.computeMajor, d.computeMinor) * d.smCount * clockHz;
    d.peakFp16FlopsPerS = static_cast<double>(tensorFp16FlopPerSmPerClock(d.computeMajor)) * d.smCount * clockHz;
    return d;
}

} // namespace kwb::gpu
