#pragma once
// What the executor's steps share: the GPU handles that outlive a request
// (GpuResources, owned by GpuExecutor) and the state of one request
// (RunContext: resolved sizes and tolerance, device tensors, the compiled
// candidate, the result being filled). Each step in pipeline/run_steps.h
// reads and extends a RunContext, so a test can run them one at a time.
//
// Thread: the executor thread; one RunContext per request.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "gpu/compile/module_cache.h"
#include "gpu/compile/shared_object_cache.h"
#include "gpu/device/elem_type.h"
#include "gpu/checks/device_metrics.h"
#include "gpu/references/cublas_reference.h"
#include "gpu/timing/kernel_timer.h"
#include "problems/candidate_spec.h"
#include "rerun/protocol.h"

namespace kwb::gpu {

// Owning device allocation.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(o.m_bytes) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept
    {
        std::swap(m_ptr, o.m_ptr);
        std::swap(m_bytes, o.m_bytes);
        return *this;
    }
    ~DeviceBuffer();
    Status allocate(std::int64_t bytes);
    void* get() const { return m_ptr; }
    float* asFloat() const { return static_cast<float*>(m_ptr); }
    std::int64_t bytes() const { return m_bytes; }

private:
    void* m_ptr = nullptr;
    std::int64_t m_bytes = 0;
};

struct Tensor {
    ResolvedTensor spec;
    const TensorSpec* def = nullptr;
    int index = 0;          // position among all tensors (inputs first), for seeds
    DeviceBuffer data;      // the candidate's buffer, padded for the coverage scan
    DeviceBuffer asFloat;   // float32 copy for references and comparisons (when dtype != f32)
    DeviceBuffer reference; // outputs: the reference's float32 result
    ElemType type = ElemType::F32;

    std::int64_t count() const { return spec.elementCount(); }
    const float* floatData() const
    {
        return type == ElemType::F32 ? static_cast<const float*>(data.get()) : asFloat.asFloat();
    }
};

// The GPU handles of one executor: device, stream, compile caches, cuBLAS, timer.
class GpuResources {
public:
    GpuResources() = default;
    GpuResources(const GpuResources&) = delete;
    GpuResources& operator=(const GpuResources&) = delete;
    ~GpuResources();

    // Opens device 0. Ok with deviceOk() false (and whyNot()) when there is no usable device.
    Status open();
    bool deviceOk() const { return m_deviceOk; }
    const std::string& whyNot() const { return m_whyNot; }

    DeviceInfo info;
    cudaStream_t stream = nullptr;
    std::unique_ptr<ModuleCache> modules;
    std::unique_ptr<SharedObjectCache> libraries;
    CublasReference blas;
    KernelTimer timer;
    unsigned long long* hashScratch = nullptr;

private:
    bool m_opened = false;
    bool m_deviceOk = false;
    std::string m_whyNot;
};

struct RunContext {
    RunContext(GpuResources& g, const RerunRequest& req, const TaskContext& t, RerunResult& r)
        : gpu(g), request(req), task(t), result(r)
    {
    }

    GpuResources& gpu;
    const RerunRequest& request;
    const TaskContext& task;
    RerunResult& result;

    // prepare
    SizeMap sizes;
    ToleranceValues tolerance;
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
    // compile
    std::shared_ptr<const LoadedModule> module;
    std::shared_ptr<const LoadedLibrary> library;
    std::vector<ResolvedLaunch> launches;
    std::vector<std::int64_t> sizeArgs;
    // allocate (shared objects: buffers in kwb_launch's order)
    std::vector<void*> soBuffers;
    // The result is final: a candidate failure was recorded; later steps must not run.
    bool stopped = false;
    // Per-run nonce (std::random_device at request time) that seeds the timed
    // trials' fresh inputs: the candidate cannot predict them from the request.
    std::uint64_t nonce = 0;
    // Scratch of references that need more than their output (diag_matmul's dense diag(A)).
    DeviceBuffer referenceScratch;
    // kwb-runner --correctness-only: the steps up to correctness, no timing.
    bool correctnessOnly = false;
    // The comparer of every check step (device scratch reused across steps).
    DeviceMetrics metrics;

    Tensor* tensorNamed(const std::string& name);
};

} // namespace kwb::gpu
