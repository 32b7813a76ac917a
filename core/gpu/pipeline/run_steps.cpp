#include "gpu/pipeline/run_steps.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpu/checks/adversarial_inputs.h"
#include "gpu/checks/coverage_scan.h"
#include "gpu/checks/device_metrics.h"
#include "gpu/checks/input_generator.h"
#include "gpu/checks/output_checks.h"
#include "gpu/device/device_info.h"
#include "gpu/device/driver_api.h"
#include "gpu/device/gpu_check.h"
#include "gpu/isolation/candidate_host.h"
#include "gpu/isolation/isolated_steps.h"
#include "gpu/references/reference_kernels.h"
#include "gpu/timing/timed_run.h"
#include "rerun/own_kernels.h"
#include "rerun/trial_plan.h"
#include "problems/coverage_grid.h"
#include "problems/output_metrics.h"
#include "problems/roofline.h"
#include "problems/size_expression.h"
#include "problems/tolerance_policy.h"

namespace kwb::gpu {

namespace {

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

// Waits for all device work (side streams included) and classifies an error.
Status checkpoint(RunContext& ctx, RerunStatus hint)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err == cudaSuccess) return Status::ok();
    return recordFailure(ctx, cudaRuntimeStatus(err, "candidate run (cudaDeviceSynchronize)", __FILE__, __LINE__), hint);
}

