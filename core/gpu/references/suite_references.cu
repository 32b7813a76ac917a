#include "gpu/references/suite_references.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gpu/references/cublas_reference.h"
#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

constexpr int kThreads = 256;

std::int64_t product(const std::vector<std::int64_t>& shape, std::size_t begin, std::size_t end)
{
    std::int64_t n = 1;
    for (std::size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
    return n;
}

std::int64_t product(const std::vector<std::int64_t>& shape)
{
    return product(shape, 0, shape.size());
}

double param(const std::map<std::string, double>& params, const char* name, double fallback)
{
    auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
}

Status invalid(const std::string& name, const std::string& why)
{
    return Status(ErrorCode::InvalidArgument, "reference " + name + ": " + why);
}

Status arity(const std::string& name, const std::vector<RefInput>& in, const std::vector<RefOutput>& out,
    std::size_t nIn, std::size_t nOut)
{
    if (in.size() != nIn || out.size() != nOut)
        return invalid(name, "takes " + std::to_string(nIn) + " input(s) and " + std::to_string(nOut) +
                                 " output(s), got " + std::to_string(in.size()) + " and " + std::to_string(out.size()));
    return Status::ok();
}

Status expectCount(const std::string& name, const char* what, std::int64_t got, std::int64_t want)
{
    if (got != want)
        return invalid(name, std::string(what) + " has " + std::to_string(got) + " elements, expected " +
                                 std::to_string(want));
    return Status::ok();
}

unsigned gridFor(std::int64_t n)
{
    return static_cast<unsigned>(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, 65535));
}

// ---------------------------------------------------------------------------
// Reductions over one dimension of x viewed as [A, R, B]: one thread per
// (a, b), walking r; neighbouring threads read neighbouring b, so every load is
// coalesced without any cross-thread reduction.

enum class DimReduce : int { Sum, Min };

__global__ void reduceDimKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t a, std::int64_t r,
    std::int64_t b, DimReduce op)
{
    const std::int64_t total = a * b;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < total; o += stride) {
        const std::int64_t ia = o / b;
        const std::int64_t ib = o % b;
        const float* p = x + ia * r * b + ib;
        double acc = op == DimReduce::Sum ? 0.0 : INFINITY;
        for (std::int64_t k = 0; k < r; ++k) {
            const double v = p[k * b];
            acc = op == DimReduce::Sum ? acc + v : fmin(acc, v);
        }
        out[o] = static_cast<float>(acc);
    }
}

__global__ void rmsnormDimKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t a, std::int64_t r,
    std::int64_t b, double eps)
{
    const std::int64_t total = a * b;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < total; o += stride) {
        const std::int64_t base = (o / b) * r * b + o % b;
        double s = 0;
        for (std::int64_t k = 0; k < r; ++k) {
            const double v = x[base + k * b];
            s += v * v;
        }
        const double inv = 1.0 / sqrt(s / static_cast<double>(r) + eps);
        for (std::int64_t k = 0; k < r; ++k) out[base + k * b] = static_cast<float>(x[base + k * b] * inv);
    }
}

// ---------------------------------------------------------------------------
// Whole-tensor and wide-row reductions: fixed-size per-block partial sums in
// float64, then one block combines them in a fixed order (deterministic).

__device__ double blockSum(double v, double* shared)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    double t = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) t += shared[w];
    __syncthreads();
    return t;
}

// partial[row * chunks + chunk] = sum over the chunk of (x - center[row])^2 (square) or x (plain).
__global__ void chunkSumKernel(const float* __restrict__ x, std::int64_t cols, std::int64_t chunkLen,
    const double* __restrict__ center, bool square, double* __restrict__ partial)
{
    __shared__ double shared[32];
    const std::int64_t row = blockIdx.y;
    const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * chunkLen;
    const std::int64_t end = min(cols, begin + chunkLen);
    const float* xr = x + row * cols;
    const double c = center ? center[row] : 0.0;
    double s = 0;
    for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        const double v = static_cast<double>(xr[i]) - c;
        s += square ? v * v : v;
    }
    s = blockSum(s, shared);
    if (threadIdx.x == 0) partial[row * gridDim.x + blockIdx.x] = s;
}

