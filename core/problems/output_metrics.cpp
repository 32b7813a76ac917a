#include "problems/output_metrics.h"

#include <bit>
#include <cmath>
#include <limits>

namespace kwb {

bool isClose(float out, float ref, ToleranceValues tol)
{
    if (out == ref) return true; // covers equal infinities
    if (!std::isfinite(out) || !std::isfinite(ref)) return false;
    // torch computes in the tensor's dtype: the Python-float tolerances are
    // applied to float32 values, so the comparison happens in float32.
    const float diff = std::fabs(out - ref);
    const float allowed = static_cast<float>(tol.atol) + std::fabs(static_cast<float>(tol.rtol) * ref);
    return diff <= allowed;
}

OutputMetrics compareOutputs(std::span<const float> out, std::span<const float> ref, ToleranceValues tol)
{
    OutputMetrics m;
    const std::size_t n = out.size() < ref.size() ? out.size() : ref.size();
    m.count = static_cast<std::int64_t>(n);
    double errSq = 0.0;
    double refSqPairs = 0.0;
    double refSqAll = 0.0;
    std::int64_t refFinite = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float o = out[i];
        const float r = ref[i];
        if (std::isnan(o)) ++m.nanCount;
        else if (std::isinf(o)) ++m.infCount;
        if (std::isnan(r)) ++m.refNanCount;
        else if (std::isinf(r)) ++m.refInfCount;
        else {
            refSqAll += double(r) * double(r);
            ++refFinite;
        }
        if (!isClose(o, r, tol)) {
            if (m.firstMismatch < 0) m.firstMismatch = static_cast<std::int64_t>(i);
            ++m.outOfTolerance;
        }
        if (std::isfinite(o) && std::isfinite(r)) {
            const double d = std::fabs(double(o) - double(r));
            if (d > m.maxAbsError) m.maxAbsError = d;
            errSq += d * d;
            refSqPairs += double(r) * double(r);
        }
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
