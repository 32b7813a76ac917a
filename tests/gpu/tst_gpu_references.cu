// Built-in references against float64 host implementations: cuBLAS GEMM
// (with transposes; must be plain FP32, not TF32) and every own reference kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpu/references/cublas_reference.h"
#include "gpu/checks/input_generator.h"
#include "gpu/references/reference_kernels.h"
#include "gpu_test.h"

using namespace kwb::gpu;

namespace {

constexpr const char* kTestName = "tst_gpu_references";

struct DevBuf {
    float* p = nullptr;
    std::int64_t n = 0;
    explicit DevBuf(std::int64_t count) : n(count) { cudaMalloc(&p, static_cast<std::size_t>(std::max<std::int64_t>(count, 1)) * 4); }
    DevBuf(const DevBuf&) = delete;
    DevBuf& operator=(const DevBuf&) = delete;
    DevBuf(DevBuf&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
    ~DevBuf()
    {
        if (p) cudaFree(p);
    }
    std::vector<float> host() const
    {
        std::vector<float> h(static_cast<std::size_t>(n));
        cudaMemcpy(h.data(), p, h.size() * 4, cudaMemcpyDeviceToHost);
        return h;
    }
};

DevBuf randomBuf(std::int64_t n, std::uint64_t seed)
{
    DevBuf b(n);
    GenParams g;
    g.distribution = GenDistribution::Normal;
    g.seed = seed;
    GT_OK(generateTensor(b.p, n, ElemType::F32, g, nullptr));
    return b;
}

// max |a - b| / (1 + |b|): relative for large values, absolute near zero.
double maxRelErr(const std::vector<float>& got, const std::vector<double>& want)
{
    double m = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        m = std::max(m, std::fabs(static_cast<double>(got[i]) - want[i]) / (1.0 + std::fabs(want[i])));
    return m;
}

void checkGemm(CublasReference& blas, std::int64_t M, std::int64_t N, std::int64_t K, bool ta, bool tb)
{
    DevBuf a = randomBuf(M * K, 11 + M);
    DevBuf b = randomBuf(K * N, 12 + N);
    DevBuf c(M * N);
    GemmShape s{M, N, K, ta, tb, 1.0f, 0.0f};
    GT_OK(blas.gemm(s, a.p, b.p, c.p, nullptr));
    auto ha = a.host();
    auto hb = b.host();
    auto hc = c.host();
    std::vector<double> want(static_cast<std::size_t>(M * N));
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (std::int64_t k = 0; k < K; ++k) {
                const double av = ta ? ha[static_cast<std::size_t>(k * M + i)] : ha[static_cast<std::size_t>(i * K + k)];
                const double bv = tb ? hb[static_cast<std::size_t>(j * K + k)] : hb[static_cast<std::size_t>(k * N + j)];
                acc += av * bv;
            }
            want[static_cast<std::size_t>(i * N + j)] = acc;
        }
    const double err = maxRelErr(hc, want);
    std::printf("gemm %lldx%lldx%lld ta=%d tb=%d: max rel err %.3g\n", static_cast<long long>(M),
        static_cast<long long>(N), static_cast<long long>(K), ta, tb, err);
    // FP32 over K=512 terms stays near 1e-6; TF32 would show ~1e-3.
    GT_CHECK(err < 2e-5);
}

using HostRef = std::function<std::vector<double>(const std::vector<std::vector<float>>&, std::int64_t rows,
    std::int64_t cols)>;

void checkOwn(const std::string& name, int nInputs, std::int64_t rows, std::int64_t cols, std::int64_t outCount,
    const std::map<std::string, double>& params, const HostRef& ref, double tol)
{
    std::vector<DevBuf> ins;
    ins.reserve(static_cast<std::size_t>(nInputs));
    std::vector<RefInput> refIns;
    std::vector<std::vector<float>> hostIns;
    for (int i = 0; i < nInputs; ++i) {
        ins.push_back(randomBuf(rows * cols, 100 + static_cast<std::uint64_t>(i)));
        refIns.push_back(RefInput{ins.back().p, {rows, cols}});
        hostIns.push_back(ins.back().host());
    }
    DevBuf out(outCount);
    std::vector<std::int64_t> outShape = outCount == rows * cols ? std::vector<std::int64_t>{rows, cols}
                                                                 : std::vector<std::int64_t>{outCount};
    GT_OK(runOwnReference(name, params, refIns, {RefOutput{out.p, outShape}}, nullptr));
    GT_OK(kwb::Status(cudaDeviceSynchronize() == cudaSuccess ? kwb::Status::ok()
                                                            : kwb::Status(kwb::ErrorCode::GpuError, "sync")));
    const double err = maxRelErr(out.host(), ref(hostIns, rows, cols));
    std::printf("%-18s %lldx%lld: max rel err %.3g\n", name.c_str(), static_cast<long long>(rows),
        static_cast<long long>(cols), err);
    GT_CHECK(err < tol);
}

std::vector<double> perElement(const std::vector<std::vector<float>>& in, const std::function<double(double, double)>& f)
{
    std::vector<double> out(in[0].size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = f(in[0][i], in.size() > 1 ? in[1][i] : 0.0);
    return out;
}

std::vector<double> perRow(const std::vector<std::vector<float>>& in, std::int64_t rows, std::int64_t cols,
    const std::function<void(const float*, double*, std::int64_t)>& f, bool reduce)
{
    std::vector<double> out(static_cast<std::size_t>(reduce ? rows : rows * cols));
    for (std::int64_t r = 0; r < rows; ++r)
        f(in[0].data() + r * cols, out.data() + (reduce ? r : r * cols), cols);
    return out;
}

} // namespace

int main()
{
    kwb::gputest::requireDevice(kTestName);
    CublasReference blas;
    checkGemm(blas, 128, 96, 512, false, false);
    checkGemm(blas, 65, 33, 257, true, false);
    checkGemm(blas, 64, 80, 128, false, true);
    checkGemm(blas, 31, 17, 300, true, true);

    const std::int64_t R = 37;
    const std::int64_t C = 1000;
    const double tol = 2e-6;
    checkOwn("vector_add", 2, R, C, R * C, {}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double b) { return static_cast<double>(static_cast<float>(a + b)); });
    }, tol);
    checkOwn("vector_mul", 2, R, C, R * C, {}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double b) { return a * b; });
    }, tol);
    checkOwn("relu", 1, R, C, R * C, {}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double) { return a > 0 ? a : 0.0; });
    }, tol);
    checkOwn("leaky_relu", 1, R, C, R * C, {{"negative_slope", 0.2}}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double) { return a >= 0 ? a : 0.2 * a; });
    }, tol);
    checkOwn("scale", 1, R, C, R * C, {{"alpha", 3.5}}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double) { return 3.5 * a; });
    }, tol);
    checkOwn("gelu", 1, R, C, R * C, {}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double) { return 0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0))); });
    }, tol);
    checkOwn("sigmoid", 1, R, C, R * C, {}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double) { return 1.0 / (1.0 + std::exp(-a)); });
    }, tol);
    checkOwn("tanh", 1, R, C, R * C, {}, [](auto& in, auto, auto) {
        return perElement(in, [](double a, double) { return std::tanh(a); });
    }, tol);
    auto softmax = [](bool logForm) {
        return [logForm](auto& in, std::int64_t rows, std::int64_t cols) {
            return perRow(in, rows, cols, [logForm](const float* x, double* o, std::int64_t n) {
                double m = -INFINITY;
                for (std::int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(x[i]));
                double s = 0;
                for (std::int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
                for (std::int64_t i = 0; i < n; ++i) o[i] = logForm ? x[i] - m - std::log(s) : std::exp(x[i] - m) / s;
            }, false);
        };
    };
    checkOwn("softmax_rows", 1, R, C, R * C, {}, softmax(false), tol);
    checkOwn("log_softmax_rows", 1, R, C, R * C, {}, softmax(true), tol);
    checkOwn("layernorm_rows", 1, R, C, R * C, {}, [](auto& in, auto rows, auto cols) {
        return perRow(in, rows, cols, [](const float* x, double* o, std::int64_t n) {
            double mean = 0;
            for (std::int64_t i = 0; i < n; ++i) mean += x[i];
            mean /= static_cast<double>(n);
            double var = 0;
            for (std::int64_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
            var /= static_cast<double>(n);
            for (std::int64_t i = 0; i < n; ++i) o[i] = (x[i] - mean) / std::sqrt(var + 1e-5);
        }, false);
    }, 1e-5);
    checkOwn("rmsnorm_rows", 1, R, C, R * C, {}, [](auto& in, auto rows, auto cols) {
        return perRow(in, rows, cols, [](const float* x, double* o, std::int64_t n) {
            double s = 0;
            for (std::int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
            const double inv = 1.0 / std::sqrt(s / static_cast<double>(n) + 1e-5);
            for (std::int64_t i = 0; i < n; ++i) o[i] = x[i] * inv;
        }, false);
    }, 1e-5);
    checkOwn("l2norm_rows", 1, R, C, R * C, {}, [](auto& in, auto rows, auto cols) {
        return perRow(in, rows, cols, [](const float* x, double* o, std::int64_t n) {
            double s = 0;
            for (std::int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
            for (std::int64_t i = 0; i < n; ++i) o[i] = x[i] / std::sqrt(s);
        }, false);
    }, tol);
    const std::pair<const char*, int> reductions[] = {{"sum_rows", 0}, {"mean_rows", 1}, {"max_rows", 2}, {"min_rows", 3}};
    for (const auto& [name, kind] : reductions) {
        const int k = kind;
        checkOwn(name, 1, R, C, R, {}, [k](auto& in, auto rows, auto cols) {
            return perRow(in, rows, cols, [k](const float* x, double* o, std::int64_t n) {
                double acc = k == 2 ? -INFINITY : k == 3 ? INFINITY : 0.0;
                for (std::int64_t i = 0; i < n; ++i)
                    acc = k == 2 ? std::max(acc, static_cast<double>(x[i]))
                                 : k == 3 ? std::min(acc, static_cast<double>(x[i])) : acc + x[i];
                *o = k == 1 ? acc / static_cast<double>(n) : acc;
            }, true);
        }, 1e-5);
    }
    checkOwn("cumsum_rows", 1, R, 4099, R * 4099, {}, [](auto& in, auto rows, auto cols) {
        return perRow(in, rows, cols, [](const float* x, double* o, std::int64_t n) {
            double run = 0;
            for (std::int64_t i = 0; i < n; ++i) o[i] = run += x[i];
        }, false);
    }, 1e-5);
    checkOwn("mse", 2, R, C, 1, {}, [](auto& in, auto, auto) {
        double s = 0;
        for (std::size_t i = 0; i < in[0].size(); ++i) s += (static_cast<double>(in[0][i]) - in[1][i]) * (in[0][i] - in[1][i]);
        return std::vector<double>{s / static_cast<double>(in[0].size())};
    }, 1e-6);
    GT_CHECK(!runOwnReference("no_such_reference", {}, {}, {}, nullptr).isOk());
    return kwb::gputest::finish(kTestName);
}
