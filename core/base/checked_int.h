#pragma once
// Checked integer parsing and bounded time arithmetic for readers of untrusted
// input: no exception, no wrap. Every reader parses numbers with these, and
// keeps times within kMaxTimeNs so that an end (start + duration) and a span
// (end - start) of accepted values can never overflow int64.
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace kwb {

// Decimal integer text (optional leading '-', digits only, nothing else);
// nullopt when malformed or outside int64.
inline std::optional<std::int64_t> parseInt64(std::string_view text)
{
    if (text.empty() || text.front() == '+') return std::nullopt;
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end) return std::nullopt;
    return v;
}

// Like parseInt64 but for a non-negative value that must fit `Max`.
inline std::optional<std::int64_t> parseBoundedInt(std::string_view text, std::int64_t min, std::int64_t max)
{
    auto v = parseInt64(text);
    if (!v || *v < min || *v > max) return std::nullopt;
    return v;
}

// 4e18 ns is about 126 years: every real timestamp (ns since the epoch, or
// since the profiler started) and duration lies inside it, and
// 2 * kMaxTimeNs < INT64_MAX, so sums and differences of two accepted times
// are exact.
inline constexpr std::int64_t kMaxTimeNs = 4'000'000'000'000'000'000;

inline bool timeInRange(std::int64_t ns)
{
    return ns >= -kMaxTimeNs && ns <= kMaxTimeNs;
}

// a + b, clamped to int64 instead of wrapping.
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t out = 0;
    if (__builtin_add_overflow(a, b, &out))
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return out;
}

// a - b, clamped to int64 instead of wrapping.
inline std::int64_t saturatingSub(std::int64_t a, std::int64_t b)
{
    std::int64_t out = 0;
    if (__builtin_sub_overflow(a, b, &out))
        return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return out;
}

} // namespace kwb