Result<std::vector<float>> hostFloat(RunContext& ctx, Tensor& t, bool reference)
{
    std::vector<float> h(static_cast<std::size_t>(t.count()));
    const float* src = nullptr;
    if (reference) {
        src = t.reference.asFloat();
    } else if (t.type == ElemType::F32) {
        src = static_cast<const float*>(t.data.get());
    } else {
        KWB_RETURN_IF_ERROR(convertToFloat(t.data.get(), t.asFloat.asFloat(), t.count(), t.type, ctx.gpu.stream));
        src = t.asFloat.asFloat();
    }
    KWB_CUDA_CHECK(cudaMemcpyAsync(h.data(), src, h.size() * 4, cudaMemcpyDeviceToHost, ctx.gpu.stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(ctx.gpu.stream));
    return h;
}

Result<std::vector<unsigned char>> hostBytes(RunContext& ctx, const Tensor& t)
{
    std::vector<unsigned char> h(static_cast<std::size_t>(t.count() * elemBytes(t.type)));
    KWB_CUDA_CHECK(cudaMemcpyAsync(h.data(), t.data.get(), h.size(), cudaMemcpyDeviceToHost, ctx.gpu.stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(ctx.gpu.stream));
    return h;
}

} // namespace

// ---------------------------------------------------------------- resources

DeviceBuffer::~DeviceBuffer()
{
    if (m_ptr) cudaFree(m_ptr);
}

Status DeviceBuffer::allocate(std::int64_t bytes)
{
    KWB_CUDA_CHECK(cudaMalloc(&m_ptr, static_cast<std::size_t>(std::max<std::int64_t>(bytes, 16))));
    m_bytes = bytes;
    return Status::ok();
}

GpuResources::~GpuResources()
{
    if (hashScratch) cudaFree(hashScratch);
    if (stream) cudaStreamDestroy(stream);
}

Status GpuResources::open()
{
    if (m_opened) return Status::ok();
    m_opened = true;
    if (deviceCount(&m_whyNot) == 0) return Status::ok();
    auto d = openDevice(0);
    if (!d) {
        m_whyNot = d.status().toString();
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
    m_deviceOk = true;
    return Status::ok();
}

Tensor* RunContext::tensorNamed(const std::string& name)
{
    for (auto& t : inputs)
        if (t.spec.name == name) return &t;
    for (auto& t : outputs)
        if (t.spec.name == name) return &t;
    return nullptr;
}

// ---------------------------------------------------------------- failures

// OOM stays OOM and ends the runner too (memory the candidate still holds
// cannot be taken back in-process); a lost context is a fault and ends the
// runner; the rest is `hint`.
Status recordFailure(RunContext& ctx, const Status& s, RerunStatus hint)
{
    RerunResult& r = ctx.result;
    ctx.stopped = true;
    if (s.code() == ErrorCode::OutOfMemory) {
        r.status = RerunStatus::OutOfMemory;
        r.fatal = true;
        cudaGetLastError();
    } else if (contextLost()) {
        r.status = RerunStatus::Fault;
        r.fatal = true;
    } else if (s.code() == ErrorCode::Cancelled) {
        return s;
    } else {
        r.status = hint;
    }
    r.message = s.toString();
    return Status::ok();
}

// ---------------------------------------------------------------- steps

Status prepareStep(RunContext& ctx)
{
    const ProblemSpec& p = ctx.request.problem;
    RerunResult& r = ctx.result;
    KWB_ASSIGN_OR_RETURN(ctx.sizes, resolveSizes(p, ctx.request.options.sizes));
    r.sizes = ctx.sizes;
    ctx.tolerance = resolveTolerance(p.tolerance, p.precision);
    r.tolerance = ctx.tolerance;
    KWB_RETURN_IF_ERROR(validateCandidate(ctx.request.candidate, p));
    KWB_ASSIGN_OR_RETURN(auto ins, resolveTensors(p.inputs, ctx.sizes));
    KWB_ASSIGN_OR_RETURN(auto outs, resolveTensors(p.outputs, ctx.sizes));
    int index = 0;
    for (std::size_t i = 0; i < ins.size(); ++i) {
        Tensor t;
        t.spec = ins[i];
        t.def = &p.inputs[i];
        t.index = index++;
        t.type = elemTypeOf(t.spec.dtype);
        ctx.inputs.push_back(std::move(t));
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
        Tensor t;
        t.spec = outs[i];
        t.def = &p.outputs[i];
        t.index = index++;
        t.type = elemTypeOf(t.spec.dtype);
        if (!coverageSupportsWidth(elemBytes(t.type)))
            return Status(ErrorCode::Unsupported, "output " + t.spec.name + ": unsupported dtype");
        ctx.outputs.push_back(std::move(t));
    }
    KWB_ASSIGN_OR_RETURN(r.flops, resolveFlops(p, ctx.sizes));
    KWB_ASSIGN_OR_RETURN(r.bytes, resolveBytes(p, ctx.sizes));
    DevicePeaks peaks;
    peaks.bytesPerSecond = ctx.gpu.info.peakBandwidthBytesPerS;
    if (p.precision == DType::F32) peaks.flopsPerSecond = ctx.gpu.info.peakFp32FlopsPerS;
    else if (p.precision == DType::F16 || p.precision == DType::BF16) peaks.flopsPerSecond = ctx.gpu.info.peakFp16FlopsPerS;
    r.rooflineFloorMs = rooflineFloorMs(r.flops, r.bytes, peaks);
    std::random_device rd; // getrandom(2) on Linux
    ctx.nonce = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    return Status::ok();
}

Status compileStep(RunContext& ctx)
{
    ctx.task.report("compile", 0, 1);
    const CandidateSpec& c = ctx.request.candidate;
    RerunResult& r = ctx.result;
    const std::string name = c.sourceFile.empty() ? c.id + ".cu" : c.sourceFile;
    if (c.form == CandidateForm::Nvrtc) {
        KWB_ASSIGN_OR_RETURN(ctx.launches, resolveLaunches(c, ctx.sizes));
        CompileRequest req;
        req.source = c.source;
        req.name = name;
        req.options = c.compileOptions;
        std::set<std::string> seen;
        for (const auto& l : c.launches)
            if (seen.insert(l.entry).second) req.entryPoints.push_back(l.entry);
        CacheOutcome outcome{};
        auto m = ctx.gpu.modules->get(req, &outcome);
        if (!m)
            return recordFailure(ctx, m.status(),
                m.status().code() == ErrorCode::InvalidArgument ? RerunStatus::CompileError : RerunStatus::InternalError);
        ctx.module = *m;
        r.compileCacheHit = outcome != CacheOutcome::Compiled;
        r.compileMs = outcome == CacheOutcome::Compiled ? ctx.module->compileMs : 0.0;
    } else {
        KWB_ASSIGN_OR_RETURN(ctx.sizeArgs, resolveSizeArgs(c, ctx.sizes));
        SharedObjectRequest req;
        req.source = c.source;
        req.name = name;
        req.options = c.compileOptions;
        bool cached = false;
        auto lib = ctx.gpu.libraries->get(req, &cached);
        if (!lib)
            return recordFailure(ctx, lib.status(),
                lib.status().code() == ErrorCode::InvalidArgument ? RerunStatus::CompileError : RerunStatus::InternalError);
        ctx.library = *lib;
        beginIsolatedRun(ctx);
        r.compileCacheHit = cached;
        r.compileMs = cached ? 0.0 : ctx.library->compileMs;
    }
    ctx.task.report("compile", 1, 1);
    return Status::ok();
}

Status allocateStep(RunContext& ctx)
{
    for (auto& t : ctx.inputs) {
        KWB_RETURN_IF_ERROR(t.data.allocate(paddedBytes(t.count(), elemBytes(t.type))));
        if (t.type != ElemType::F32) KWB_RETURN_IF_ERROR(t.asFloat.allocate(t.count() * 4));
    }
    for (auto& t : ctx.outputs) {
        KWB_RETURN_IF_ERROR(t.data.allocate(paddedBytes(t.count(), elemBytes(t.type))));
        if (t.type != ElemType::F32) KWB_RETURN_IF_ERROR(t.asFloat.allocate(t.count() * 4));
        KWB_RETURN_IF_ERROR(t.reference.allocate(t.count() * 4));
    }
    if (ctx.library) {
        for (const auto& name : bufferOrder(ctx.request.candidate, ctx.request.problem)) {
            Tensor* t = ctx.tensorNamed(name);
            if (!t) return Status(ErrorCode::InvalidArgument, "candidate buffer '" + name + "' is not a problem tensor");
            ctx.soBuffers.push_back(t->data.get());
        }
    }
    return Status::ok();
}

Status inputsStep(RunContext& ctx, std::uint64_t trial)
{
    const auto& seed = ctx.request.problem.seed;
    const std::uint64_t base = ctx.request.options.seed;
    const std::uint64_t t = seed.kind == SeedPolicy::Kind::Fixed ? 0 : trial;
    for (auto& in : ctx.inputs) {
        KWB_RETURN_IF_ERROR(generateTensor(in.data.get(), in.count(), in.type,
            genParamsOf(*in.def, deriveSeed(base, t, static_cast<std::uint64_t>(in.index))), ctx.gpu.stream));
        if (in.type != ElemType::F32)
            KWB_RETURN_IF_ERROR(convertToFloat(in.data.get(), in.asFloat.asFloat(), in.count(), in.type, ctx.gpu.stream));
    }
    return Status::ok();
}

TimedSeeds timedSeeds(const RunContext& ctx)
{
    // A fixed-seed problem keeps its inputs fixed (its outputs may be defined only for them).
    const bool fixed = ctx.request.problem.seed.kind == SeedPolicy::Kind::Fixed;
    return {fixed ? ctx.request.options.seed : ctx.nonce, fixed};
}

GenParams inputParamsOf(const Tensor& in)
{
    return genParamsOf(*in.def, 0);
}

Status timedInputsStep(RunContext& ctx, std::uint64_t trial, cudaStream_t stream)
{
    const TimedSeeds seeds = timedSeeds(ctx);
    const std::uint64_t base = seeds.base;
    const std::uint64_t t = seeds.fixed ? 0 : trial;
    for (auto& in : ctx.inputs) {
        KWB_RETURN_IF_ERROR(generateTensor(in.data.get(), in.count(), in.type,
            genParamsOf(*in.def, deriveSeed(base, t, static_cast<std::uint64_t>(in.index))), stream));
        if (in.type != ElemType::F32)
            KWB_RETURN_IF_ERROR(convertToFloat(in.data.get(), in.asFloat.asFloat(), in.count(), in.type, stream));
    }
    return Status::ok();
}

Result<std::vector<OutputMetrics>> compareWithReference(RunContext& ctx, const std::vector<const void*>& snapshots)
{
    const cudaStream_t stream = ctx.gpu.stream;
    // The candidate's output is final before the reference exists (issue 12: a
    // kernel scanning device memory must not find the expected output).
    KWB_CUDA_CHECK(cudaDeviceSynchronize());
    KWB_RETURN_IF_ERROR(runReference(ctx, stream));
    std::vector<OutputMetrics> out;
    for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
        Tensor& t = ctx.outputs[i];
        const void* src = i < snapshots.size() && snapshots[i] ? snapshots[i] : t.data.get();
        const float* cand = nullptr;
        if (t.type == ElemType::F32) {
            cand = static_cast<const float*>(src);
        } else {
            KWB_RETURN_IF_ERROR(convertToFloat(src, t.asFloat.asFloat(), t.count(), t.type, stream));
            cand = t.asFloat.asFloat();
        }
        KWB_ASSIGN_OR_RETURN(DeviceComparison d,
            ctx.metrics.compare(cand, t.reference.asFloat(), t.count(), ctx.tolerance.atol, ctx.tolerance.rtol, stream));
        out.push_back(d.metrics);
        KWB_CUDA_CHECK(cudaMemsetAsync(t.reference.get(), 0, static_cast<std::size_t>(t.count()) * 4, stream));
    }
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

Status launchCandidate(RunContext& ctx, cudaStream_t stream)
{
    if (ctx.library) {
        if (ctx.library->host) return ctx.library->host->launch(ctx.soBuffers, ctx.sizeArgs, stream);
        const int rc = ctx.library->launch(ctx.soBuffers.data(), ctx.sizeArgs.data(), stream);
        if (rc == 0) return Status::ok();
        cudaGetLastError(); // the candidate's failed call left it set; later checks must not see it
        const auto err = static_cast<cudaError_t>(rc);
        return Status(err == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::GpuError,
            std::string("kwb_launch returned ") + std::to_string(rc) + " (" + cudaGetErrorName(err) + ")");
    }
    const DriverApi* api = driverApi();
    if (!api) return Status(ErrorCode::GpuError, "the CUDA driver API is not available");
    const CandidateSpec& c = ctx.request.candidate;
    for (std::size_t i = 0; i < c.launches.size(); ++i) {
        const KernelLaunch& l = c.launches[i];
        const ResolvedLaunch& rl = ctx.launches[i];
        std::vector<std::uint64_t> storage(l.args.size(), 0);
        std::vector<void*> args(l.args.size(), nullptr);
        for (std::size_t a = 0; a < l.args.size(); ++a) {
            const LaunchArg& arg = l.args[a];
            void* slot = &storage[a];
            switch (arg.kind) {
            case LaunchArg::Kind::Tensor: {
                Tensor* t = ctx.tensorNamed(arg.tensor);
                if (!t) return Status(ErrorCode::InvalidArgument, "launch argument names unknown tensor " + arg.tensor);
                void* p = t->data.get();
                std::memcpy(slot, &p, sizeof p);
                break;
            }
            case LaunchArg::Kind::I32:
            case LaunchArg::Kind::I64: {
                KWB_ASSIGN_OR_RETURN(std::int64_t v, evaluateSizeExpression(arg.expression, ctx.sizes));
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
        CUfunction f = ctx.module->functions.at(l.entry);
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

Status runCandidateChecked(RunContext& ctx)
{
    Status s = launchCandidate(ctx, ctx.gpu.stream);
    // A launch error may also be the first sign of an earlier fault.
    if (!s.isOk()) return recordFailure(ctx, s, candidateFailureStatus(ctx, RerunStatus::LaunchError));
    return checkpoint(ctx, RerunStatus::Fault);
}

Status runReference(RunContext& ctx, cudaStream_t stream)
{
    const ReferenceSpec& ref = ctx.request.problem.reference;
    if (ref.builtin == "gemm") {
        if (ctx.inputs.size() < 2 || ctx.outputs.size() != 1)
            return Status(ErrorCode::InvalidArgument, "gemm reference takes inputs A, B and one output C");
        auto param = [&](const char* k) {
            auto it = ref.params.find(k);
            return it == ref.params.end() ? 0.0 : it->second;
        };
        GemmShape s;
        s.transA = param("trans_a") != 0.0;
        s.transB = param("trans_b") != 0.0;
        const auto& a = ctx.inputs[0].spec.shape;
        const auto& c = ctx.outputs[0].spec.shape;
        if (a.size() != 2 || c.empty() || c.size() > 2)
            return Status(ErrorCode::InvalidArgument, "gemm reference needs A [M, K] and C [M, N]");
        s.m = c[0];
        s.n = c.size() == 2 ? c[1] : 1;
        s.k = s.transA ? a[0] : a[1];
        if (ref.params.count("alpha")) s.alpha = static_cast<float>(param("alpha"));
        return ctx.gpu.blas.gemm(s, ctx.inputs[0].floatData(), ctx.inputs[1].floatData(),
            ctx.outputs[0].reference.asFloat(), stream);
    }
    if (ref.builtin == "diag_matmul") {
        // What KernelBench's Model does: torch.diag(A) @ B, a dense GEMM on the N x N diagonal matrix.
        if (ctx.inputs.size() != 2 || ctx.outputs.size() != 1 || ctx.inputs[0].spec.shape.size() != 1
            || ctx.inputs[1].spec.shape.size() != 2 || ctx.inputs[1].spec.shape[0] != ctx.inputs[0].spec.shape[0])
            return Status(ErrorCode::InvalidArgument, "diag_matmul reference takes A [N], B [N, M] and one output [N, M]");
        const std::int64_t n = ctx.inputs[0].spec.shape[0];
        const std::int64_t m = ctx.inputs[1].spec.shape[1];
        if (ctx.referenceScratch.bytes() < n * n * 4) KWB_RETURN_IF_ERROR(ctx.referenceScratch.allocate(n * n * 4));
        KWB_RETURN_IF_ERROR(expandDiagonal(ctx.inputs[0].floatData(), n, ctx.referenceScratch.asFloat(), stream));
        GemmShape s;
        s.m = n;
        s.n = m;
        s.k = n;
        return ctx.gpu.blas.gemm(s, ctx.referenceScratch.asFloat(), ctx.inputs[1].floatData(),
            ctx.outputs[0].reference.asFloat(), stream);
    }
    std::vector<RefInput> ins;
    for (const auto& t : ctx.inputs) ins.push_back(RefInput{t.floatData(), t.spec.shape});
    std::vector<RefOutput> outs;
    for (auto& t : ctx.outputs) outs.push_back(RefOutput{t.reference.asFloat(), t.spec.shape});
    return runOwnReference(ref.builtin, ref.params, ins, outs, stream);
}

Status coverageStep(RunContext& ctx)
{
    const cudaStream_t stream = ctx.gpu.stream;
    ctx.task.report("coverage", 0, 2);
    KWB_RETURN_IF_ERROR(inputsStep(ctx, 0));
    std::vector<std::unique_ptr<CoverageScanner>> scanners;
    std::vector<CoverageLayout> layouts;
    for (auto& t : ctx.outputs) {
        KWB_ASSIGN_OR_RETURN(CoverageLayout l, planCoverageLayout(t.spec.shape, ctx.request.options.coverageRows,
                                                   ctx.request.options.coverageCols));
        layouts.push_back(l);
        scanners.push_back(std::make_unique<CoverageScanner>());
        KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 0, stream));
    }
    KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
    if (ctx.stopped) return Status::ok();
    for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
        Tensor& t = ctx.outputs[i];
        KWB_RETURN_IF_ERROR(scanners[i]->scanFirst(t.data.get(), scanLayoutFor(layouts[i]), elemBytes(t.type), stream));
        KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, stream));
    }
    ctx.task.report("coverage", 1, 2);
    KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
    if (ctx.stopped) return Status::ok();
    for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
        Tensor& t = ctx.outputs[i];
        KWB_RETURN_IF_ERROR(scanners[i]->scanSecond(t.data.get(), stream));
        KWB_ASSIGN_OR_RETURN(CoverageCounts counts, scanners[i]->collect(kFirstUnwrittenListed, stream));
        ctx.result.coverage.push_back(outputCoverageFrom(t.spec.name, layouts[i], counts, elemBytes(t.type)));
    }
    ctx.task.report("coverage", 2, 2);
    return Status::ok();
}

Status correctnessStep(RunContext& ctx)
{
    const cudaStream_t stream = ctx.gpu.stream;
    const int trials = std::max(1, ctx.request.options.correctnessTrials);
    std::vector<OutputCheck> checks(ctx.outputs.size());
    std::vector<InputCheck> inputChecks(ctx.inputs.size());
    for (std::size_t i = 0; i < ctx.outputs.size(); ++i) checks[i].output = ctx.outputs[i].spec.name;
    for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
        inputChecks[i].input = ctx.inputs[i].spec.name;
        inputChecks[i].bytes = ctx.inputs[i].count() * static_cast<std::int64_t>(elemBytes(ctx.inputs[i].type));
    }
    // Outputs are compared on the device (one pass, no copies); the host
    // comparison stays only for when the device's small scratch cannot be had.
    // The determinism re-run is compared with a device copy of the first run,
    // or with host bytes when there is no memory for that copy.
    DeviceMetrics& metrics = ctx.metrics;
    bool hostMetrics = false;
    std::vector<DeviceBuffer> firstRunDevice(ctx.outputs.size());
    std::vector<std::vector<unsigned char>> firstRun(ctx.outputs.size());

    for (int trial = 0; trial < trials; ++trial) {
        ctx.task.report("correctness", trial, trials);
        if (ctx.task.cancelled()) return Status(ErrorCode::Cancelled, "cancelled");
        KWB_RETURN_IF_ERROR(inputsStep(ctx, static_cast<std::uint64_t>(trial) + 1));
        std::vector<std::uint64_t> before(ctx.inputs.size());
        for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
            const Tensor& t = ctx.inputs[i];
            KWB_ASSIGN_OR_RETURN(before[i], hashDeviceBytes(t.data.get(), t.count() * elemBytes(t.type),
                                                ctx.gpu.hashScratch, stream));
        }
        for (auto& t : ctx.outputs)
            KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, stream));
        KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
        if (ctx.stopped) return Status::ok();
        for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
            const Tensor& t = ctx.inputs[i];
            KWB_ASSIGN_OR_RETURN(std::uint64_t after, hashDeviceBytes(t.data.get(), t.count() * elemBytes(t.type),
                                                          ctx.gpu.hashScratch, stream));
            addInputHashes(inputChecks[i], before[i], after);
        }
        // The reference only now: after the candidate's output is final and the
        // device synchronised (runCandidateChecked), so no kernel of the
        // candidate can find the expected output in device memory.
        Status refStatus = runReference(ctx, stream);
        if (!refStatus.isOk()) {
            if (refStatus.code() == ErrorCode::Unsupported) {
                ctx.stopped = true;
                ctx.result.status = RerunStatus::Unsupported;
                ctx.result.message = refStatus.toString();
                return Status::ok();
            }
            return refStatus;
        }
        for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
            Tensor& t = ctx.outputs[i];
            OutputMetrics m;
            bool zerosPass = false;
            if (!hostMetrics) {
                if (t.type != ElemType::F32)
                    KWB_RETURN_IF_ERROR(convertToFloat(t.data.get(), t.asFloat.asFloat(), t.count(), t.type, stream));
                Result<DeviceComparison> d = metrics.compare(t.floatData(), t.reference.asFloat(), t.count(),
                    ctx.tolerance.atol, ctx.tolerance.rtol, stream);
                if (d) {
                    m = d->metrics;
                    zerosPass = d->zerosPass;
                } else if (d.status().code() == ErrorCode::OutOfMemory) {
                    cudaGetLastError(); // an allocation failure is not sticky; clear it
                    hostMetrics = true;
                } else {
                    return d.status();
                }
            }
            if (hostMetrics) {
                KWB_ASSIGN_OR_RETURN(std::vector<float> out, hostFloat(ctx, t, false));
                KWB_ASSIGN_OR_RETURN(std::vector<float> ref, hostFloat(ctx, t, true));
                m = compareOutputs(out, ref, ctx.tolerance);
                zerosPass = zerosPassAllclose(ref, ctx.tolerance);
            }
            addCorrectnessTrial(checks[i], m, zerosPass);
            KWB_CUDA_CHECK(cudaMemsetAsync(t.reference.get(), 0, static_cast<std::size_t>(t.count()) * 4, stream));
            if (trial == 0) {
                const std::int64_t bytes = t.count() * elemBytes(t.type);
                Status kept = firstRunDevice[i].allocate(bytes);
                if (kept.isOk()) {
                    KWB_CUDA_CHECK(cudaMemcpyAsync(firstRunDevice[i].get(), t.data.get(), static_cast<std::size_t>(bytes),
                        cudaMemcpyDeviceToDevice, stream));
                } else if (kept.code() == ErrorCode::OutOfMemory) {
                    firstRunDevice[i] = DeviceBuffer();
                    cudaGetLastError(); // the failed allocation's error, not the candidate's
                    KWB_ASSIGN_OR_RETURN(firstRun[i], hostBytes(ctx, t));
                } else {
                    return kept;
                }
            }
        }
        if (trial == 0) {
            // Determinism: the same inputs again, the same prefill; outputs must match bit for bit.
            KWB_RETURN_IF_ERROR(inputsStep(ctx, 1));
            for (auto& t : ctx.outputs)
                KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, stream));
            KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
            if (ctx.stopped) return Status::ok();
            for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
                const Tensor& t = ctx.outputs[i];
                std::int64_t differing = 0;
                if (firstRunDevice[i].get()) {
                    KWB_ASSIGN_OR_RETURN(differing, metrics.countDiffering(firstRunDevice[i].get(), t.data.get(),
                                                        t.count(), elemBytes(t.type), stream));
                    firstRunDevice[i] = DeviceBuffer();
                } else {
                    KWB_ASSIGN_OR_RETURN(std::vector<unsigned char> again, hostBytes(ctx, t));
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
    for (auto& c : checks) finishCorrectness(c);
    ctx.result.outputs = std::move(checks);
    ctx.result.inputs = std::move(inputChecks);
    ctx.task.report("correctness", trials, trials);
    return Status::ok();
}

