#include "gpu/device_info.h"

#include <cctype>
#include <cstdio>
#include <fstream>

#include "base/json_writer.h"
#include "gpu/gpu_check.h"

namespace kwb::gpu {

namespace {

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

std::string DeviceInfo::toJson() const
{
    std::string out;
    JsonWriter w(out);
    w.beginObject()
        .field("ordinal", ordinal)
        .field("name", name)
        .field("uuid", uuid)
        .field("arch", archName())
        .field("sm_count", smCount)
        .field("sm_clock_khz", smClockKHz)
        .field("mem_clock_khz", memClockKHz)
        .field("mem_bus_width_bits", memBusWidthBits)
        .field("l2_bytes", l2Bytes)
        .field("total_mem_bytes", totalMemBytes)
        .field("driver_api_version", driverVersion)
        .field("runtime_version", runtimeVersion)
        .nonEmptyField("driver_version", driverVersionText)
        .field("peak_bandwidth_bytes_per_s", peakBandwidthBytesPerS)
        .field("peak_fp32_flop_per_s", peakFp32FlopPerS)
        .field("peak_tensor_fp16_flop_per_s", peakTensorFp16FlopPerS)
        .field("peak_tensor_tf32_flop_per_s", peakTensorTf32FlopPerS)
        .endObject();
    return out;
}

int deviceCount(std::string* whyNone)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (whyNone) {
            *whyNone = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
            if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice)
                *whyNone = "no NVIDIA GPU or driver on this machine (" + *whyNone + ")";
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
    d.ccMajor = p.major;
    d.ccMinor = p.minor;
    d.smCount = p.multiProcessorCount;
    // clockRate / memoryClockRate left cudaDeviceProp in CUDA 13: ask the attributes.
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&d.smClockKHz, cudaDevAttrClockRate, ordinal));
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&d.memClockKHz, cudaDevAttrMemoryClockRate, ordinal));
    KWB_CUDA_CHECK(cudaDeviceGetAttribute(&d.memBusWidthBits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
    d.l2Bytes = p.l2CacheSize;
    d.totalMemBytes = static_cast<std::int64_t>(p.totalGlobalMem);
    KWB_CUDA_CHECK(cudaDriverGetVersion(&d.driverVersion));
    KWB_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtimeVersion));
    d.driverVersionText = kernelDriverVersion();
    d.peakBandwidthBytesPerS = 2.0 * d.memClockKHz * 1e3 * d.memBusWidthBits / 8.0;
    double clockHz = d.smClockKHz * 1e3;
    d.peakFp32FlopPerS = 2.0 * fp32LanesPerSm(d.ccMajor, d.ccMinor) * d.smCount * clockHz;
    d.peakTensorFp16FlopPerS = static_cast<double>(tensorFp16FlopPerSmPerClock(d.ccMajor)) * d.smCount * clockHz;
    d.peakTensorTf32FlopPerS = d.peakTensorFp16FlopPerS / 2.0;
    return d;
}

} // namespace kwb::gpu
