#include "gpu/gpu_executor.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpu/coverage_scan.h"
#include "gpu/cublas_reference.h"
#include "gpu/cupti_tracer.h"
#include "gpu/device_info.h"
#include "gpu/device_metrics.h"
#include "gpu/driver_api.h"
#include "gpu/gpu_check.h"
#include "gpu/input_generator.h"
#include "gpu/kernel_timer.h"
#include "gpu/module_cache.h"
#include "gpu/reference_kernels.h"
#include "gpu/shared_object_cache.h"
#include "problems/coverage_grid.h"
#include "problems/output_metrics.h"
#include "problems/roofline.h"
#include "problems/size_expression.h"
#include "problems/tolerance_policy.h"

namespace kwb::gpu {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

constexpr const char* kRunnerVersion = "0.1.0";
constexpr int kFirstUnwrittenListed = 16;

ElemType elemTypeOf(DType d)
{
    switch (d) {
    case DType::F16: return ElemType::F16;
    case DType::BF16: return ElemType::BF16;
    case DType::I32: return ElemType::I32;
    case DType::I64: return ElemType::I64;
    default: return ElemType::F32;
    }
}

GenParams genParamsOf(const TensorSpec& t, std::uint64_t seed)
{
    GenParams g;
    switch (t.distribution) {
    case Distribution::Uniform: g.distribution = GenDistribution::Uniform; break;
    case Distribution::Normal: g.distribution = GenDistribution::Normal; break;
    case Distribution::RandInt: g.distribution = GenDistribution::RandInt; break;
    case Distribution::Constant: g.distribution = GenDistribution::Constant; break;
    case Distribution::Pareto: g.distribution = GenDistribution::Pareto; break;
    }
    g.low = t.low;
    g.high = t.high;
    g.mean = t.mean;
    g.stddev = t.stddev;
    g.value = t.value;
    g.scale = t.scale;
    g.alpha = t.alpha;
    g.seed = seed;
    return g;
}

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
    ~DeviceBuffer()
    {
        if (m_ptr) cudaFree(m_ptr);
    }
    Status allocate(std::int64_t bytes)
    {
        KWB_CUDA_CHECK(cudaMalloc(&m_ptr, static_cast<std::size_t>(std::max<std::int64_t>(bytes, 16))));
        m_bytes = bytes;
        return Status::ok();
    }
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

// Raised by steps that involve the candidate, so the failure is classified as
// the candidate's (launch error) rather than the runner's (internal error).
struct StepError {
    Status status;
    RerunStatus hint = RerunStatus::InternalError;
};

CuptiSummary summarizeCupti(const std::vector<TracedKernel>& kernels, const std::vector<TracedMemOp>& memOps,
    std::uint32_t timedStream, std::uint64_t dropped)
{
    CuptiSummary s;
    s.available = true;
    s.timedStreamId = timedStream;
    std::map<std::pair<std::string, std::uint32_t>, KernelActivity> byName;
    std::set<std::uint32_t> streams;
    for (const auto& k : kernels) {
        if (isInternalKernelName(k.name.c_str())) continue;
        const double ms = static_cast<double>(k.endNs - k.startNs) / 1e6;
        ++s.kernelCount;
        if (k.streamId == timedStream) {
            ++s.timedStreamKernels;
            s.kernelMs += ms;
        } else {
            ++s.otherStreamKernels;
            s.otherStreamMs += ms;
        }
        streams.insert(k.streamId);
        auto& a = byName[{k.name, k.streamId}];
        if (a.count == 0) {
            a.name = demangleKernelName(k.name);
            a.streamId = k.streamId;
            a.library = isLibraryKernelName(a.name) || isLibraryKernelName(k.name);
        }
        ++a.count;
        a.totalMs += ms;
    }
    for (const auto& m : memOps) {
        if (m.memset) ++s.memsetCount;
        else ++s.memcpyCount;
        streams.insert(m.streamId);
    }
    s.streams.assign(streams.begin(), streams.end());
    for (auto& [key, a] : byName) s.kernels.push_back(std::move(a));
    std::sort(s.kernels.begin(), s.kernels.end(),
        [](const KernelActivity& a, const KernelActivity& b) { return a.totalMs > b.totalMs; });
    if (dropped) s.note = "CUPTI dropped " + std::to_string(dropped) + " records";
    return s;
}

kwb::DeviceInfo toProtocol(const gpu::DeviceInfo& d)
{
    kwb::DeviceInfo p;
    p.name = d.name;
    p.ordinal = d.ordinal;
    p.computeMajor = d.ccMajor;
    p.computeMinor = d.ccMinor;
    p.smCount = d.smCount;
    p.memoryBytes = d.totalMemBytes;
    p.l2Bytes = d.l2Bytes;
    p.smClockMhz = d.smClockKHz / 1000.0;
    p.memoryClockMhz = d.memClockKHz / 1000.0;
    p.peakBandwidthBytesPerS = d.peakBandwidthBytesPerS;
    p.peakFp32FlopsPerS = d.peakFp32FlopPerS;
    p.peakFp16FlopsPerS = d.peakTensorFp16FlopPerS;
    p.driverVersion = d.driverVersion;
    p.runtimeVersion = d.runtimeVersion;
    p.uuid = d.uuid;
    return p;
}

} // namespace