// result[row] = scale * sum of the row's partials (one block per row).
__global__ void combineKernel(const double* __restrict__ partial, std::int64_t chunks, double scale,
    double* __restrict__ result)
{
    __shared__ double shared[32];
    double s = 0;
    for (std::int64_t i = threadIdx.x; i < chunks; i += blockDim.x) s += partial[blockIdx.x * chunks + i];
    s = blockSum(s, shared);
    if (threadIdx.x == 0) result[blockIdx.x] = s * scale;
}

// out = (x - mean[row]) / sqrt(var[row] + eps); mean == nullptr means 0 and
// var holds the mean square (eps 0 gives x / sqrt(sum sq) when var = sum sq).
__global__ void normalizeRowsKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t rows,
    std::int64_t cols, const double* __restrict__ mean, const double* __restrict__ var, double eps)
{
    const std::int64_t n = rows * cols;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const std::int64_t row = i / cols;
        const double m = mean ? mean[row] : 0.0;
        out[i] = static_cast<float>((x[i] - m) / sqrt(var[row] + eps));
    }
}

// Row statistics of x [rows, cols] into mean/var (device arrays of `rows`),
// biased variance from a second pass around the mean (no cancellation).
Status wideRowStats(const float* x, std::int64_t rows, std::int64_t cols, bool centered, double* mean, double* var,
    cudaStream_t stream)
{
    if (rows > 65535) return Status(ErrorCode::Unsupported, "wide-row reference: more than 65535 rows");
    const std::int64_t chunkLen = 8192;
    const std::int64_t chunks = std::max<std::int64_t>(1, (cols + chunkLen - 1) / chunkLen);
    if (chunks > 0x7fffffff) return Status(ErrorCode::Unsupported, "wide-row reference: row too long");
    double* partial = nullptr;
    KWB_CUDA_CHECK(cudaMallocAsync(&partial, sizeof(double) * static_cast<std::size_t>(rows * chunks), stream));
    const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(rows));
    const double inv = cols > 0 ? 1.0 / static_cast<double>(cols) : 0.0;
    if (centered) {
        chunkSumKernel<<<grid, kThreads, 0, stream>>>(x, cols, chunkLen, nullptr, false, partial);
        combineKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(partial, chunks, inv, mean);
        chunkSumKernel<<<grid, kThreads, 0, stream>>>(x, cols, chunkLen, mean, true, partial);
        combineKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(partial, chunks, inv, var);
    } else {
        chunkSumKernel<<<grid, kThreads, 0, stream>>>(x, cols, chunkLen, nullptr, true, partial);
        combineKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(partial, chunks, 1.0, var);
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    KWB_CUDA_CHECK(cudaFreeAsync(partial, stream));
    return Status::ok();
}

Status normalizeWide(const float* x, float* out, std::int64_t rows, std::int64_t cols, bool centered, double eps,
    cudaStream_t stream)
{
    double* stats = nullptr;
    KWB_CUDA_CHECK(cudaMallocAsync(&stats, sizeof(double) * static_cast<std::size_t>(2 * rows), stream));
    KWB_RETURN_IF_ERROR(wideRowStats(x, rows, cols, centered, stats, stats + rows, stream));
    normalizeRowsKernel<<<gridFor(rows * cols), kThreads, 0, stream>>>(x, out, rows, cols,
        centered ? stats : nullptr, stats + rows, eps);
    KWB_CUDA_CHECK(cudaGetLastError());
    KWB_CUDA_CHECK(cudaFreeAsync(stats, stream));
    return Status::ok();
}

// ---------------------------------------------------------------------------
// Depthwise convolution: one thread per output element, direct loop.

__global__ void depthwiseConvKernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out,
    std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t wd, std::int64_t k, std::int64_t ho, std::int64_t wo,
    std::int64_t stride, std::int64_t pad)
{
    const std::int64_t total = n * c * ho * wo;
    const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < total; o += step) {
        const std::int64_t ox = o % wo;
        const std::int64_t oy = (o / wo) % ho;
        const std::int64_t plane = o / (wo * ho); // n * C + channel
        const std::int64_t ch = plane % c;
        const float* xp = x + plane * h * wd;
        const float* wp = w + ch * k * k;
        double acc = 0;
        for (std::int64_t ky = 0; ky < k; ++ky) {
            const std::int64_t iy = oy * stride - pad + ky;
            if (iy < 0 || iy >= h) continue;
            for (std::int64_t kx = 0; kx < k; ++kx) {
                const std::int64_t ix = ox * stride - pad + kx;
                if (ix < 0 || ix >= wd) continue;
                acc += static_cast<double>(xp[iy * wd + ix]) * wp[ky * k + kx];
            }
        }
        out[o] = static_cast<float>(acc);
    }
}

