#include "gpu/bridge/zero_probe.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>

#include "gpu/bridge/bridge_api.h"
#include "records/zero_acceptance_table.h"

namespace kwb::gpu {

namespace {

Status cudaStatus(cudaError_t e, const char* what)
{
    if (e == cudaSuccess) return Status::ok();
    return Status(ErrorCode::GpuError, std::string(what) + ": " + cudaGetErrorString(e));
}

// Copies [begin, begin + n) to host and hands it to `use`, chunk by chunk.
template <typename F>
Status forEachChunk(const float* data, std::int64_t count, std::size_t chunk, cudaStream_t stream,
    std::vector<float>& host, F&& use)
{
    for (std::int64_t begin = 0; begin < count; begin += static_cast<std::int64_t>(chunk)) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(chunk), count - begin));
        KWB_RETURN_IF_ERROR(cudaStatus(
            cudaMemcpyAsync(host.data(), data + begin, n * sizeof(float), cudaMemcpyDeviceToHost, stream),
            "copying the reference output to the host"));
        KWB_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream), "waiting for the copy"));
        use(std::span<const float>(host.data(), n));
    }
    return Status::ok();
}

} // namespace

Result<ZeroOutputStats> probeDeviceOutput(const float* data, std::int64_t count, std::vector<std::int64_t> shape,
    std::string dtype, void* streamHandle, std::size_t chunkElements)
{
    if (count < 0 || (count > 0 && !data) || chunkElements == 0)
        return Status(ErrorCode::InvalidArgument, "zero probe: bad arguments (count " + std::to_string(count) + ")");
    const auto stream = static_cast<cudaStream_t>(streamHandle);
    ZeroAcceptanceAccumulator acc(std::move(shape), std::move(dtype), count);
    std::vector<float> host(static_cast<std::size_t>(std::min<std::int64_t>(count, static_cast<std::int64_t>(chunkElements))));
    KWB_RETURN_IF_ERROR(forEachChunk(data, count, chunkElements, stream, host,
        [&acc](std::span<const float> c) { acc.addValues(c); }));
    acc.finishValues();
    if (acc.needsMeanPass())
        KWB_RETURN_IF_ERROR(forEachChunk(data, count, chunkElements, stream, host,
            [&acc](std::span<const float> c) { acc.addMeanPass(c); }));
    return acc.result();
}

} // namespace kwb::gpu

extern "C" int64_t kwb_zero_probe_output(const float* data, int64_t count, const int64_t* shape, int ndim,
    const char* dtype, void* stream, char* buffer, int64_t capacity)
{
    auto write = [&](const std::string& text, int64_t rc) -> int64_t {
        if (!buffer || capacity <= 0) return -1;
        const std::size_t n = std::min<std::size_t>(text.size(), static_cast<std::size_t>(capacity - 1));
        std::memcpy(buffer, text.data(), n);
        buffer[n] = '\0';
        if (rc >= 0 && n < text.size()) return -2; // too small: the caller retries with a larger buffer
        return rc >= 0 ? static_cast<int64_t>(n) : rc;
    };
    try {
        if (ndim < 0 || (ndim > 0 && !shape)) return write("zero probe: bad shape", -1);
        std::vector<std::int64_t> dims(shape, shape + ndim);
        auto r = kwb::gpu::probeDeviceOutput(data, count, std::move(dims), dtype ? dtype : "float32", stream);
        if (!r.isOk()) return write(r.status().toString(), -1);
        return write(kwb::zeroOutputStatsJson(*r), 0);
    } catch (const std::exception& e) {
        return write(std::string("zero probe: internal error: ") + e.what(), -1);
    }
}