struct GpuExecutor::State {
    bool probed = false;
    bool deviceOk = false;
    std::string whyNot;
    gpu::DeviceInfo info;
    cudaStream_t stream = nullptr;
    std::unique_ptr<ModuleCache> modules;
    std::unique_ptr<SharedObjectCache> libraries;
    CublasReference blas;
    KernelTimer timer;
    unsigned long long* hashScratch = nullptr;

    Status probe()
    {
        if (probed) return Status::ok();
        probed = true;
        if (deviceCount(&whyNot) == 0) return Status::ok();
        auto d = openDevice(0);
        if (!d) {
            whyNot = d.status().toString();
            return Status::ok();
        }
        info = *d;
        KWB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        KWB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&hashScratch), 8));
        KWB_RETURN_IF_ERROR(timer.init(info.l2Bytes));
        const char* cacheMode = std::getenv("KWB_NVRTC_CACHE");
        const bool disk = !(cacheMode && std::strcmp(cacheMode, "off") == 0);
        modules = std::make_unique<ModuleCache>(disk ? ModuleCache::defaultDiskDir() : std::string());
        libraries = std::make_unique<SharedObjectCache>(SharedObjectCache::defaultDiskDir());
        deviceOk = true;
        return Status::ok();
    }
};

GpuExecutor::GpuExecutor() : m_state(std::make_unique<State>()) {}

GpuExecutor::~GpuExecutor()
{
    if (m_state && m_state->hashScratch) cudaFree(m_state->hashScratch);
    if (m_state && m_state->stream) cudaStreamDestroy(m_state->stream);
}

std::vector<std::string> GpuExecutor::referenceNames()
{
    std::vector<std::string> names{"gemm"};
    for (const auto& n : ownReferenceNames()) names.push_back(n);
    return names;
}

Result<Capabilities> GpuExecutor::capabilities()
{
    KWB_RETURN_IF_ERROR(m_state->probe());
    Capabilities c;
    c.runnerVersion = kRunnerVersion;
    c.devicePresent = m_state->deviceOk;
    c.reason = m_state->deviceOk ? std::string() : m_state->whyNot;
    if (m_state->deviceOk) c.device = toProtocol(m_state->info);
    c.references = referenceNames();
    return c;
}

namespace {

// Everything one request needs; lives for the request only.
class Run {
public:
    Run(GpuExecutor::State& st, const RerunRequest& req, const TaskContext& ctx, RerunResult& result)
        : m_st(st), m_req(req), m_ctx(ctx), m_r(result)
    {
    }

    // Ok when the request was served (whatever the candidate did); an error
    // Status when the request itself is invalid.
    Status serve();

private:
    Status prepare();
    Status compile();
    Status allocate();
    Status generateInputs(std::uint64_t trial);
    Status launchCandidate(cudaStream_t stream);
    Status runCandidateChecked();
    Status runReference(cudaStream_t stream);
    Status coverage();
    Status correctness();
    Status timing();
    Result<std::vector<float>> hostFloat(Tensor& t, bool reference);
    Result<std::vector<unsigned char>> hostBytes(const Tensor& t);
    Status fail(const Status& s, RerunStatus hint);
    Status checkpoint(RerunStatus hint);
    Tensor* tensorNamed(const std::string& name);

    GpuExecutor::State& m_st;
    const RerunRequest& m_req;
    const TaskContext& m_ctx;
    RerunResult& m_r;
    SizeMap m_sizes;
    ToleranceValues m_tol;
    std::vector<Tensor> m_inputs;
    std::vector<Tensor> m_outputs;
    std::shared_ptr<const LoadedModule> m_module;
    std::shared_ptr<const LoadedLibrary> m_library;
    std::vector<ResolvedLaunch> m_launches;
    std::vector<std::int64_t> m_sizeArgs;
    std::vector<void*> m_soBuffers;
    bool m_stopped = false; // the result is final (candidate failure recorded)
};

Tensor* Run::tensorNamed(const std::string& name)
{
    for (auto& t : m_inputs)
        if (t.spec.name == name) return &t;
    for (auto& t : m_outputs)
        if (t.spec.name == name) return &t;
    return nullptr;
}

// Records a failure as the result's status. OOM stays OOM and ends the runner
// too (memory the candidate still holds cannot be taken back in-process); a
// lost context is a fault and ends the runner; the rest is `hint`.
Status Run::fail(const Status& s, RerunStatus hint)
{
    m_stopped = true;
    if (s.code() == ErrorCode::OutOfMemory) {
        m_r.status = RerunStatus::OutOfMemory;
        m_r.fatal = true;
        cudaGetLastError();
    } else if (contextLost()) {
        m_r.status = RerunStatus::Fault;
        m_r.fatal = true;
    } else if (s.code() == ErrorCode::Cancelled) {
        return s;
    } else {
        m_r.status = hint;
    }
    m_r.message = s.toString();
    return Status::ok();
}

// Waits for all device work (side streams included) and classifies an error.
Status Run::checkpoint(RerunStatus hint)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err == cudaSuccess) return Status::ok();
    return fail(cudaRuntimeStatus(err, "candidate run (cudaDeviceSynchronize)", __FILE__, __LINE__), hint);
}