// ---------------------------------------------------------------------------
// Embedding bags: one block per bag, threads over the embedding dimension.

enum class BagMode : int { Sum, Mean, WeightedSum };

__global__ void embeddingBagKernel(const float* __restrict__ table, std::int64_t rows, std::int64_t dim,
    const float* __restrict__ idx, const float* __restrict__ weights, std::int64_t bags, std::int64_t pooling,
    std::int64_t tables, float* __restrict__ out, BagMode mode)
{
    // blockIdx.x = bag, blockIdx.y = table (tables > 1: idx [T, B, L], out [B, T*D]).
    const std::int64_t bag = blockIdx.x;
    const std::int64_t t = blockIdx.y;
    const float* ib = idx + (t * bags + bag) * pooling;
    const float* wb = weights ? weights + bag * pooling : nullptr;
    float* ob = out + bag * tables * dim + t * dim;
    for (std::int64_t d = threadIdx.x; d < dim; d += blockDim.x) {
        double acc = 0;
        bool bad = false;
        for (std::int64_t l = 0; l < pooling; ++l) {
            const float f = ib[l];
            const std::int64_t row = static_cast<std::int64_t>(f);
            if (!(f >= 0.0f) || row >= rows || static_cast<float>(row) != f) {
                bad = true;
                continue;
            }
            const double v = table[(t * rows + row) * dim + d];
            acc += wb ? v * wb[l] : v;
        }
        if (mode == BagMode::Mean && pooling > 0) acc /= static_cast<double>(pooling);
        ob[d] = bad ? NAN : static_cast<float>(acc);
    }
}

// ---------------------------------------------------------------------------
// DLRM pairwise dot interaction: one block per sample, the sample's F x D
// features staged in shared memory, one thread per (i, j) pair. Rows are
// padded to D + 1 floats: with D a multiple of 32 the threads of a warp,
// reading element k of different rows, would otherwise all hit one bank.

__global__ void dotInteractionKernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t f,
    std::int64_t d)
{
    extern __shared__ float feat[];
    const std::int64_t b = blockIdx.x;
    const std::int64_t stride = d + 1;
    const float* xb = x + b * f * d;
    for (std::int64_t i = threadIdx.x; i < f * d; i += blockDim.x) feat[(i / d) * stride + i % d] = xb[i];
    __syncthreads();
    const std::int64_t pairs = f * (f - 1) / 2;
    float* ob = out + b * pairs;
    for (std::int64_t p = threadIdx.x; p < pairs; p += blockDim.x) {
        // p = i * (i - 1) / 2 + j with 0 <= j < i.
        std::int64_t i = 1;
        while ((i + 1) * i / 2 <= p) ++i;
        const std::int64_t j = p - i * (i - 1) / 2;
        double acc = 0;
        for (std::int64_t k = 0; k < d; ++k) acc += static_cast<double>(feat[i * stride + k]) * feat[j * stride + k];
        ob[p] = static_cast<float>(acc);
    }
}

__global__ void biasReluKernel(float* __restrict__ y, const float* __restrict__ bias, std::int64_t m, std::int64_t n)
{
    const std::int64_t total = m * n;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
        const float v = y[i] + bias[i % n];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

// [A, R, B] view of `shape` around dimension `dim`.
Status dimView(const std::string& name, const std::vector<std::int64_t>& shape, double dimParam, std::int64_t& a,
    std::int64_t& r, std::int64_t& b)
{
    const auto dim = static_cast<std::int64_t>(dimParam);
    if (dim < 0 || dim >= static_cast<std::int64_t>(shape.size()) || static_cast<double>(dim) != dimParam)
        return invalid(name, "dim " + std::to_string(dimParam) + " is not a dimension of a rank-" +
                                 std::to_string(shape.size()) + " input");
    const auto d = static_cast<std::size_t>(dim);
    a = product(shape, 0, d);
    r = shape[d];
    b = product(shape, d + 1, shape.size());
    return Status::ok();
}

Status embeddingBag(const std::string& name, BagMode mode, const std::vector<RefInput>& in,
    const std::vector<RefOutput>& out, cudaStream_t stream)
{
    KWB_RETURN_IF_ERROR(arity(name, in, out, mode == BagMode::WeightedSum ? 3 : 2, 1));
    if (in[0].shape.size() != 2 || in[1].shape.size() != 2) return invalid(name, "expects table [R, D] and indices [B, L]");
    const std::int64_t rows = in[0].shape[0];
    const std::int64_t dim = in[0].shape[1];
    const std::int64_t bags = in[1].shape[0];
    const std::int64_t pooling = in[1].shape[1];
    if (mode == BagMode::WeightedSum) KWB_RETURN_IF_ERROR(expectCount(name, "weights", product(in[2].shape), bags * pooling));
    KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), bags * dim));
    if (bags > 0x7fffffff) return Status(ErrorCode::Unsupported, "reference " + name + ": too many bags");
    if (bags > 0 && dim > 0)
        embeddingBagKernel<<<dim3(static_cast<unsigned>(bags), 1), 128, 0, stream>>>(in[0].data, rows, dim, in[1].data,
            mode == BagMode::WeightedSum ? in[2].data : nullptr, bags, pooling, 1, out[0].data, mode);
    return Status::ok();
}

