#include "base/input_limits.h"

#include <cstdlib>

#include "base/checked_int.h"

namespace kwb {

namespace {

// A positive integer from the environment, or nullopt when unset or unusable.
std::optional<std::int64_t> envPositive(const char* name)
{
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    auto n = parseInt64(v);
    if (!n || *n <= 0) return std::nullopt;
    return n;
}

} // namespace

InputLimits inputLimits()
{
    InputLimits l;
    constexpr std::int64_t kMaxMb = std::int64_t(1) << 40; // keeps MB -> bytes exact
    if (auto v = envPositive("KWB_MAX_INFLATED_MB"); v && *v < kMaxMb) l.maxInflatedBytes = static_cast<std::uint64_t>(*v) << 20;
    if (auto v = envPositive("KWB_MAX_INFLATE_RATIO")) l.maxInflateRatio = static_cast<std::uint64_t>(*v);
    if (auto v = envPositive("KWB_MAX_JSON_DEPTH"); v && *v <= 100000) l.maxJsonDepth = static_cast<int>(*v);
    if (auto v = envPositive("KWB_MAX_TRACE_UNIT_MB"); v && *v < kMaxMb) l.maxTraceUnitBytes = static_cast<std::uint64_t>(*v) << 20;
    if (auto v = envPositive("KWB_SQLITE_TIMEOUT_S")) l.sqliteTimeoutSeconds = *v;
    if (auto v = envPositive("KWB_SQLITE_MAX_ROWS")) l.sqliteMaxRows = *v;
    if (auto v = envPositive("KWB_SQLITE_MAX_STRING_KB"); v && *v < (1 << 20)) l.sqliteMaxStringBytes = *v << 10;
    return l;
}

std::string describeByteLimit(std::uint64_t bytes, const char* variable)
{
    std::string size = bytes % (1ull << 30) == 0 ? std::to_string(bytes >> 30) + " GiB"
        : bytes % (1ull << 20) == 0             ? std::to_string(bytes >> 20) + " MiB"
                                                : std::to_string(bytes) + " bytes";
    return "the limit of " + size + " (" + variable + ")";
}

} // namespace kwb