Status Run::prepare()
{
    const ProblemSpec& p = m_req.problem;
    KWB_ASSIGN_OR_RETURN(m_sizes, resolveSizes(p, m_req.options.sizes));
    m_r.sizes = m_sizes;
    m_tol = resolveTolerance(p.tolerance, p.precision);
    m_r.tolerance = m_tol;
    KWB_RETURN_IF_ERROR(validateCandidate(m_req.candidate, p));
    KWB_ASSIGN_OR_RETURN(auto ins, resolveTensors(p.inputs, m_sizes));
    KWB_ASSIGN_OR_RETURN(auto outs, resolveTensors(p.outputs, m_sizes));
    int index = 0;
    for (std::size_t i = 0; i < ins.size(); ++i) {
        Tensor t;
        t.spec = ins[i];
        t.def = &p.inputs[i];
        t.index = index++;
        t.type = elemTypeOf(t.spec.dtype);
        m_inputs.push_back(std::move(t));
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
        Tensor t;
        t.spec = outs[i];
        t.def = &p.outputs[i];
        t.index = index++;
        t.type = elemTypeOf(t.spec.dtype);
        if (!coverageSupportsWidth(elemBytes(t.type)))
            return Status(ErrorCode::Unsupported, "output " + t.spec.name + ": unsupported dtype");
        m_outputs.push_back(std::move(t));
    }
    KWB_ASSIGN_OR_RETURN(m_r.flops, resolveFlops(p, m_sizes));
    KWB_ASSIGN_OR_RETURN(m_r.bytes, resolveBytes(p, m_sizes));
    DevicePeaks peaks;
    peaks.bytesPerSecond = m_st.info.peakBandwidthBytesPerS;
    if (p.precision == DType::F32) peaks.flopsPerSecond = m_st.info.peakFp32FlopPerS;
    else if (p.precision == DType::F16 || p.precision == DType::BF16) peaks.flopsPerSecond = m_st.info.peakTensorFp16FlopPerS;
    m_r.rooflineFloorMs = rooflineFloorMs(m_r.flops, m_r.bytes, peaks);
    return Status::ok();
}

Status Run::compile()
{
    m_ctx.report("compile", 0, 1);
    const CandidateSpec& c = m_req.candidate;
    const std::string name = c.sourceFile.empty() ? c.id + ".cu" : c.sourceFile;
    if (c.form == CandidateForm::Nvrtc) {
        KWB_ASSIGN_OR_RETURN(m_launches, resolveLaunches(c, m_sizes));
        CompileRequest req;
        req.source = c.source;
        req.name = name;
        req.options = c.compileOptions;
        std::set<std::string> seen;
        for (const auto& l : c.launches)
            if (seen.insert(l.entry).second) req.entryPoints.push_back(l.entry);
        CacheOutcome outcome{};
        auto m = m_st.modules->get(req, &outcome);
        if (!m) return fail(m.status(), m.status().code() == ErrorCode::InvalidArgument ? RerunStatus::CompileError
                                                                                         : RerunStatus::InternalError);
        m_module = *m;
        m_r.compileCacheHit = outcome != CacheOutcome::Compiled;
        m_r.compileMs = outcome == CacheOutcome::Compiled ? m_module->compileMs : 0.0;
    } else {
        KWB_ASSIGN_OR_RETURN(m_sizeArgs, resolveSizeArgs(c, m_sizes));
        SharedObjectRequest req;
        req.source = c.source;
        req.name = name;
        req.options = c.compileOptions;
        bool cached = false;
        auto lib = m_st.libraries->get(req, &cached);
        if (!lib) return fail(lib.status(), lib.status().code() == ErrorCode::InvalidArgument ? RerunStatus::CompileError
                                                                                              : RerunStatus::InternalError);
        m_library = *lib;
        m_r.compileCacheHit = cached;
        m_r.compileMs = cached ? 0.0 : m_library->compileMs;
    }
    m_ctx.report("compile", 1, 1);
    return Status::ok();
}

Status Run::allocate()
{
    for (auto& t : m_inputs) {
        KWB_RETURN_IF_ERROR(t.data.allocate(paddedBytes(t.count(), elemBytes(t.type))));
        if (t.type != ElemType::F32) KWB_RETURN_IF_ERROR(t.asFloat.allocate(t.count() * 4));
    }
    for (auto& t : m_outputs) {
        KWB_RETURN_IF_ERROR(t.data.allocate(paddedBytes(t.count(), elemBytes(t.type))));
        if (t.type != ElemType::F32) KWB_RETURN_IF_ERROR(t.asFloat.allocate(t.count() * 4));
        KWB_RETURN_IF_ERROR(t.reference.allocate(t.count() * 4));
    }
    if (m_library) {
        for (const auto& name : bufferOrder(m_req.candidate, m_req.problem)) {
            Tensor* t = tensorNamed(name);
            if (!t) return Status(ErrorCode::InvalidArgument, "candidate buffer '" + name + "' is not a problem tensor");
            m_soBuffers.push_back(t->data.get());
        }
    }
    return Status::ok();
}