namespace {

// One checked run on timed-trial-like fresh inputs: its outputs as OutputChecks (trials = 1).
Result<std::vector<OutputCheck>> checkedRunOn(RunContext& ctx, std::uint64_t trial)
{
    KWB_RETURN_IF_ERROR(timedInputsStep(ctx, trial, ctx.gpu.stream));
    for (auto& t : ctx.outputs)
        KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, ctx.gpu.stream));
    KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
    std::vector<OutputCheck> checks;
    if (ctx.stopped) return checks;
    KWB_ASSIGN_OR_RETURN(auto metrics, compareWithReference(ctx, {}));
    for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
        OutputCheck c;
        c.output = ctx.outputs[i].spec.name;
        addCorrectnessTrial(c, metrics[i], false);
        finishCorrectness(c);
        checks.push_back(std::move(c));
    }
    return checks;
}

constexpr std::uint64_t kTimedTrialBase = 1'000'000;   // seeds of timed trials (nonce-derived)
constexpr std::uint64_t kPerCallBase = 2'000'000;      // seeds of the per-call mode's calls
constexpr int kPerCallMaxTrials = 30;

} // namespace

Status timingStep(RunContext& ctx)
{
    const RerunOptions& o = ctx.request.options;
    RerunResult& r = ctx.result;
    TimingWindow window(ctx.gpu.timer, ctx.gpu.stream, timingConfigFor(o), o.cupti);
    const int trials = std::max(1, o.trials);
    const auto timedTrial = static_cast<std::uint64_t>(std::max(1, o.correctnessTrials));
    const bool fresh = o.freshInputs;

    // Fresh inputs: every timed trial gets new contents in the same buffers
    // (seeded from the run's nonce); the outputs of every k-th batch end and of
    // the last trial are set aside (a device copy behind the stop event) and
    // compared with the reference after the loop, outside the CUPTI window. A
    // shared object in its candidate host gets the same inside the host's loop
    // (gpu/isolation): the host draws the contents and fills these snapshots.
    TrialHooks hooks;
    std::vector<int> checked; // which timed trials were set aside, decided by the timer's plan
    std::vector<std::vector<DeviceBuffer>> snapshots;
    const int every = std::max(kTimingBatch, (std::max(1, o.checkEvery) + kTimingBatch - 1) / kTimingBatch * kTimingBatch);
    if (fresh) {
        // The copies set aside must fit next to the problem (suite outputs reach 7.6 GB):
        // at most a quarter of the free memory and 8 GiB; fewer checked trials, evenly
        // spread and always the last, when they do not. Sized for the trials asked for
        // (a time budget only cuts them).
        std::int64_t snapshotBytes = 0;
        for (const auto& t : ctx.outputs) snapshotBytes += t.count() * elemBytes(t.type);
        std::size_t freeBytes = 0;
        std::size_t totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) cudaGetLastError();
        const std::int64_t budget = std::min<std::int64_t>(static_cast<std::int64_t>(freeBytes) / 4, 8LL << 30);
        const auto fit = static_cast<std::size_t>(std::max<std::int64_t>(1, budget / std::max<std::int64_t>(snapshotBytes, 1)));
        const std::size_t slots = checkedTrials(trials, every, fit).size();
        for (std::size_t j = 0; j < slots; ++j) {
            std::vector<DeviceBuffer> outs(ctx.outputs.size());
            for (std::size_t i = 0; i < ctx.outputs.size(); ++i)
                KWB_RETURN_IF_ERROR(outs[i].allocate(ctx.outputs[i].count() * elemBytes(ctx.outputs[i].type)));
            snapshots.push_back(std::move(outs));
        }
        int trialCounter = 0;
        hooks.plan = [&checked, &snapshots, every](int n) {
            checked = checkedTrials(n, every, snapshots.size());
            return Status::ok();
        };
        hooks.refresh = [&ctx, &trialCounter](cudaStream_t st) {
            return timedInputsStep(ctx, kTimedTrialBase + static_cast<std::uint64_t>(trialCounter++), st);
        };
        hooks.afterBatch = [&ctx, &checked, &snapshots](int last) {
            auto it = std::find(checked.begin(), checked.end(), last);
            if (it == checked.end()) return Status::ok();
            auto& outs = snapshots[static_cast<std::size_t>(it - checked.begin())];
            for (std::size_t i = 0; i < ctx.outputs.size(); ++i)
                KWB_CUDA_CHECK(cudaMemcpyAsync(outs[i].get(), ctx.outputs[i].data.get(),
                    static_cast<std::size_t>(outs[i].bytes()), cudaMemcpyDeviceToDevice, ctx.gpu.stream));
            return Status::ok();
        };
    } else {
        KWB_RETURN_IF_ERROR(inputsStep(ctx, timedTrial));
    }
    std::optional<double> hostCandidate;
    // A shared object runs in its sandboxed host, which times itself (gpu/isolation).
    bool freshDone = fresh;
    Status s = Status::ok();
    if (timedByHost(ctx)) {
        auto plan = fresh ? hostFreshInputs(ctx, kTimedTrialBase, every, snapshots) : std::optional<HostFreshInputs>();
        freshDone = plan.has_value();
        s = timeIsolatedCandidate(ctx, plan ? &*plan : nullptr, checked);
    } else {
        s = window.time([&ctx](cudaStream_t st) { return launchCandidate(ctx, st); }, ctx.task, "timing",
            r.candidateTiming, r.candidateCupti, fresh ? &hooks : nullptr, o.hostTimer ? &hostCandidate : nullptr);
    }
    if (!s.isOk()) return recordFailure(ctx, s, candidateFailureStatus(ctx, RerunStatus::LaunchError));
    KWB_RETURN_IF_ERROR(checkpoint(ctx, RerunStatus::Fault));
    if (ctx.stopped) return Status::ok();
    r.markCheck(check::kTiming);
    if (o.resetPersistingL2) r.markCheck(check::kPersistingL2Reset);

    // The trials the timer ran (a time budget may have cut them).
    const int timed = r.candidateTiming ? std::max(1, r.candidateTiming->trials) : trials;
    if (freshDone && r.candidateTiming) {
        FreshInputsCheck f;
        f.timedIterations = timed;
        f.nonce = hashHex(ctx.nonce);
        for (std::size_t j = 0; j < checked.size() && j < snapshots.size(); ++j) {
            KWB_RETURN_IF_ERROR(timedInputsStep(ctx, kTimedTrialBase + static_cast<std::uint64_t>(checked[j]), ctx.gpu.stream));
            std::vector<const void*> snaps;
            for (auto& b : snapshots[j]) snaps.push_back(b.get());
            KWB_ASSIGN_OR_RETURN(auto metrics, compareWithReference(ctx, snaps));
            ++f.checked;
            bool failed = false;
            for (const auto& m : metrics) {
                f.worstRelL2 = std::max(f.worstRelL2, m.relL2Error);
                if (!m.allclose) failed = true;
            }
            if (failed) ++f.failed;
        }
        snapshots.clear();
        r.freshInputs = f;
        r.markCheck(check::kFreshInputs);
    }

    // Own kernels: the CUPTI window's kernels that are the candidate's.
    if (r.candidateCupti.available) {
        std::vector<std::string> declared;
        if (ctx.request.candidate.form == CandidateForm::Nvrtc)
            for (const auto& l : ctx.request.candidate.launches)
                if (std::find(declared.begin(), declared.end(), l.entry) == declared.end()) declared.push_back(l.entry);
        r.ownKernels = ownKernelsFrom(r.candidateCupti, declared);
        r.markCheck(check::kOwnKernels);
    }

    // State drift: one more checked run after the loop, on the last timed trial's inputs.
    if (o.postTiming) {
        KWB_ASSIGN_OR_RETURN(r.postTiming, checkedRunOn(ctx, kTimedTrialBase + static_cast<std::uint64_t>(timed - 1)));
        if (ctx.stopped) return Status::ok();
        r.markCheck(check::kPostTiming);
    }

    if (o.timeReference) {
        // The reference is trusted: it is timed on fixed inputs (no refresh, no host
        // timer), which keeps the new checks' cost to the candidate's side.
        if (!fresh) KWB_RETURN_IF_ERROR(inputsStep(ctx, timedTrial));
        KWB_RETURN_IF_ERROR(window.time([&ctx](cudaStream_t st) { return runReference(ctx, st); }, ctx.task,
            "reference", r.referenceTiming, r.referenceCupti));
        if (r.candidateTiming && r.referenceTiming && r.candidateTiming->medianMs > 0)
            r.speedup = r.referenceTiming->medianMs / r.candidateTiming->medianMs;
    }
    if (o.hostTimer && hostCandidate) {
        HostTiming h;
        h.candidateMs = hostCandidate;
        h.trials = std::min(trials, kHostTimerCalls);
        h.measuredBy = "runner";
        r.hostTiming = h;
        r.markCheck(check::kHostTimer);
    }

    // Per-call mode: each call alone on fresh inputs, synchronised, its output checked.
    if (o.perCall) {
        TimingConfig cfg = window.config();
        cfg.trials = std::min(trials, kPerCallMaxTrials);
        PerCallTiming pc;
        int call = 0;
        const LaunchFn refresh = [&ctx, &call](cudaStream_t st) {
            return timedInputsStep(ctx, kPerCallBase + static_cast<std::uint64_t>(call), st);
        };
        auto checkCall = [&](int) -> Status {
            ++call;
            KWB_ASSIGN_OR_RETURN(auto metrics, compareWithReference(ctx, {}));
            ++pc.checked;
            for (const auto& m : metrics)
                if (!m.allclose) {
                    ++pc.failed;
                    break;
                }
            return Status::ok();
        };
        auto ms = ctx.gpu.timer.timePerCall([&ctx](cudaStream_t st) { return launchCandidate(ctx, st); }, ctx.gpu.stream,
            cfg, refresh, checkCall);
        if (!ms) return recordFailure(ctx, ms.status(), RerunStatus::LaunchError);
        pc.candidate = summarizeTimings(*ms, false);
        if (o.timeReference) {
            call = 0;
            KWB_ASSIGN_OR_RETURN(auto refMs, ctx.gpu.timer.timePerCall([&ctx](cudaStream_t st) { return runReference(ctx, st); },
                                                 ctx.gpu.stream, cfg, refresh, [&](int) { ++call; return Status::ok(); }));
            pc.reference = summarizeTimings(refMs, false);
        }
        r.perCallTiming = pc;
        r.markCheck(check::kPerCall);
    }
    return Status::ok();
}

