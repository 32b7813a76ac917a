#pragma once
// Shared by the libFuzzer harnesses: the input as text, a private temporary
// file for readers that take a path, and a hard failure that libFuzzer
// records as a crash (with the input saved).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

namespace kwbfuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

// Writes the bytes to a per-process file (libFuzzer -jobs runs processes) and returns its path.
inline std::string writeTemp(const std::uint8_t* data, std::size_t size, const char* suffix)
{
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/kwb_fuzz_" + std::to_string(::getpid()) + suffix;
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size) std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    return path;
}

[[noreturn]] inline void fail(const std::string& what)
{
    std::fprintf(stderr, "kwb fuzz invariant broken: %s\n", what.c_str());
    std::abort();
}

} // namespace kwbfuzz