Status Run::generateInputs(std::uint64_t trial)
{
    const auto& seed = m_req.problem.seed;
    const std::uint64_t base = m_req.options.seed;
    const std::uint64_t t = seed.kind == SeedPolicy::Kind::Fixed ? 0 : trial;
    for (auto& in : m_inputs) {
        KWB_RETURN_IF_ERROR(generateTensor(in.data.get(), in.count(), in.type,
            genParamsOf(*in.def, deriveSeed(base, t, static_cast<std::uint64_t>(in.index))), m_st.stream));
        if (in.type != ElemType::F32)
            KWB_RETURN_IF_ERROR(convertToFloat(in.data.get(), in.asFloat.asFloat(), in.count(), in.type, m_st.stream));
    }
    return Status::ok();
}

Status Run::launchCandidate(cudaStream_t stream)
{
    if (m_library) {
        const int rc = m_library->launch(m_soBuffers.data(), m_sizeArgs.data(), stream);
        if (rc == 0) return Status::ok();
        cudaGetLastError(); // the candidate's failed call left it set; later checks must not see it
        const auto err = static_cast<cudaError_t>(rc);
        return Status(err == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::GpuError,
            std::string("kwb_launch returned ") + std::to_string(rc) + " (" + cudaGetErrorName(err) + ")");
    }
    const DriverApi* api = driverApi();
    if (!api) return Status(ErrorCode::GpuError, "the CUDA driver API is not available");
    const CandidateSpec& c = m_req.candidate;
    for (std::size_t i = 0; i < c.launches.size(); ++i) {
        const KernelLaunch& l = c.launches[i];
        const ResolvedLaunch& rl = m_launches[i];
        std::vector<std::uint64_t> storage(l.args.size(), 0);
        std::vector<void*> args(l.args.size(), nullptr);
        for (std::size_t a = 0; a < l.args.size(); ++a) {
            const LaunchArg& arg = l.args[a];
            void* slot = &storage[a];
            switch (arg.kind) {
            case LaunchArg::Kind::Tensor: {
                Tensor* t = tensorNamed(arg.tensor);
                if (!t) return Status(ErrorCode::InvalidArgument, "launch argument names unknown tensor " + arg.tensor);
                void* p = t->data.get();
                std::memcpy(slot, &p, sizeof p);
                break;
            }
            case LaunchArg::Kind::I32:
            case LaunchArg::Kind::I64: {
                KWB_ASSIGN_OR_RETURN(std::int64_t v, evaluateSizeExpression(arg.expression, m_sizes));
                if (arg.kind == LaunchArg::Kind::I32) {
                    const auto v32 = static_cast<std::int32_t>(v);
                    std::memcpy(slot, &v32, sizeof v32);
                } else {
                    std::memcpy(slot, &v, sizeof v);
                }
                break;
            }
            case LaunchArg::Kind::F32: {
                const auto f = static_cast<float>(arg.number);
                std::memcpy(slot, &f, sizeof f);
                break;
            }
            }
            args[a] = slot;
        }
        for (int d = 0; d < 3; ++d)
            if (rl.grid[d] < 1 || rl.grid[d] > 0x7fffffff || rl.block[d] < 1 || rl.block[d] > 1024)
                return Status(ErrorCode::InvalidArgument, "launch " + l.entry + ": grid/block extent out of range");
        CUfunction f = m_module->functions.at(l.entry);
        if (rl.sharedMemBytes > 48 * 1024)
            KWB_CU_CHECK(api->funcSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(rl.sharedMemBytes)));
        KWB_CU_CHECK(api->launchKernel(f, static_cast<unsigned>(rl.grid[0]), static_cast<unsigned>(rl.grid[1]),
            static_cast<unsigned>(rl.grid[2]), static_cast<unsigned>(rl.block[0]), static_cast<unsigned>(rl.block[1]),
            static_cast<unsigned>(rl.block[2]), static_cast<unsigned>(rl.sharedMemBytes),
            reinterpret_cast<CUstream>(stream), args.data(), nullptr));
    }
    return Status::ok();
}

// One checked candidate run: launch, wait for all device work, classify failures.
Status Run::runCandidateChecked()
{
    Status s = launchCandidate(m_st.stream);
    if (!s.isOk()) {
        // A launch error may also be the first sign of an earlier fault.
        return fail(s, RerunStatus::LaunchError);
    }
    return checkpoint(RerunStatus::Fault);
}