namespace {

constexpr std::uint64_t kAdversarialBase = 3'000'000;

// The spec's inputs of the adversarial trial, then `set` applied to every float input.
Status adversarialInputs(RunContext& ctx, ValueSet set, double scale)
{
    const cudaStream_t stream = ctx.gpu.stream;
    KWB_RETURN_IF_ERROR(timedInputsStep(ctx, kAdversarialBase, stream));
    for (auto& in : ctx.inputs) {
        if (in.type == ElemType::I32 || in.type == ElemType::I64) continue; // indices and lengths keep their meaning
        float* f = in.type == ElemType::F32 ? in.data.asFloat() : in.asFloat.asFloat();
        KWB_RETURN_IF_ERROR(applyValueSet(f, in.count(), set, scale, 0.5f, ctx.nonce ^ static_cast<std::uint64_t>(in.index), stream));
        if (in.type != ElemType::F32) {
            KWB_RETURN_IF_ERROR(convertFromFloat(f, in.data.get(), in.count(), in.type, stream));
            KWB_RETURN_IF_ERROR(convertToFloat(in.data.get(), f, in.count(), in.type, stream));
        }
    }
    return Status::ok();
}

// Whether the reference is finite on the current inputs (computed, inspected, cleared).
Result<bool> referenceFinite(RunContext& ctx)
{
    const cudaStream_t stream = ctx.gpu.stream;
    KWB_RETURN_IF_ERROR(runReference(ctx, stream));
    bool finite = true;
    for (auto& t : ctx.outputs) {
        KWB_ASSIGN_OR_RETURN(DeviceComparison d, ctx.metrics.compare(t.reference.asFloat(), t.reference.asFloat(),
                                                     t.count(), ctx.tolerance.atol, ctx.tolerance.rtol, stream));
        if (d.metrics.refNanCount + d.metrics.refInfCount > 0) finite = false;
        KWB_CUDA_CHECK(cudaMemsetAsync(t.reference.get(), 0, static_cast<std::size_t>(t.count()) * 4, stream));
    }
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return finite;
}

} // namespace