CublasReference& cublas()
{
    // Executor thread only (see the header), so one handle is enough.
    static CublasReference ref;
    return ref;
}

} // namespace

const std::vector<std::string>& suiteReferenceNames()
{
    static const std::vector<std::string> names{"sum_dim", "min_dim", "rmsnorm_dim", "frobenius_normalize",
        "layernorm_wide", "depthwise_conv2d", "embedding_bag_sum", "embedding_bag_mean", "embedding_bag_weighted_sum",
        "embedding_bag_multi_sum", "dot_interaction", "linear_bias_relu"};
    return names;
}

bool isSuiteReference(const std::string& name)
{
    const auto& n = suiteReferenceNames();
    return std::find(n.begin(), n.end(), name) != n.end();
}

Status runSuiteReference(const std::string& name, const std::map<std::string, double>& params,
    const std::vector<RefInput>& in, const std::vector<RefOutput>& out, cudaStream_t stream)
{
    if (name == "sum_dim" || name == "min_dim" || name == "rmsnorm_dim") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 1, 1));
        std::int64_t a = 0, r = 0, b = 0;
        KWB_RETURN_IF_ERROR(dimView(name, in[0].shape, param(params, "dim", 1.0), a, r, b));
        if (name == "rmsnorm_dim") {
            KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), a * r * b));
            if (a * b > 0)
                rmsnormDimKernel<<<gridFor(a * b), kThreads, 0, stream>>>(in[0].data, out[0].data, a, r, b,
                    param(params, "eps", 1e-5));
        } else {
            KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), a * b));
            if (a * b > 0)
                reduceDimKernel<<<gridFor(a * b), kThreads, 0, stream>>>(in[0].data, out[0].data, a, r, b,
                    name == "sum_dim" ? DimReduce::Sum : DimReduce::Min);
        }
    } else if (name == "frobenius_normalize") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 1, 1));
        const std::int64_t n = product(in[0].shape);
        KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), n));
        if (n > 0) KWB_RETURN_IF_ERROR(normalizeWide(in[0].data, out[0].data, 1, n, false, 0.0, stream));
    } else if (name == "layernorm_wide") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 1, 1));
        const std::int64_t n = product(in[0].shape);
        // Rows = the leading extent; the normalised shape is everything after it (KernelBench 40).
        const std::int64_t rows = in[0].shape.empty() ? 1 : in[0].shape[0];
        const std::int64_t cols = rows > 0 ? n / rows : 0;
        KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), n));
        if (n > 0) KWB_RETURN_IF_ERROR(normalizeWide(in[0].data, out[0].data, rows, cols, true, param(params, "eps", 1e-5), stream));
    } else if (name == "depthwise_conv2d") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 2, 1));
        const auto& xs = in[0].shape;
        const auto& ws = in[1].shape;
        if (xs.size() != 4 || ws.size() != 4 || ws[1] != 1 || ws[0] != xs[1] || ws[2] != ws[3])
            return invalid(name, "expects x [N, C, H, W] and w [C, 1, K, K]");
        const auto stride = static_cast<std::int64_t>(param(params, "stride", 1));
        const auto pad = static_cast<std::int64_t>(param(params, "padding", 0));
        if (stride < 1 || pad < 0) return invalid(name, "stride must be >= 1 and padding >= 0");
        const std::int64_t k = ws[2];
        const std::int64_t ho = (xs[2] + 2 * pad - k) / stride + 1;
        const std::int64_t wo = (xs[3] + 2 * pad - k) / stride + 1;
        if (ho <= 0 || wo <= 0) return invalid(name, "kernel larger than the padded input");
        KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), xs[0] * xs[1] * ho * wo));
        depthwiseConvKernel<<<gridFor(xs[0] * xs[1] * ho * wo), kThreads, 0, stream>>>(in[0].data, in[1].data,
            out[0].data, xs[0], xs[1], xs[2], xs[3], k, ho, wo, stride, pad);
    } else if (name == "embedding_bag_sum") {
        KWB_RETURN_IF_ERROR(embeddingBag(name, BagMode::Sum, in, out, stream));
    } else if (name == "embedding_bag_mean") {
        KWB_RETURN_IF_ERROR(embeddingBag(name, BagMode::Mean, in, out, stream));
    } else if (name == "embedding_bag_weighted_sum") {
        KWB_RETURN_IF_ERROR(embeddingBag(name, BagMode::WeightedSum, in, out, stream));
    } else if (name == "embedding_bag_multi_sum") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 2, 1));
        if (in[0].shape.size() != 2 || in[1].shape.size() != 3)
            return invalid(name, "expects tables [T*R, D] and indices [T, B, L]");
        const std::int64_t tables = in[1].shape[0];
        const std::int64_t bags = in[1].shape[1];
        const std::int64_t pooling = in[1].shape[2];
        const std::int64_t dim = in[0].shape[1];
        if (tables <= 0 || in[0].shape[0] % tables != 0) return invalid(name, "table rows are not a multiple of T");
        const std::int64_t rows = in[0].shape[0] / tables;
        KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), bags * tables * dim));
        if (bags > 0x7fffffff || tables > 65535) return Status(ErrorCode::Unsupported, "reference " + name + ": too many bags or tables");
        if (bags > 0 && dim > 0)
            embeddingBagKernel<<<dim3(static_cast<unsigned>(bags), static_cast<unsigned>(tables)), 128, 0, stream>>>(
                in[0].data, rows, dim, in[1].data, nullptr, bags, pooling, tables, out[0].data, BagMode::Sum);
    } else if (name == "dot_interaction") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 1, 1));
        if (in[0].shape.size() != 3) return invalid(name, "expects x [B, F, D]");
        const std::int64_t b = in[0].shape[0];
        const std::int64_t f = in[0].shape[1];
        const std::int64_t d = in[0].shape[2];
        KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), b * (f * (f - 1) / 2)));
        const std::int64_t shared = f * (d + 1) * static_cast<std::int64_t>(sizeof(float));
        if (shared > 48 * 1024) return Status(ErrorCode::Unsupported, "reference " + name + ": F * (D + 1) above 12288");
        if (b > 0x7fffffff) return Status(ErrorCode::Unsupported, "reference " + name + ": batch too large");
        if (b > 0 && f > 1)
            dotInteractionKernel<<<static_cast<unsigned>(b), 128, static_cast<std::size_t>(shared), stream>>>(
                in[0].data, out[0].data, f, d);
    } else if (name == "linear_bias_relu") {
        KWB_RETURN_IF_ERROR(arity(name, in, out, 3, 1));
        if (in[0].shape.size() != 2 || in[1].shape.size() != 2 || in[0].shape[1] != in[1].shape[1])
            return invalid(name, "expects x [M, K] and w [N, K]");
        GemmShape s;
        s.m = in[0].shape[0];
        s.k = in[0].shape[1];
        s.n = in[1].shape[0];
        s.transB = true;
        KWB_RETURN_IF_ERROR(expectCount(name, "bias", product(in[2].shape), s.n));
        KWB_RETURN_IF_ERROR(expectCount(name, "output", product(out[0].shape), s.m * s.n));
        KWB_RETURN_IF_ERROR(cublas().gemm(s, in[0].data, in[1].data, out[0].data, stream));
        biasReluKernel<<<gridFor(s.m * s.n), kThreads, 0, stream>>>(out[0].data, in[2].data, s.m, s.n);
    } else {
        return Status(ErrorCode::Unsupported, "no suite reference named '" + name + "'");
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

} // namespace kwb::gpu