Status Run::runReference(cudaStream_t stream)
{
    const ReferenceSpec& ref = m_req.problem.reference;
    if (ref.builtin == "gemm") {
        if (m_inputs.size() < 2 || m_outputs.size() != 1)
            return Status(ErrorCode::InvalidArgument, "gemm reference takes inputs A, B and one output C");
        auto param = [&](const char* k) {
            auto it = ref.params.find(k);
            return it == ref.params.end() ? 0.0 : it->second;
        };
        GemmShape s;
        s.transA = param("trans_a") != 0.0;
        s.transB = param("trans_b") != 0.0;
        const auto& a = m_inputs[0].spec.shape;
        const auto& c = m_outputs[0].spec.shape;
        if (a.size() != 2 || c.empty() || c.size() > 2)
            return Status(ErrorCode::InvalidArgument, "gemm reference needs A [M, K] and C [M, N]");
        s.m = c[0];
        s.n = c.size() == 2 ? c[1] : 1;
        s.k = s.transA ? a[0] : a[1];
        if (ref.params.count("alpha")) s.alpha = static_cast<float>(param("alpha"));
        return m_st.blas.gemm(s, m_inputs[0].floatData(), m_inputs[1].floatData(), m_outputs[0].reference.asFloat(),
            stream);
    }
    std::vector<RefInput> ins;
    for (const auto& t : m_inputs) ins.push_back(RefInput{t.floatData(), t.spec.shape});
    std::vector<RefOutput> outs;
    for (auto& t : m_outputs) outs.push_back(RefOutput{t.reference.asFloat(), t.spec.shape});
    return runOwnReference(ref.builtin, ref.params, ins, outs, stream);
}

Result<std::vector<float>> Run::hostFloat(Tensor& t, bool reference)
{
    std::vector<float> h(static_cast<std::size_t>(t.count()));
    const float* src = nullptr;
    if (reference) {
        src = t.reference.asFloat();
    } else if (t.type == ElemType::F32) {
        src = static_cast<const float*>(t.data.get());
    } else {
        KWB_RETURN_IF_ERROR(convertToFloat(t.data.get(), t.asFloat.asFloat(), t.count(), t.type, m_st.stream));
        src = t.asFloat.asFloat();
    }
    KWB_CUDA_CHECK(cudaMemcpyAsync(h.data(), src, h.size() * 4, cudaMemcpyDeviceToHost, m_st.stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(m_st.stream));
    return h;
}

Result<std::vector<unsigned char>> Run::hostBytes(const Tensor& t)
{
    std::vector<unsigned char> h(static_cast<std::size_t>(t.count() * elemBytes(t.type)));
    KWB_CUDA_CHECK(cudaMemcpyAsync(h.data(), t.data.get(), h.size(), cudaMemcpyDeviceToHost, m_st.stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(m_st.stream));
    return h;
}

Status Run::coverage()
{
    m_ctx.report("coverage", 0, 2);
    KWB_RETURN_IF_ERROR(generateInputs(0));
    std::vector<std::unique_ptr<CoverageScanner>> scanners;
    std::vector<CoverageLayout> layouts;
    for (auto& t : m_outputs) {
        KWB_ASSIGN_OR_RETURN(CoverageLayout l, planCoverageLayout(t.spec.shape, m_req.options.coverageRows,
                                                   m_req.options.coverageCols));
        layouts.push_back(l);
        scanners.push_back(std::make_unique<CoverageScanner>());
        KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 0, m_st.stream));
    }
    KWB_RETURN_IF_ERROR(runCandidateChecked());
    if (m_stopped) return Status::ok();
    for (std::size_t i = 0; i < m_outputs.size(); ++i) {
        const CoverageLayout& l = layouts[i];
        ScanLayout s;
        s.rows = l.flat ? 1 : l.rows;
        s.cols = l.flat ? l.elementCount() : l.cols;
        s.tileRows = l.flat ? 1 : l.tileRows;
        s.tileCols = l.tileCols;
        Tensor& t = m_outputs[i];
        KWB_RETURN_IF_ERROR(scanners[i]->scanFirst(t.data.get(), s, elemBytes(t.type), m_st.stream));
        KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, m_st.stream));
    }
    m_ctx.report("coverage", 1, 2);
    KWB_RETURN_IF_ERROR(runCandidateChecked());
    if (m_stopped) return Status::ok();
    for (std::size_t i = 0; i < m_outputs.size(); ++i) {
        Tensor& t = m_outputs[i];
        KWB_RETURN_IF_ERROR(scanners[i]->scanSecond(t.data.get(), m_st.stream));
        KWB_ASSIGN_OR_RETURN(CoverageCounts counts, scanners[i]->collect(kFirstUnwrittenListed, m_st.stream));
        const CoverageLayout& l = layouts[i];
        // The scan numbers tiles row-major over its own grid, which is the layout's grid.
        std::vector<std::int64_t> perTile(static_cast<std::size_t>(l.tileCount()), 0);
        for (std::int64_t ty = 0; ty < counts.tilesY; ++ty)
            for (std::int64_t tx = 0; tx < counts.tilesX; ++tx) {
                const std::int64_t first = l.flat ? tx * l.tileCols : (ty * l.tileRows) * l.cols + tx * l.tileCols;
                const std::int64_t tile = tileOfElement(l, first);
                if (tile >= 0 && tile < l.tileCount())
                    perTile[static_cast<std::size_t>(tile)] +=
                        counts.tileWritten[static_cast<std::size_t>(ty * counts.tilesX + tx)];
            }
        OutputCoverage oc;
        oc.output = t.spec.name;
        oc.coverage = coverageFromCounts(l, perTile, counts.firstUnwritten);
        oc.sentinelA = static_cast<std::uint32_t>(sentinelBits(elemBytes(t.type), 0));
        oc.sentinelB = static_cast<std::uint32_t>(sentinelBits(elemBytes(t.type), 1));
        m_r.coverage.push_back(std::move(oc));
    }
    m_ctx.report("coverage", 2, 2);
    return Status::ok();
}