Status adversarialStep(RunContext& ctx)
{
    RerunResult& r = ctx.result;
    for (ValueSet set : allValueSets()) {
        ctx.task.report("adversarial", 0, 1);
        AdversarialCheck a;
        a.set = std::string(valueSetName(set));
        // near_max: the largest power-of-two scale whose reference stays finite.
        double scale = 1.0;
        bool finite = false;
        for (double s : {0x1p100, 0x1p80, 0x1p60, 0x1p40, 0x1p20, 0x1p10, 1.0}) {
            KWB_RETURN_IF_ERROR(adversarialInputs(ctx, set, s));
            KWB_ASSIGN_OR_RETURN(finite, referenceFinite(ctx));
            scale = s;
            if (finite || set != ValueSet::NearMax) break;
        }
        if (!finite) {
            a.passed = true;
            a.message = "skipped: the reference is not finite on this set";
            r.adversarial.push_back(std::move(a));
            continue;
        }
        KWB_RETURN_IF_ERROR(adversarialInputs(ctx, set, scale));
        for (auto& t : ctx.outputs)
            KWB_RETURN_IF_ERROR(CoverageScanner::fill(t.data.get(), t.count(), elemBytes(t.type), 1, ctx.gpu.stream));
        KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
        if (ctx.stopped) return Status::ok();
        KWB_ASSIGN_OR_RETURN(auto metrics, compareWithReference(ctx, {}));
        a.passed = true;
        // Relative L2, not allclose: scaled inputs scale the errors of honest
        // reorderings too (a GEMM's cancelling sums at 2^60 miss any atol), while
        // a wrong kernel (ReLU as the identity on signed inputs) is off by O(1).
        const double bound = ctx.request.problem.precision == DType::F32 ? 1e-3 : 3e-2;
        for (std::size_t i = 0; i < metrics.size(); ++i) {
            const OutputMetrics& m = metrics[i];
            a.relL2 = std::max(a.relL2, m.relL2Error);
            a.maxAbsError = std::max(a.maxAbsError, m.maxAbsError);
            const bool ok = m.relL2Error <= bound && m.nanCount + m.infCount == 0;
            if (!ok && a.passed) {
                a.passed = false;
                a.message = "output '" + ctx.outputs[i].spec.name + "': relative L2 error above " + std::to_string(bound)
                    + ", " + std::to_string(m.outOfTolerance) + " of " + std::to_string(m.count) + " elements out of tolerance"
                    + (m.nanCount + m.infCount > 0 ? ", " + std::to_string(m.nanCount + m.infCount) + " NaN/Inf" : std::string())
                    + (set == ValueSet::NearMax ? " (inputs scaled by 2^" + std::to_string(static_cast<int>(std::log2(scale))) + ")" : std::string());
            }
        }
        r.adversarial.push_back(std::move(a));
    }
    // Determinism: three runs on the same inputs, bitwise (a note: float atomics are honest).
    {
        AdversarialCheck a;
        a.set = "determinism";
        a.passed = true;
        std::vector<DeviceBuffer> first(ctx.outputs.size());
        std::int64_t differing = 0;
        for (int run = 0; run < 3; ++run) {
            KWB_RETURN_IF_ERROR(timedInputsStep(ctx, kAdversarialBase + 1, ctx.gpu.stream));
            KWB_RETURN_IF_ERROR(runCandidateChecked(ctx));
            if (ctx.stopped) return Status::ok();
            for (std::size_t i = 0; i < ctx.outputs.size(); ++i) {
                const Tensor& t = ctx.outputs[i];
                const std::int64_t bytes = t.count() * elemBytes(t.type);
                if (run == 0) {
                    KWB_RETURN_IF_ERROR(first[i].allocate(bytes));
                    KWB_CUDA_CHECK(cudaMemcpyAsync(first[i].get(), t.data.get(), static_cast<std::size_t>(bytes),
                        cudaMemcpyDeviceToDevice, ctx.gpu.stream));
                } else {
                    KWB_ASSIGN_OR_RETURN(std::int64_t d, ctx.metrics.countDiffering(first[i].get(), t.data.get(),
                                                             t.count(), elemBytes(t.type), ctx.gpu.stream));
                    differing = std::max(differing, d);
                }
            }
        }
        if (differing > 0) {
            a.passed = false;
            a.message = std::to_string(differing) + " elements differ bitwise between three runs on the same inputs";
        }
        r.adversarial.push_back(std::move(a));
    }
    r.markCheck(check::kAdversarial);
    return Status::ok();
}

