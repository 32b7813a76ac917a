#pragma once
// Bounds on what one untrusted input may cost, so that a small hostile file
// cannot hang a load or flood memory. Each has a documented default and an
// environment variable that overrides it (docs/reliability.md lists them);
// a limit that is hit fails the file with a message naming the file, the
// limit and the variable.
#include <cstdint>
#include <string>

namespace kwb {

struct InputLimits {
    // gzip: total inflated bytes of one file (KWB_MAX_INFLATED_MB), and the
    // inflated/compressed ratio once past 16 MiB (KWB_MAX_INFLATE_RATIO).
    std::uint64_t maxInflatedBytes = 16ull << 30;
    std::uint64_t maxInflateRatio = 250;
    // JSON nesting depth wherever a DOM is built (KWB_MAX_JSON_DEPTH).
    int maxJsonDepth = 512;
    // One unit (a trace event, or whitespace and the value after it) of the
    // streaming Kineto reader (KWB_MAX_TRACE_UNIT_MB).
    std::uint64_t maxTraceUnitBytes = 256ull << 20;
    // SQLite (Nsight Systems): wall time of a whole read (KWB_SQLITE_TIMEOUT_S),
    // rows per table (KWB_SQLITE_MAX_ROWS), bytes of one string or blob
    // (KWB_SQLITE_MAX_STRING_KB).
    std::int64_t sqliteTimeoutSeconds = 300;
    std::int64_t sqliteMaxRows = 200'000'000;
    std::int64_t sqliteMaxStringBytes = 4 << 20;
};

// The defaults overridden by the environment; read on each call (cheap), so
// tests and long-running front ends see changes.
InputLimits inputLimits();

// "the limit of 16 GiB inflated bytes (KWB_MAX_INFLATED_MB)" style text.
std::string describeByteLimit(std::uint64_t bytes, const char* variable);

} // namespace kwb
