// DeviceMetrics against the host definitions (problems/output_metrics.h):
// random outputs with injected errors, NaNs, infinities, zeros, subnormal and
// tiny references, values on the tolerance boundary, sizes that exercise the
// unrolled loop, its tail and several blocks. Counts, first mismatch and the
// largest error must be identical; the sums within 1e-12 relative of sums in
// long double (and of the host's within its own rounding bound); zero
// acceptance identical; the bitwise determinism count exact for every width.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpu/checks/device_metrics.h"
#include "gpu/checks/input_generator.h"
#include "gpu_test.h"
#include "problems/output_metrics.h"

namespace {

constexpr const char* kTestName = "tst_gpu_metrics";

// Device copy of a host vector (freed at scope end).
class DeviceCopy {
public:
    explicit DeviceCopy(const void* host, std::size_t bytes)
    {
        if (cudaMalloc(&m_ptr, std::max<std::size_t>(bytes, 16)) != cudaSuccess) {
            m_ptr = nullptr;
            return;
        }
        if (bytes) cudaMemcpy(m_ptr, host, bytes, cudaMemcpyHostToDevice);
    }
    DeviceCopy(const DeviceCopy&) = delete;
    DeviceCopy& operator=(const DeviceCopy&) = delete;
    ~DeviceCopy()
    {
        if (m_ptr) cudaFree(m_ptr);
    }
    void* get() const { return m_ptr; }

private:
    void* m_ptr = nullptr;
};

bool closeRel(double a, double b, double rel)
{
    if (a == b) return true; // equal infinities and zeros
    if (!std::isfinite(a) || !std::isfinite(b)) return false;
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

// The sum-based metrics with sums in long double (64-bit mantissa): what both
// the device's tree sums and the host's sequential double sums approximate.
struct PreciseSums {
    double relL2Error = 0.0;
    double refRms = 0.0;
};

PreciseSums preciseSums(const std::vector<float>& out, const std::vector<float>& ref)
{
    long double errSq = 0.0L;
    long double refSqPairs = 0.0L;
    long double refSqAll = 0.0L;
    std::int64_t refFinite = 0;
    for (std::size_t i = 0; i < out.size() && i < ref.size(); ++i) {
        const double o = out[i];
        const double r = ref[i];
        if (std::isfinite(r)) {
            refSqAll += static_cast<long double>(r) * r;
            ++refFinite;
        }
        if (std::isfinite(o) && std::isfinite(r)) {
            const double d = std::fabs(o - r);
            errSq += static_cast<long double>(d) * d;
            refSqPairs += static_cast<long double>(r) * r;
        }
    }
    PreciseSums p;
    const double inf = std::numeric_limits<double>::infinity();
    p.relL2Error = refSqPairs > 0 ? static_cast<double>(std::sqrt(errSq / refSqPairs)) : (errSq > 0 ? inf : 0.0);
    p.refRms = refFinite ? static_cast<double>(std::sqrt(refSqAll / static_cast<long double>(refFinite))) : 0.0;
    return p;
}

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Case {
    std::string name;
    std::vector<float> out;
    std::vector<float> ref;
    kwb::ToleranceValues tol;
};

// One comparison on the device against the host and against long-double sums.
void checkCase(kwb::gpu::DeviceMetrics& dm, const Case& c)
{
    const kwb::OutputMetrics h = kwb::compareOutputs(c.out, c.ref, c.tol);
    const bool hz = kwb::zerosPassAllclose(c.ref, c.tol);
    DeviceCopy dOut(c.out.data(), c.out.size() * 4);
    DeviceCopy dRef(c.ref.data(), c.ref.size() * 4);
    GT_CHECK(dOut.get() && dRef.get());
    auto r = dm.compare(static_cast<const float*>(dOut.get()), static_cast<const float*>(dRef.get()),
        static_cast<std::int64_t>(c.out.size()), c.tol.atol, c.tol.rtol, nullptr);
    GT_OK(r);
    if (!r) return;
    const kwb::OutputMetrics& d = r->metrics;
    std::printf("  %-28s n=%-9lld oot=%-8lld first=%-8lld maxAbs=%.3g relL2=%.3g nan=%lld/%lld inf=%lld/%lld zeros=%d\n",
        c.name.c_str(), static_cast<long long>(h.count), static_cast<long long>(h.outOfTolerance),
        static_cast<long long>(h.firstMismatch), h.maxAbsError, h.relL2Error, static_cast<long long>(h.nanCount),
        static_cast<long long>(h.refNanCount), static_cast<long long>(h.infCount), static_cast<long long>(h.refInfCount),
        hz ? 1 : 0);
    const int before = kwb::gputest::failures();
    GT_CHECK_EQ(d.count, h.count);
    GT_CHECK_EQ(d.allclose, h.allclose);
    GT_CHECK_EQ(d.outOfTolerance, h.outOfTolerance);
    GT_CHECK(sameBits(d.outOfToleranceShare, h.outOfToleranceShare));
    GT_CHECK_EQ(d.firstMismatch, h.firstMismatch);
    GT_CHECK(sameBits(d.maxAbsError, h.maxAbsError));
    // The device's sums (short per-thread runs, then trees) within 1e-12 of
    // long-double sums; the host's sequential double sums carry up to n
    // roundings (relative error bound about n * 2^-53: 1.5e-12 was seen at
    // 16M elements), so device and host agree within 1e-12 plus that bound.
    const PreciseSums p = preciseSums(c.out, c.ref);
    const double hostBound = 1e-12 + static_cast<double>(c.out.size()) * 0x1p-53;
    GT_CHECK(closeRel(d.relL2Error, p.relL2Error, 1e-12));
    GT_CHECK(closeRel(d.refRms, p.refRms, 1e-12));
    GT_CHECK(closeRel(d.relL2Error, h.relL2Error, hostBound));
    GT_CHECK(closeRel(d.refRms, h.refRms, hostBound));
    GT_CHECK(closeRel(d.maxErrorOverRefRms, h.maxErrorOverRefRms, hostBound));
    GT_CHECK_EQ(d.nanCount, h.nanCount);
    GT_CHECK_EQ(d.infCount, h.infCount);
    GT_CHECK_EQ(d.refNanCount, h.refNanCount);
    GT_CHECK_EQ(d.refInfCount, h.refInfCount);
    GT_CHECK_EQ(r->zerosPass, hz);
    if (kwb::gputest::failures() != before)
        std::printf("    device: relL2=%.17g refRms=%.17g maxAbs=%.17g; host: relL2=%.17g refRms=%.17g maxAbs=%.17g; "
                    "long double: relL2=%.17g refRms=%.17g\n",
            d.relL2Error, d.refRms, d.maxAbsError, h.relL2Error, h.refRms, h.maxAbsError, p.relL2Error, p.refRms);
    else if (c.out.size() >= (std::size_t{1} << 20))
        std::printf("    relative difference from long-double sums: rel L2 device %.2g host %.2g; ref RMS device %.2g host %.2g\n",
            std::fabs(d.relL2Error - p.relL2Error) / p.relL2Error, std::fabs(h.relL2Error - p.relL2Error) / p.relL2Error,
            std::fabs(d.refRms - p.refRms) / p.refRms, std::fabs(h.refRms - p.refRms) / p.refRms);
}

std::vector<float> normal(std::mt19937_64& rng, std::size_t n, float scale)
{
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

// out = ref plus noise well inside the tolerance, then `errors` injected mismatches.
Case noisy(std::mt19937_64& rng, const std::string& name, std::size_t n, kwb::ToleranceValues tol, std::size_t errors)
{
    Case c{name, {}, normal(rng, n, 1.0f), tol};
    c.out = c.ref;
    std::uniform_real_distribution<float> small(-0.3f, 0.3f);
    for (std::size_t i = 0; i < n; ++i)
        c.out[i] = c.ref[i] + small(rng) * static_cast<float>(tol.atol);
    std::uniform_int_distribution<std::size_t> pos(0, n ? n - 1 : 0);
    for (std::size_t e = 0; e < errors && n; ++e) c.out[pos(rng)] += 1.0f;
    return c;
}

// Values on, just inside and just outside the boundary atol + |rtol * ref|, as float32 computes it.
Case boundary(std::mt19937_64& rng, std::size_t n, kwb::ToleranceValues tol)
{
    Case c{"tolerance boundary", normal(rng, n, 3.0f), {}, tol};
    c.ref = c.out;
    const float atol = static_cast<float>(tol.atol);
    const float rtol = static_cast<float>(tol.rtol);
    for (std::size_t i = 0; i < n; ++i) {
        const float r = c.ref[i];
        const float allowed = atol + std::fabs(rtol * r);
        float o = (i % 2) ? r + allowed : r - allowed;
        if (i % 3 == 1) o = std::nextafter(o, (i % 2) ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
        if (i % 3 == 2) o = std::nextafter(o, r);
        c.out[i] = o;
    }
    return c;
}

// NaNs, infinities, zeros (both signs), subnormal and tiny references sprinkled in.
Case specials(std::mt19937_64& rng, std::size_t n, kwb::ToleranceValues tol)
{
    Case c = noisy(rng, "NaN / Inf / zeros / tiny", n, tol, n / 1000);
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float sub = std::numeric_limits<float>::denorm_min();
    std::uniform_int_distribution<std::size_t> pos(0, n - 1);
    std::uniform_int_distribution<int> kind(0, 11);
    for (std::size_t e = 0; e < n / 50; ++e) {
        const std::size_t i = pos(rng);
        switch (kind(rng)) {
        case 0: c.out[i] = nan; break;
        case 1: c.ref[i] = nan; break;
        case 2: c.out[i] = c.ref[i] = nan; break;
        case 3: c.out[i] = inf; break;
        case 4: c.out[i] = c.ref[i] = -inf; break; // equal infinities are close
        case 5: c.ref[i] = inf; c.out[i] = 1.0f; break;
        case 6: c.out[i] = 0.0f; c.ref[i] = -0.0f; break;
        case 7: c.out[i] = 0.0f; c.ref[i] = sub * static_cast<float>(i % 7); break;
        case 8: c.ref[i] = 1e-30f; c.out[i] = -1e-30f; break;
        case 9: c.ref[i] = std::numeric_limits<float>::max(); c.out[i] = -std::numeric_limits<float>::max(); break;
        case 10: c.out[i] = 0.0f; break;
        default: c.ref[i] = 3e-5f; c.out[i] = 0.0f; break;
        }
    }
    return c;
}

void testCompare(kwb::gpu::DeviceMetrics& dm)
{
    std::printf("compare\n");
    std::mt19937_64 rng(20261129);
    const kwb::ToleranceValues fp32{1e-4, 1e-4};
    const kwb::ToleranceValues fp16{1e-2, 1e-2};
    const kwb::ToleranceValues exact{0.0, 0.0};
    // Sizes around the unrolled loop's edges and the grid size, and one of many grids.
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{255}, std::size_t{1000}, std::size_t{270337},
             std::size_t{1} << 20, (std::size_t{1} << 24) + 13}) {
        checkCase(dm, noisy(rng, "honest n=" + std::to_string(n), n, fp32, 0));
        checkCase(dm, noisy(rng, "errors n=" + std::to_string(n), n, fp32, n / 10000 + 1));
    }
    checkCase(dm, noisy(rng, "honest at fp16 tolerance", 100003, fp16, 0));
    checkCase(dm, noisy(rng, "exact tolerance", 100003, exact, 0));
    for (auto tol : {fp32, fp16, kwb::ToleranceValues{1e-5, 1e-3}}) checkCase(dm, boundary(rng, 300007, tol));
    checkCase(dm, specials(rng, 1 << 20, fp32));
    checkCase(dm, specials(rng, 4099, fp16));

    // Zero acceptance: references inside the tolerance of 0 pass, one element
    // outside, a NaN or an infinity in the reference do not.
    Case z{"small reference", std::vector<float>(65537, 0.0f), {}, fp32};
    std::uniform_real_distribution<float> tiny(-9.9e-5f, 9.9e-5f);
    for (std::size_t i = 0; i < z.out.size(); ++i) z.ref.push_back(tiny(rng));
    checkCase(dm, z);
    z.name = "small reference, one large";
    z.ref[40000] = 2e-4f;
    checkCase(dm, z);
    z.name = "small reference, one NaN";
    z.ref[40000] = std::numeric_limits<float>::quiet_NaN();
    checkCase(dm, z);
    z.name = "small reference, one Inf";
    z.ref[40000] = std::numeric_limits<float>::infinity();
    checkCase(dm, z);
    z.name = "all-NaN output";
    z.ref[40000] = 0.0f;
    std::fill(z.out.begin(), z.out.end(), std::numeric_limits<float>::quiet_NaN());
    checkCase(dm, z);

    // The empty output: allclose, nothing counted.
    Case e{"empty", {}, {}, fp32};
    checkCase(dm, e);
}

void testDiffering(kwb::gpu::DeviceMetrics& dm)
{
    std::printf("countDiffering\n");
    std::mt19937_64 rng(7);
    for (int width : {1, 2, 4, 8}) {
        for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 22) + 5}) {
            std::vector<unsigned char> a(n * static_cast<std::size_t>(width));
            for (auto& x : a) x = static_cast<unsigned char>(rng());
            std::vector<unsigned char> b = a;
            // Flip single bits in random bytes; the expected count is the number of distinct elements touched.
            std::set<std::size_t> touched;
            std::uniform_int_distribution<std::size_t> pos(0, a.size() - 1);
            const std::size_t flips = n < 10 ? n : n / 997 + 3;
            for (std::size_t f = 0; f < flips; ++f) {
                const std::size_t byte = pos(rng);
                b[byte] ^= static_cast<unsigned char>(1u << (rng() % 8));
                touched.insert(byte / static_cast<std::size_t>(width));
            }
            std::set<std::size_t> differing;
            for (std::size_t e = 0; e < n; ++e)
                if (std::memcmp(&a[e * static_cast<std::size_t>(width)], &b[e * static_cast<std::size_t>(width)],
                        static_cast<std::size_t>(width)) != 0)
                    differing.insert(e);
            DeviceCopy da(a.data(), a.size());
            DeviceCopy db(b.data(), b.size());
            auto same = dm.countDiffering(da.get(), da.get(), static_cast<std::int64_t>(n), width, nullptr);
            auto diff = dm.countDiffering(da.get(), db.get(), static_cast<std::int64_t>(n), width, nullptr);
            GT_OK(same);
            GT_OK(diff);
            if (!same || !diff) continue;
            std::printf("  width %d n=%-8zu differing %lld (expected %zu)\n", width, n, static_cast<long long>(*diff),
                differing.size());
            GT_CHECK_EQ(*same, 0);
            GT_CHECK_EQ(*diff, static_cast<std::int64_t>(differing.size()));
        }
    }
    // -0 and +0, and two NaN payloads, are equal as numbers but not as bits.
    const float x[4] = {0.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f, 2.0f};
    float y[4] = {-0.0f, 0.0f, 1.0f, 2.0f};
    const std::uint32_t otherNan = 0x7fc00001u;
    std::memcpy(&y[1], &otherNan, 4);
    DeviceCopy dx(x, sizeof x);
    DeviceCopy dy(y, sizeof y);
    auto signedZero = dm.countDiffering(dx.get(), dy.get(), 4, 4, nullptr);
    GT_OK(signedZero);
    if (signedZero) GT_CHECK_EQ(*signedZero, 2);
    auto bad = dm.countDiffering(dx.get(), dy.get(), 4, 3, nullptr);
    GT_CHECK(!bad && bad.status().message().find("width 3") != std::string::npos);

    // Masked by the sentinels of two differently prefilled runs: only elements
    // both runs wrote count (run A left element 1 unwritten, run B element 2).
    const std::uint32_t sa = 0xAAAAAAAAu, sb = 0xBBBBBBBBu;
    const std::uint32_t a[5] = {1, sa, 3, 4, 5};
    const std::uint32_t b[5] = {1, 2, sb, 9, 5};
    DeviceCopy da(a, sizeof a);
    DeviceCopy db(b, sizeof b);
    auto written = dm.countDifferingWritten(da.get(), db.get(), 5, 4, sa, sb, nullptr);
    GT_OK(written);
    if (written) GT_CHECK_EQ(*written, 1); // element 3 only
    auto all = dm.countDiffering(da.get(), db.get(), 5, 4, nullptr);
    GT_OK(all);
    if (all) GT_CHECK_EQ(*all, 3);
}

