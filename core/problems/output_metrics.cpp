#include "problems/output_metrics.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

namespace kwb {

bool isClose(float out, float ref, ToleranceValues tol)
{
    if (out == ref) return true; // covers equal infinities
    if (!std::isfinite(out) || !std::isfinite(ref)) return false;
    // KernelBench calls torch.allclose(reference, candidate): |ref - out| <=
    // atol + rtol * |out|, the relative part scaled by the CANDIDATE's value
    // (so all zeros pass only where |ref| <= atol). torch computes in the
    // tensor's dtype: the Python-float tolerances are applied to float32
    // values, so the comparison happens in float32.
    const float diff = std::fabs(out - ref);
    const float allowed = static_cast<float>(tol.atol) + std::fabs(static_cast<float>(tol.rtol) * out);
    return diff <= allowed;
}

namespace {

// Partial sums of one chunk; merged in chunk order so that the result does not
// depend on how many threads ran.
struct ChunkStats {
    std::int64_t outOfTolerance = 0;
    std::int64_t firstMismatch = -1;
    std::int64_t nan = 0;
    std::int64_t inf = 0;
    std::int64_t refNan = 0;
    std::int64_t refInf = 0;
    std::int64_t refFinite = 0;
    double maxAbs = 0.0;
    double errSq = 0.0;
    double refSqPairs = 0.0;
    double refSqAll = 0.0;
};

void scanChunk(const float* out, const float* ref, std::size_t begin, std::size_t end, ToleranceValues tol,
    ChunkStats& c)
{
    for (std::size_t i = begin; i < end; ++i) {
        const float o = out[i];
        const float r = ref[i];
        const bool oFinite = std::isfinite(o);
        const bool rFinite = std::isfinite(r);
        if (!oFinite) {
            if (std::isnan(o)) ++c.nan;
            else ++c.inf;
        }
        if (!rFinite) {
            if (std::isnan(r)) ++c.refNan;
            else ++c.refInf;
        } else {
            c.refSqAll += double(r) * double(r);
            ++c.refFinite;
        }
        if (!isClose(o, r, tol)) {
            if (c.firstMismatch < 0) c.firstMismatch = static_cast<std::int64_t>(i);
            ++c.outOfTolerance;
        }
        if (oFinite && rFinite) {
            const double d = std::fabs(double(o) - double(r));
            c.maxAbs = d > c.maxAbs ? d : c.maxAbs;
            c.errSq += d * d;
            c.refSqPairs += double(r) * double(r);
        }
    }
}

constexpr std::size_t kChunk = std::size_t{1} << 20;

} // namespace

OutputMetrics compareOutputs(std::span<const float> out, std::span<const float> ref, ToleranceValues tol)
{
    OutputMetrics m;
    const std::size_t n = out.size() < ref.size() ? out.size() : ref.size();
    m.count = static_cast<std::int64_t>(n);
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<ChunkStats> stats(chunks);
    // Outputs of KernelBench problems reach 10^8-10^9 elements: spread the scan over the cores.
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t workers = std::min<std::size_t>({chunks, hw, 32});
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t k = next.fetch_add(1); k < chunks; k = next.fetch_add(1))
            scanChunk(out.data(), ref.data(), k * kChunk, std::min(n, (k + 1) * kChunk), tol, stats[k]);
    };
    if (workers <= 1) {
        work();
    } else {
        std::vector<std::thread> threads;
        for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
        work();
        for (auto& t : threads) t.join();
    }
    double errSq = 0.0;
    double refSqPairs = 0.0;
    double refSqAll = 0.0;
    std::int64_t refFinite = 0;
    for (const auto& c : stats) {
        m.outOfTolerance += c.outOfTolerance;
        if (m.firstMismatch < 0) m.firstMismatch = c.firstMismatch;
        m.nanCount += c.nan;
        m.infCount += c.inf;
        m.refNanCount += c.refNan;
        m.refInfCount += c.refInf;
        refFinite += c.refFinite;
        m.maxAbsError = std::max(m.maxAbsError, c.maxAbs);
        errSq += c.errSq;
        refSqPairs += c.refSqPairs;
        refSqAll += c.refSqAll;
    }
    // Lengths that differ are a mismatch of every missing element.
    const std::size_t longer = out.size() > ref.size() ? out.size() : ref.size();
    if (longer > n) {
        if (m.firstMismatch < 0) m.firstMismatch = static_cast<std::int64_t>(n);
        m.outOfTolerance += static_cast<std::int64_t>(longer - n);
        m.count = static_cast<std::int64_t>(longer);
    }
    m.allclose = m.outOfTolerance == 0;
    m.outOfToleranceShare = m.count ? double(m.outOfTolerance) / double(m.count) : 0.0;
    const double inf = std::numeric_limits<double>::infinity();
    m.relL2Error = refSqPairs > 0 ? std::sqrt(errSq / refSqPairs) : (errSq > 0 ? inf : 0.0);
    m.refRms = refFinite ? std::sqrt(refSqAll / double(refFinite)) : 0.0;
    m.maxErrorOverRefRms = m.refRms > 0 ? m.maxAbsError / m.refRms : (m.maxAbsError > 0 ? inf : 0.0);
    return m;
}

bool zerosPassAllclose(std::span<const float> ref, ToleranceValues tol)
{
    for (float r : ref)
        if (!isClose(0.0f, r, tol)) return false;
    return true;
}

bool constantPassesAllclose(std::span<const float> ref, float value, ToleranceValues tol)
{
    for (float r : ref)
        if (!isClose(value, r, tol)) return false;
    return true;
}

float halfToFloat(std::uint16_t bits)
{
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1Fu;
    std::uint32_t mant = bits & 0x3FFu;
    std::uint32_t out = 0;
    if (exp == 0) {
        if (mant == 0) out = sign;
        else { // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while ((mant & 0x400u) == 0);
            out = sign | (std::uint32_t(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
        }
    } else if (exp == 0x1F) {
        out = sign | 0x7F800000u | (mant << 13);
    } else {
        out = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(out);
}

float bfloat16ToFloat(std::uint16_t bits) { return std::bit_cast<float>(std::uint32_t(bits) << 16); }

} // namespace kwb