Status serveRun(RunContext& ctx)
{
    RerunResult& r = ctx.result;
    r.status = RerunStatus::Ok;
    KWB_RETURN_IF_ERROR(prepareStep(ctx));
    const std::string& builtin = ctx.request.problem.reference.builtin;
    if (!isOwnReference(builtin) && builtin != "gemm" && builtin != "diag_matmul") {
        r.status = RerunStatus::Unsupported;
        r.message = "kwb-runner has no built-in reference named '" + builtin + "'";
        return Status::ok();
    }
    KWB_RETURN_IF_ERROR(compileStep(ctx));
    if (ctx.stopped) return Status::ok();
    if (Status s = allocateStep(ctx); !s.isOk()) return recordFailure(ctx, s, RerunStatus::InternalError);
    // Every step below may surface an asynchronous fault of the candidate: classify, don't propagate.
    for (auto step : {&coverageStep, &correctnessStep, &timingStep}) {
        if (step == &timingStep && ctx.correctnessOnly) break;
        if (ctx.task.cancelled()) return Status(ErrorCode::Cancelled, "cancelled");
        Status s = step(ctx);
        if (!s.isOk()) {
            if (s.code() == ErrorCode::Cancelled) return s;
            return recordFailure(ctx, s, RerunStatus::InternalError);
        }
        if (ctx.stopped) return Status::ok();
        if (step == &coverageStep) r.markCheck(check::kCoverage);
        if (step == &correctnessStep) {
            r.markCheck(check::kCorrectness);
            r.markCheck(check::kDeterminism);
            r.markCheck(check::kInputHashes);
        }
    }
    if (ctx.request.options.adversarial && !ctx.correctnessOnly) {
        Status s = adversarialStep(ctx);
        if (!s.isOk()) {
            if (s.code() == ErrorCode::Cancelled) return s;
            return recordFailure(ctx, s, RerunStatus::InternalError);
        }
    }
    return Status::ok();
}

} // namespace kwb::gpu