// The executor compares half-precision outputs after convertToFloat; it must
// agree with the host conversions for every bit pattern (NaNs as NaNs).
void testHalfConversion()
{
    std::printf("half conversions\n");
    std::vector<std::uint16_t> bits(65536);
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint16_t>(i);
    DeviceCopy src(bits.data(), bits.size() * 2);
    float* f = nullptr;
    GT_CHECK(cudaMalloc(reinterpret_cast<void**>(&f), bits.size() * 4) == cudaSuccess);
    for (auto type : {kwb::gpu::ElemType::F16, kwb::gpu::ElemType::BF16}) {
        GT_OK(kwb::gpu::convertToFloat(src.get(), f, static_cast<std::int64_t>(bits.size()), type, nullptr));
        std::vector<float> got(bits.size());
        GT_CHECK(cudaMemcpy(got.data(), f, got.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        std::int64_t mismatches = 0;
        for (std::size_t i = 0; i < bits.size(); ++i) {
            const float want = type == kwb::gpu::ElemType::F16 ? kwb::halfToFloat(bits[i]) : kwb::bfloat16ToFloat(bits[i]);
            const bool same = (std::isnan(want) && std::isnan(got[i])) || sameBits(double(want), double(got[i]));
            if (!same) ++mismatches;
        }
        std::printf("  %s: %lld of 65536 patterns differ\n", type == kwb::gpu::ElemType::F16 ? "f16" : "bf16",
            static_cast<long long>(mismatches));
        GT_CHECK_EQ(mismatches, 0);
    }
    cudaFree(f);
}

// At the largest sizes of the suite: 2^31 + 1000 elements (8.6 GB per
// buffer), so flat indices pass 2^31; one mismatch placed beyond it. Prints
// the time of the comparison and of the determinism check.
void testLarge(const kwb::DeviceInfo& dev, kwb::gpu::DeviceMetrics& dm)
{
    const std::int64_t n = (std::int64_t{1} << 31) + 1000;
    const std::size_t bytes = static_cast<std::size_t>(n) * 4;
    std::size_t freeBytes = 0;
    std::size_t total = 0;
    cudaMemGetInfo(&freeBytes, &total);
    if (freeBytes < 2 * bytes + (std::size_t{1} << 30)) {
        std::printf("large: skipped, %.1f GB free on %s\n", static_cast<double>(freeBytes) / 1e9, dev.name.c_str());
        return;
    }
    std::printf("large: n = %lld\n", static_cast<long long>(n));
    float* out = nullptr;
    float* ref = nullptr;
    GT_CHECK(cudaMalloc(reinterpret_cast<void**>(&out), bytes) == cudaSuccess);
    GT_CHECK(cudaMalloc(reinterpret_cast<void**>(&ref), bytes) == cudaSuccess);
    if (!out || !ref) return;
    kwb::gpu::GenParams g;
    g.distribution = kwb::gpu::GenDistribution::Normal;
    g.seed = 5;
    GT_OK(kwb::gpu::generateTensor(ref, n, kwb::gpu::ElemType::F32, g, nullptr));
    GT_CHECK(cudaMemcpy(out, ref, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
    const std::int64_t bad = (std::int64_t{1} << 31) + 7;
    const float wrong = 1e6f;
    GT_CHECK(cudaMemcpy(out + bad, &wrong, 4, cudaMemcpyHostToDevice) == cudaSuccess);
    GT_CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaEvent_t e0;
    cudaEvent_t e1;
    cudaEvent_t e2;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventCreate(&e2);
    cudaEventRecord(e0, nullptr);
    auto m = dm.compare(out, ref, n, 1e-4, 1e-4, nullptr);
    cudaEventRecord(e1, nullptr);
    auto d = dm.countDiffering(out, ref, n, 4, nullptr);
    cudaEventRecord(e2, nullptr);
    cudaEventSynchronize(e2);
    float compareMs = 0.0f;
    float differMs = 0.0f;
    cudaEventElapsedTime(&compareMs, e0, e1);
    cudaEventElapsedTime(&differMs, e1, e2);
    GT_OK(m);
    GT_OK(d);
    if (m && d) {
        std::printf("  compare %.2f ms (%.0f GB/s), countDiffering %.2f ms (%.0f GB/s); first mismatch %lld, "
                    "out of tolerance %lld, differing %lld, rel L2 %.3g, ref RMS %.6f\n",
            static_cast<double>(compareMs), 2.0 * static_cast<double>(bytes) / (static_cast<double>(compareMs) * 1e6),
            static_cast<double>(differMs), 2.0 * static_cast<double>(bytes) / (static_cast<double>(differMs) * 1e6),
            static_cast<long long>(m->metrics.firstMismatch), static_cast<long long>(m->metrics.outOfTolerance),
            static_cast<long long>(*d), m->metrics.relL2Error, m->metrics.refRms);
        GT_CHECK_EQ(m->metrics.count, n);
        GT_CHECK_EQ(m->metrics.firstMismatch, bad);
        GT_CHECK_EQ(m->metrics.outOfTolerance, 1);
        GT_CHECK(!m->metrics.allclose);
        GT_CHECK_EQ(*d, 1);
        GT_CHECK(m->metrics.refRms > 0.99 && m->metrics.refRms < 1.01);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
    cudaFree(out);
    cudaFree(ref);
}

} // namespace

int main()
{
    const kwb::DeviceInfo dev = kwb::gputest::requireDevice(kTestName);
    kwb::gpu::DeviceMetrics dm;
    testCompare(dm);
    testDiffering(dm);
    testHalfConversion();
    testLarge(dev, dm);
    return kwb::gputest::finish(kTestName);
}