OutputMetrics toOutputMetrics(const DeviceOutputMetrics& d)
{
    OutputMetrics m;
    m.count = d.count;
    m.allclose = d.allclose;
    m.outOfTolerance = d.outOfTolerance;
    m.outOfToleranceShare = d.outOfToleranceShare;
    m.firstMismatch = d.firstMismatch;
    m.maxAbsError = d.maxAbsError;
    m.relL2Error = d.relL2Error;
    m.refRms = d.refRms;
    m.maxErrorOverRefRms = d.maxErrorOverRefRms;
    m.nanCount = d.nanCount;
    m.infCount = d.infCount;
    m.refNanCount = d.refNanCount;
    m.refInfCount = d.refInfCount;
    return m;
}

Status Run::correctness()
{
    const int trials = std::max(1, m_req.options.correctnessTrials);
    std::vector<OutputCheck> checks(m_outputs.size());
    std::vector<InputCheck> inputChecks(m_inputs.size());
    for (std::size_t i = 0; i < m_outputs.size(); ++i) checks[i].output = m_outputs[i].spec.name;
    for (std::size_t i = 0; i < m_inputs.size(); ++i) inputChecks[i].input = m_inputs[i].spec.name;
    // Outputs are compared on the device (one pass, no copies); the host
    // comparison stays only for when the device's small scratch cannot be had.
    // The determinism re-run is compared with a device copy of the first run,
    // or with host bytes when there is no memory for that copy.
    DeviceMetrics metrics;
    bool hostMetrics = false;
    std::vector<DeviceBuffer> firstRunDevice(m_outputs.size());
    std::vector<std::vector<unsigned char>> firstRun(m_outputs.size());

    for (int trial = 0; trial < trials; ++trial) {
        m_ctx.report("correctness", trial, trials);
        if (m_ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled");
        KWB_RETURN_IF_ERROR(generateInputs(static_cast<std::uint64_t>(trial) + 1));
        Status refStatus = runReference(m_st.stream);
        if (!refStatus.isOk()) {
            if (refStatus.code() == ErrorCode::Unsupported) {
                m_stopped = true;
                m_r.status = RerunStatus::Unsupported;
                m_r.message = refStatus.toString();
                return Status::ok();
            }
            return refStatus;
        }
        std::vector<std::uint64_t> before(m_inputs.size());
        for (std::size_t i = 0; i < m_inputs.size(); ++i) {
            const Tensor& t = m_inputs[i];
            KWB_ASSIGN_OR_RETURN(before[i], hashDeviceBytes(t.data.get(), t.count() * elemBytes(t.type),
                                                m_st.hashScratch, m_st.stream));
        }
        for (auto& t : m_outputs)
            KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, m_st.stream));
        KWB_RETURN_IF_ERROR(runCandidateChecked());
        if (m_stopped) return Status::ok();
        for (std::size_t i = 0; i < m_inputs.size(); ++i) {
            const Tensor& t = m_inputs[i];
            KWB_ASSIGN_OR_RETURN(std::uint64_t after, hashDeviceBytes(t.data.get(), t.count() * elemBytes(t.type),
                                                          m_st.hashScratch, m_st.stream));
            InputCheck& ic = inputChecks[i];
            if (ic.hashBefore.empty() || (!ic.mutated && before[i] != after)) {
                ic.hashBefore = hashHex(before[i]);
                ic.hashAfter = hashHex(after);
            }
            ic.mutated = ic.mutated || before[i] != after;
        }
        for (std::size_t i = 0; i < m_outputs.size(); ++i) {
            Tensor& t = m_outputs[i];
            OutputMetrics m;
            bool zerosPass = false;
            if (!hostMetrics) {
                if (t.type != ElemType::F32)
                    KWB_RETURN_IF_ERROR(convertToFloat(t.data.get(), t.asFloat.asFloat(), t.count(), t.type, m_st.stream));
                Result<DeviceOutputMetrics> d =
                    metrics.compare(t.floatData(), t.reference.asFloat(), t.count(), m_tol.atol, m_tol.rtol, m_st.stream);
                if (d) {
                    m = toOutputMetrics(*d);
                    zerosPass = d->zerosPass;
                } else if (d.status().code() == ErrorCode::OutOfMemory) {
                    cudaGetLastError(); // an allocation failure is not sticky; clear it
                    hostMetrics = true;
                } else {
                    return d.status();
                }
            }
            if (hostMetrics) {
                KWB_ASSIGN_OR_RETURN(std::vector<float> out, hostFloat(t, false));
                KWB_ASSIGN_OR_RETURN(std::vector<float> ref, hostFloat(t, true));
                m = compareOutputs(out, ref, m_tol);
                zerosPass = zerosPassAllclose(ref, m_tol);
            }
            OutputCheck& c = checks[i];
            ++c.trials;
            if (m.allclose) ++c.trialsPassed;
            c.zerosPass = c.zerosPass || zerosPass;
            const bool worse = c.trials == 1 || m.outOfToleranceShare > c.outOfToleranceShare ||
                               (m.outOfToleranceShare == c.outOfToleranceShare && m.relL2Error > c.relL2Error);
            if (worse) {
                c.count = m.count;
                c.outOfTolerance = m.outOfTolerance;
                c.outOfToleranceShare = m.outOfToleranceShare;
                c.firstMismatch = m.firstMismatch;
                c.maxAbsError = m.maxAbsError;
                c.relL2Error = m.relL2Error;
                c.refRms = m.refRms;
                c.maxErrorOverRefRms = m.maxErrorOverRefRms;
                c.nanCount = m.nanCount;
                c.infCount = m.infCount;
            }
            if (trial == 0) {
                const std::int64_t bytes = t.count() * elemBytes(t.type);
                Status kept = firstRunDevice[i].allocate(bytes);
                if (kept.isOk()) {
                    KWB_CUDA_CHECK(cudaMemcpyAsync(firstRunDevice[i].get(), t.data.get(), static_cast<std::size_t>(bytes),
                        cudaMemcpyDeviceToDevice, m_st.stream));
                } else if (kept.code() == ErrorCode::OutOfMemory) {
                    firstRunDevice[i] = DeviceBuffer();
                    cudaGetLastError(); // the failed allocation's error, not the candidate's
                    KWB_ASSIGN_OR_RETURN(firstRun[i], hostBytes(t));
                } else {
                    return kept;
                }
            }
        }
        if (trial == 0) {
            // Determinism: the same inputs again, the same prefill; outputs must match bit for bit.
            KWB_RETURN_IF_ERROR(generateInputs(1));
            for (auto& t : m_outputs)
                KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, m_st.stream));
            KWB_RETURN_IF_ERROR(runCandidateChecked());
            if (m_stopped) return Status::ok();
            for (std::size_t i = 0; i < m_outputs.size(); ++i) {
                const Tensor& t = m_outputs[i];
                std::int64_t differing = 0;
                if (firstRunDevice[i].get()) {
                    KWB_ASSIGN_OR_RETURN(differing, metrics.countDiffering(firstRunDevice[i].get(), t.data.get(),
                                                        t.count(), elemBytes(t.type), m_st.stream));
                    firstRunDevice[i] = DeviceBuffer();
                } else {
                    KWB_ASSIGN_OR_RETURN(std::vector<unsigned char> again, hostBytes(t));
                    const auto w = static_cast<std::size_t>(elemBytes(t.type));
                    for (std::size_t e = 0; e + w <= again.size(); e += w)
                        if (std::memcmp(&again[e], &firstRun[i][e], w) != 0) ++differing;
                    firstRun[i] = {};
                }
                checks[i].deterministic = differing == 0;
                checks[i].nondeterministicElements = differing;
            }
        }
    }
    for (auto& c : checks) c.passed = c.trialsPassed == c.trials;
    m_r.outputs = std::move(checks);
    m_r.inputs = std::move(inputChecks);
    m_ctx.report("correctness", trials, trials);
    return Status::ok();
}

