#include "gpu/references/reference_kernels.h"

#include <algorithm>
#include <cmath>

#include "gpu/device/gpu_check.h"
#include "gpu/references/suite_references.h"

namespace kwb::gpu {

namespace {

constexpr int kRowThreads = 256;

std::int64_t product(const std::vector<std::int64_t>& shape)
{
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
}

// [rows, cols] view: cols = last extent (1 for rank 0).
void rowView(const std::vector<std::int64_t>& shape, std::int64_t& rows, std::int64_t& cols)
{
    cols = shape.empty() ? 1 : shape.back();
    rows = cols == 0 ? 0 : product(shape) / cols;
}

enum class Unary : int { Relu, LeakyRelu, Scale, Gelu, Sigmoid, Tanh };
enum class Binary : int { Add, Mul };
enum class RowOp : int { Softmax, LogSoftmax, LayerNorm, RmsNorm, L2Norm };
enum class RowReduce : int { Sum, Mean, Max, Min };

__global__ void unaryKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t n, Unary op, float p)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        float r = 0;
        switch (op) {
        case Unary::Relu: r = v > 0.0f ? v : 0.0f; break;
        case Unary::LeakyRelu: r = v >= 0.0f ? v : p * v; break;
        case Unary::Scale: r = p * v; break;
        case Unary::Gelu: r = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f)); break;
        case Unary::Sigmoid: r = 1.0f / (1.0f + expf(-v)); break;
        case Unary::Tanh: r = tanhf(v); break;
        }
        out[i] = r;
    }
}

__global__ void binaryKernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
    std::int64_t n, Binary op)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = op == Binary::Add ? a[i] + b[i] : a[i] * b[i];
}

// Block-wide reductions over doubles; every thread gets the result.
__device__ double blockSum(double v, double* shared)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    double t = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) t += shared[w];
    return t;
}

__device__ double blockMax(double v, double* shared)
{
    for (int off = 16; off > 0; off >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
    __syncthreads();
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    double t = -INFINITY;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) t = fmax(t, shared[w]);
    return t;
}

__device__ double blockMin(double v, double* shared)
{
    return -blockMax(-v, shared);
}

__global__ void rowOpKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t rows, std::int64_t cols,
    RowOp op, double eps)
{
    __shared__ double shared[32];
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* orow = out + r * cols;
        if (op == RowOp::Softmax || op == RowOp::LogSoftmax) {
            // float exponentials (about 1 ulp) with a double sum: accurate and still memory-bound.
            double md = -INFINITY;
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) md = fmax(md, static_cast<double>(xr[c]));
            const float m = static_cast<float>(blockMax(md, shared));
            double s = 0;
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
            s = blockSum(s, shared);
            const float inv = static_cast<float>(1.0 / s);
            const float logS = static_cast<float>(log(s));
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
                const float z = xr[c] - m;
                orow[c] = op == RowOp::Softmax ? expf(z) * inv : z - logS;
            }
        } else if (op == RowOp::LayerNorm) {
            double s = 0;
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
            const double mean = blockSum(s, shared) / static_cast<double>(cols);
            double v = 0;
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
                const double d = xr[c] - mean;
                v += d * d;
            }
            const double var = blockSum(v, shared) / static_cast<double>(cols);
            const double inv = 1.0 / sqrt(var + eps);
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x)
                orow[c] = static_cast<float>((xr[c] - mean) * inv);
        } else {
            double s = 0;
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += static_cast<double>(xr[c]) * xr[c];
            s = blockSum(s, shared);
            const double inv = op == RowOp::RmsNorm ? 1.0 / sqrt(s / static_cast<double>(cols) + eps) : 1.0 / sqrt(s);
            for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) orow[c] = static_cast<float>(xr[c] * inv);
        }
    }
}

__global__ void rowReduceKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t rows,
    std::int64_t cols, RowReduce op)
{
    __shared__ double shared[32];
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        double acc = op == RowReduce::Max ? -INFINITY : op == RowReduce::Min ? INFINITY : 0.0;
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const double v = xr[c];
            acc = op == RowReduce::Max ? fmax(acc, v) : op == RowReduce::Min ? fmin(acc, v) : acc + v;
        }
        double t = op == RowReduce::Max ? blockMax(acc, shared) : op == RowReduce::Min ? blockMin(acc, shared)
                                                                                        : blockSum(acc, shared);
        if (op == RowReduce::Mean) t /= static_cast<double>(cols);
        if (threadIdx.x == 0) out[r] = static_cast<float>(t);
    }
}

