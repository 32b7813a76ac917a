// Input generation (uniform like torch.rand, normal, randint, constant) by
// moments and ranges; determinism by seed; the device hash sees a single
// changed byte, also in a tail that is not a multiple of 8 bytes.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gpu/checks/input_generator.h"
#include "gpu_test.h"

using namespace kwb::gpu;

namespace {

constexpr const char* kTestName = "tst_gpu_inputs";

std::vector<float> generate(std::int64_t n, const GenParams& g, ElemType t = ElemType::F32)
{
    void* d = nullptr;
    float* f = nullptr;
    cudaMalloc(&d, static_cast<std::size_t>(n) * 8);
    cudaMalloc(&f, static_cast<std::size_t>(n) * 4);
    GT_OK(generateTensor(d, n, t, g, nullptr));
    GT_OK(convertToFloat(d, f, n, t, nullptr));
    std::vector<float> h(static_cast<std::size_t>(n));
    cudaMemcpy(h.data(), f, h.size() * 4, cudaMemcpyDeviceToHost);
    cudaFree(d);
    cudaFree(f);
    return h;
}

void moments(const std::vector<float>& v, double& mean, double& sd, double& lo, double& hi)
{
    double s = 0;
    double s2 = 0;
    lo = INFINITY;
    hi = -INFINITY;
    for (float x : v) {
        s += x;
        s2 += static_cast<double>(x) * x;
        lo = std::min(lo, static_cast<double>(x));
        hi = std::max(hi, static_cast<double>(x));
    }
    mean = s / static_cast<double>(v.size());
    sd = std::sqrt(s2 / static_cast<double>(v.size()) - mean * mean);
}

} // namespace

int main()
{
    kwb::gputest::requireDevice(kTestName);
    const std::int64_t n = 1 << 20;
    double mean = 0;
    double sd = 0;
    double lo = 0;
    double hi = 0;

    GenParams u;
    u.seed = deriveSeed(42, 0, 0);
    auto uv = generate(n, u);
    moments(uv, mean, sd, lo, hi);
    std::printf("uniform: mean %.4f sd %.4f [%g, %g]\n", mean, sd, lo, hi);
    GT_CHECK(std::fabs(mean - 0.5) < 0.005);
    GT_CHECK(std::fabs(sd - std::sqrt(1.0 / 12.0)) < 0.005);
    GT_CHECK(lo >= 0.0 && hi < 1.0);

    GenParams g;
    g.distribution = GenDistribution::Normal;
    g.mean = 1.0;
    g.stddev = 2.0;
    g.seed = deriveSeed(42, 0, 1);
    moments(generate(n, g), mean, sd, lo, hi);
    std::printf("normal(1, 2): mean %.4f sd %.4f\n", mean, sd);
    GT_CHECK(std::fabs(mean - 1.0) < 0.02);
    GT_CHECK(std::fabs(sd - 2.0) < 0.02);

    GenParams r;
    r.distribution = GenDistribution::RandInt;
    r.low = -3;
    r.high = 7;
    r.seed = 5;
    auto rv = generate(n, r, ElemType::I32);
    moments(rv, mean, sd, lo, hi);
    bool integral = true;
    for (float x : rv) integral = integral && x == std::floor(x);
    std::printf("randint[-3, 7): mean %.4f [%g, %g]\n", mean, lo, hi);
    GT_CHECK(integral && lo == -3.0 && hi == 6.0);
    GT_CHECK(std::fabs(mean - 1.5) < 0.02);

    // Pareto(scale 0.5, alpha 3): support [0.5, inf), mean alpha*scale/(alpha-1) = 0.75.
    GenParams pa;
    pa.distribution = GenDistribution::Pareto;
    pa.scale = 0.5;
    pa.alpha = 3.0;
    pa.seed = deriveSeed(42, 0, 2);
    moments(generate(n, pa), mean, sd, lo, hi);
    std::printf("pareto(0.5, 3): mean %.4f min %g\n", mean, lo);
    GT_CHECK(lo >= 0.5 && lo < 0.5001);
    GT_CHECK(std::fabs(mean - 0.75) < 0.01);

    GenParams c;
    c.distribution = GenDistribution::Constant;
    c.value = 0.25;
    auto cv = generate(1000, c, ElemType::F16);
    GT_CHECK(cv[0] == 0.25f && cv[999] == 0.25f);
    auto bv = generate(n, u, ElemType::BF16);
    moments(bv, mean, sd, lo, hi);
    GT_CHECK(std::fabs(mean - 0.5) < 0.01);

    // Seeds: trials and tensors differ, the same triple repeats.
    GT_CHECK(deriveSeed(42, 0, 0) == deriveSeed(42, 0, 0));
    GT_CHECK(deriveSeed(42, 0, 0) != deriveSeed(42, 1, 0));
    GT_CHECK(deriveSeed(42, 0, 0) != deriveSeed(42, 0, 1));
    GT_CHECK(deriveSeed(42, 0, 0) != deriveSeed(43, 0, 0));

    // Hash.
    const std::int64_t bytes = 1000003; // tail of 3 bytes
    unsigned char* d = nullptr;
    unsigned long long* scratch = nullptr;
    cudaMalloc(&d, bytes);
    cudaMalloc(&scratch, 8);
    GT_OK(generateTensor(d, bytes / 4, ElemType::F32, u, nullptr));
    cudaMemset(d + (bytes / 4) * 4, 7, bytes - (bytes / 4) * 4);
    auto h1 = hashDeviceBytes(d, bytes, scratch, nullptr);
    auto h2 = hashDeviceBytes(d, bytes, scratch, nullptr);
    GT_OK(h1);
    GT_CHECK(h1 && h2 && *h1 == *h2);
    cudaMemset(d + 12345, 0xab, 1);
    auto h3 = hashDeviceBytes(d, bytes, scratch, nullptr);
    GT_CHECK(h3 && *h3 != *h1);
    cudaMemset(d + bytes - 1, 0x01, 1);
    auto h4 = hashDeviceBytes(d, bytes, scratch, nullptr);
    GT_CHECK(h4 && *h4 != *h3);
    // Swapping two words changes the hash (order matters).
    std::vector<unsigned char> host(16);
    cudaMemcpy(host.data(), d, 16, cudaMemcpyDeviceToHost);
    std::vector<unsigned char> swapped(host.begin() + 8, host.end());
    swapped.insert(swapped.end(), host.begin(), host.begin() + 8);
    cudaMemcpy(d, swapped.data(), 16, cudaMemcpyHostToDevice);
    auto h5 = hashDeviceBytes(d, bytes, scratch, nullptr);
    GT_CHECK(h5 && *h5 != *h4);
    GT_CHECK(hashHex(0x1234).size() == 16);
    cudaFree(d);
    cudaFree(scratch);
    return kwb::gputest::finish(kTestName);
}