Status Run::timing()
{
    const RerunOptions& o = m_req.options;
    TimingConfig cfg;
    cfg.warmup = std::max(0, o.warmup);
    cfg.trials = std::max(1, o.trials);
    cfg.l2Flush = o.l2Flush;
    auto& tracer = CuptiTracer::instance();
    std::string cuptiNote;
    bool cupti = o.cupti;
    if (cupti) {
        Status s = tracer.initialize();
        if (!s.isOk()) {
            cupti = false;
            cuptiNote = "CUPTI unavailable: " + s.message();
        }
    }
    std::uint32_t timedId = 0;
    if (cupti) {
        auto id = tracer.streamId(m_st.stream);
        if (id) timedId = *id;
        else {
            cupti = false;
            cuptiNote = "CUPTI stream id unavailable: " + id.status().message();
        }
    }
    // The event bracket's constant cost, measured once per runner and flush setting.
    std::optional<double> eventOverheadMs;
    std::string calibrationNote;
    if (cupti) {
        auto oh = m_st.timer.eventOverhead(m_st.stream, cfg);
        if (oh) eventOverheadMs = oh->ms;
        else calibrationNote = "event overhead not calibrated: " + oh.status().message();
    }
    auto timeOne = [&](const LaunchFn& fn, std::optional<TimingStats>& stats, CuptiSummary& summary,
                       const char* stage) -> Status {
        TaskContext sub;
        sub.cancel = m_ctx.cancel;
        sub.progress = [&](const Progress& p) { m_ctx.report(stage, p.done, p.total); };
        auto ms = m_st.timer.time(fn, m_st.stream, cfg, sub,
            cupti ? std::function<Status()>([&] { return tracer.begin(); }) : std::function<Status()>(),
            cupti ? std::function<Status()>([&] { return tracer.end(); }) : std::function<Status()>());
        if (!ms) return ms.status();
        stats = summarizeTimings(*ms, false);
        stats->eventOverheadMs = eventOverheadMs;
        if (cupti) {
            summary = summarizeCupti(tracer.kernels(), tracer.memOps(), timedId, tracer.droppedRecords());
            if (!calibrationNote.empty())
                summary.note = summary.note.empty() ? calibrationNote : summary.note + "; " + calibrationNote;
        }
        else summary.note = cuptiNote.empty() ? "CUPTI not requested" : cuptiNote;
        return Status::ok();
    };
    KWB_RETURN_IF_ERROR(generateInputs(static_cast<std::uint64_t>(std::max(1, o.correctnessTrials))));
    Status s = timeOne([this](cudaStream_t st) { return launchCandidate(st); }, m_r.candidateTiming,
        m_r.candidateCupti, "timing");
    if (!s.isOk()) {
        if (cupti) (void)tracer.end();
        return fail(s, RerunStatus::LaunchError);
    }
    KWB_RETURN_IF_ERROR(checkpoint(RerunStatus::Fault));
    if (m_stopped) return Status::ok();
    if (o.timeReference) {
        KWB_RETURN_IF_ERROR(generateInputs(static_cast<std::uint64_t>(std::max(1, o.correctnessTrials))));
        Status rs = timeOne([this](cudaStream_t st) { return runReference(st); }, m_r.referenceTiming,
            m_r.referenceCupti, "reference");
        if (!rs.isOk()) {
            if (cupti) (void)tracer.end();
            return rs;
        }
        if (m_r.candidateTiming && m_r.referenceTiming && m_r.candidateTiming->medianMs > 0)
            m_r.speedup = m_r.referenceTiming->medianMs / m_r.candidateTiming->medianMs;
    }
    return Status::ok();
}