// Inclusive scan of one row per block: each thread sums a contiguous segment,
// the block scans the segment sums, then each thread writes its segment.
__global__ void cumsumKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t rows, std::int64_t cols)
{
    __shared__ double seg[kRowThreads];
    const std::int64_t per = (cols + blockDim.x - 1) / blockDim.x;
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* orow = out + r * cols;
        const std::int64_t begin = threadIdx.x * per;
        const std::int64_t end = min(cols, begin + per);
        double s = 0;
        for (std::int64_t c = begin; c < end; ++c) s += xr[c];
        __syncthreads();
        seg[threadIdx.x] = s;
        __syncthreads();
        if (threadIdx.x == 0) {
            double run = 0;
            for (unsigned t = 0; t < blockDim.x; ++t) {
                const double v = seg[t];
                seg[t] = run;
                run += v;
            }
        }
        __syncthreads();
        double run = seg[threadIdx.x];
        for (std::int64_t c = begin; c < end; ++c) {
            run += xr[c];
            orow[c] = static_cast<float>(run);
        }
    }
}

__global__ void mseKernel(const float* __restrict__ a, const float* __restrict__ b, std::int64_t n,
    double* __restrict__ acc)
{
    __shared__ double shared[32];
    double s = 0;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double d = static_cast<double>(a[i]) - b[i];
        s += d * d;
    }
    s = blockSum(s, shared);
    if (threadIdx.x == 0) atomicAdd(acc, s);
}

__global__ void mseFinishKernel(const double* __restrict__ acc, float* __restrict__ out, std::int64_t n)
{
    out[0] = static_cast<float>(acc[0] / static_cast<double>(n));
}

unsigned gridFor(std::int64_t n)
{
    return static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 8192));
}

unsigned rowGrid(std::int64_t rows)
{
    return static_cast<unsigned>(std::clamp<std::int64_t>(rows, 1, 65535));
}

double param(const std::map<std::string, double>& params, const char* name, double fallback)
{
    auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
}

Status arity(const std::string& name, const std::vector<RefInput>& in, const std::vector<RefOutput>& out,
    std::size_t nIn, std::size_t nOut)
{
    if (in.size() != nIn || out.size() != nOut)
        return Status(ErrorCode::InvalidArgument, "reference " + name + " takes " + std::to_string(nIn) +
                                                      " input(s) and " + std::to_string(nOut) + " output(s), got " +
                                                      std::to_string(in.size()) + " and " + std::to_string(out.size()));
    return Status::ok();
}

Status sameSize(const std::string& name, std::int64_t a, std::int64_t b)
{
    if (a != b)
        return Status(ErrorCode::InvalidArgument, "reference " + name + ": element counts differ (" +
                                                      std::to_string(a) + " vs " + std::to_string(b) + ")");
    return Status::ok();
}

} // namespace

namespace {
__global__ void expandDiagonalKernel(const float* a, std::int64_t n, float* out)
{
    const std::int64_t total = n * n;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
        out[i] = (i / n == i % n) ? a[i / n] : 0.0f;
}
} // namespace

Status expandDiagonal(const float* a, std::int64_t n, float* out, cudaStream_t stream)
{
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>((n * n + 255) / 256, 65536));
    expandDiagonalKernel<<<std::max(grid, 1u), 256, 0, stream>>>(a, n, out);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

const std::vector<std::string>& ownReferenceNames()
{
    static const std::vector<std::string> names{"vector_add", "vector_mul", "relu", "leaky_relu", "scale", "gelu",
        "sigmoid", "tanh", "softmax_rows", "log_softmax_rows", "layernorm_rows", "rmsnorm_rows", "l2norm_rows",
        "sum_rows", "mean_rows", "max_rows", "min_rows", "cumsum_rows", "mse"};
    static const std::vector<std::string> withSuite = [] {
        std::vector<std::string> all = names;
        all.insert(all.end(), suiteReferenceNames().begin(), suiteReferenceNames().end());
        return all;
    }();
    return withSuite;
}

bool isOwnReference(const std::string& name)
{
    const auto& n = ownReferenceNames();
    return std::find(n.begin(), n.end(), name) != n.end();
}