Status Run::serve()
{
    m_r.status = RerunStatus::Ok;
    KWB_RETURN_IF_ERROR(prepare());
    if (!isOwnReference(m_req.problem.reference.builtin) && m_req.problem.reference.builtin != "gemm") {
        m_r.status = RerunStatus::Unsupported;
        m_r.message = "kwb-runner has no built-in reference named '" + m_req.problem.reference.builtin + "'";
        return Status::ok();
    }
    KWB_RETURN_IF_ERROR(compile());
    if (m_stopped) return Status::ok();
    {
        Status s = allocate();
        if (!s.isOk()) return fail(s, RerunStatus::InternalError);
    }
    // Every step below may surface an asynchronous fault of the candidate: classify, don't propagate.
    for (auto step : {&Run::coverage, &Run::correctness, &Run::timing}) {
        if (m_ctx.cancelled()) return Status(ErrorCode::Cancelled, "cancelled");
        Status s = (this->*step)();
        if (!s.isOk()) {
            if (s.code() == ErrorCode::Cancelled) return s;
            return fail(s, RerunStatus::InternalError);
        }
        if (m_stopped) return Status::ok();
    }
    return Status::ok();
}

} // namespace

Result<RerunResult> GpuExecutor::execute(const RerunRequest& request, const TaskContext& ctx)
{
    const auto t0 = Clock::now();
    KWB_RETURN_IF_ERROR(m_state->probe());
    RerunResult r;
    r.id = request.id;
    r.problemId = request.problem.id;
    r.candidateId = request.candidate.id;
    r.precision = request.problem.precision;
    if (!m_state->deviceOk) {
        r.status = RerunStatus::NoDevice;
        r.message = m_state->whyNot;
        return r;
    }
    r.device = toProtocol(m_state->info);
    cudaGetLastError(); // a non-sticky error left by an earlier request must not be blamed on this one
    if (request.candidate.form != CandidateForm::Nvrtc && request.candidate.form != CandidateForm::SharedObject) {
        r.status = RerunStatus::Unsupported;
        r.message = std::string("kwb-runner does not run candidates of form ") +
                    candidateFormName(request.candidate.form) + " (KernelBench samples go through the PyTorch bridge)";
        return r;
    }
    Run run(*m_state, request, ctx, r);
    KWB_RETURN_IF_ERROR(run.serve());
    r.wallMs = msSince(t0);
    double timedMs = 0;
    const double warm = std::max(0, request.options.warmup);
    for (const auto* t : {&r.candidateTiming, &r.referenceTiming})
        if (*t) timedMs += (*t)->meanMs * (static_cast<double>((*t)->trials) + warm);
    r.overheadMs = std::max(0.0, r.wallMs - timedMs);
    return r;
}

} // namespace kwb::gpu