Status runOwnReference(const std::string& name, const std::map<std::string, double>& params,
    const std::vector<RefInput>& inputs, const std::vector<RefOutput>& outputs, cudaStream_t stream)
{
    static const std::map<std::string, Unary> unary{{"relu", Unary::Relu}, {"leaky_relu", Unary::LeakyRelu},
        {"scale", Unary::Scale}, {"gelu", Unary::Gelu}, {"sigmoid", Unary::Sigmoid}, {"tanh", Unary::Tanh}};
    static const std::map<std::string, RowOp> rowOps{{"softmax_rows", RowOp::Softmax},
        {"log_softmax_rows", RowOp::LogSoftmax}, {"layernorm_rows", RowOp::LayerNorm},
        {"rmsnorm_rows", RowOp::RmsNorm}, {"l2norm_rows", RowOp::L2Norm}};
    static const std::map<std::string, RowReduce> reduces{{"sum_rows", RowReduce::Sum},
        {"mean_rows", RowReduce::Mean}, {"max_rows", RowReduce::Max}, {"min_rows", RowReduce::Min}};

    if (isSuiteReference(name)) return runSuiteReference(name, params, inputs, outputs, stream);
    if (auto it = unary.find(name); it != unary.end()) {
        KWB_RETURN_IF_ERROR(arity(name, inputs, outputs, 1, 1));
        const std::int64_t n = product(inputs[0].shape);
        KWB_RETURN_IF_ERROR(sameSize(name, n, product(outputs[0].shape)));
        float p = 0;
        if (it->second == Unary::LeakyRelu) p = static_cast<float>(param(params, "negative_slope", 0.01));
        if (it->second == Unary::Scale) p = static_cast<float>(param(params, "alpha", 1.0));
        if (n > 0) unaryKernel<<<gridFor(n), 256, 0, stream>>>(inputs[0].data, outputs[0].data, n, it->second, p);
    } else if (name == "vector_add" || name == "vector_mul") {
        KWB_RETURN_IF_ERROR(arity(name, inputs, outputs, 2, 1));
        const std::int64_t n = product(inputs[0].shape);
        KWB_RETURN_IF_ERROR(sameSize(name, n, product(inputs[1].shape)));
        KWB_RETURN_IF_ERROR(sameSize(name, n, product(outputs[0].shape)));
        if (n > 0)
            binaryKernel<<<gridFor(n), 256, 0, stream>>>(inputs[0].data, inputs[1].data, outputs[0].data, n,
                name == "vector_add" ? Binary::Add : Binary::Mul);
    } else if (auto ro = rowOps.find(name); ro != rowOps.end()) {
        KWB_RETURN_IF_ERROR(arity(name, inputs, outputs, 1, 1));
        std::int64_t rows = 0;
        std::int64_t cols = 0;
        rowView(inputs[0].shape, rows, cols);
        KWB_RETURN_IF_ERROR(sameSize(name, rows * cols, product(outputs[0].shape)));
        if (rows > 0)
            rowOpKernel<<<rowGrid(rows), kRowThreads, 0, stream>>>(inputs[0].data, outputs[0].data, rows, cols,
                ro->second, param(params, "eps", 1e-5));
    } else if (auto rr = reduces.find(name); rr != reduces.end()) {
        KWB_RETURN_IF_ERROR(arity(name, inputs, outputs, 1, 1));
        std::int64_t rows = 0;
        std::int64_t cols = 0;
        rowView(inputs[0].shape, rows, cols);
        KWB_RETURN_IF_ERROR(sameSize(name, rows, product(outputs[0].shape)));
        if (rows > 0)
            rowReduceKernel<<<rowGrid(rows), kRowThreads, 0, stream>>>(inputs[0].data, outputs[0].data, rows, cols,
                rr->second);
    } else if (name == "cumsum_rows") {
        KWB_RETURN_IF_ERROR(arity(name, inputs, outputs, 1, 1));
        std::int64_t rows = 0;
        std::int64_t cols = 0;
        rowView(inputs[0].shape, rows, cols);
        KWB_RETURN_IF_ERROR(sameSize(name, rows * cols, product(outputs[0].shape)));
        if (rows > 0) cumsumKernel<<<rowGrid(rows), kRowThreads, 0, stream>>>(inputs[0].data, outputs[0].data, rows, cols);
    } else if (name == "mse") {
        KWB_RETURN_IF_ERROR(arity(name, inputs, outputs, 2, 1));
        const std::int64_t n = product(inputs[0].shape);
        KWB_RETURN_IF_ERROR(sameSize(name, n, product(inputs[1].shape)));
        KWB_RETURN_IF_ERROR(sameSize(name, 1, product(outputs[0].shape)));
        double* acc = nullptr;
        KWB_CUDA_CHECK(cudaMallocAsync(&acc, sizeof(double), stream));
        KWB_CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof(double), stream));
        if (n > 0) mseKernel<<<gridFor(n), 256, 0, stream>>>(inputs[0].data, inputs[1].data, n, acc);
        mseFinishKernel<<<1, 1, 0, stream>>>(acc, outputs[0].data, std::max<std::int64_t>(n, 1));
        KWB_CUDA_CHECK(cudaFreeAsync(acc, stream));
    } else {
        return Status(ErrorCode::Unsupported, "no built-in reference named '" + name + "'");
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

} // namespace kwb::gpu
