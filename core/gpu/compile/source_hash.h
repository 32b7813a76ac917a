#pragma once
// Content hash for cache keys: two independent 64-bit FNV-1a lanes, printed
// as 32 hex digits. Not cryptographic; collisions only cost a wrong cache hit
// between two sources the user wrote, which 128 bits make negligible.
#include <cstdint>
#include <string>
#include <string_view>

namespace kwb::gpu {

class SourceHash {
public:
    SourceHash& add(std::string_view bytes)
    {
        for (unsigned char c : bytes) {
            m_a = (m_a ^ c) * 0x100000001b3ULL;
            m_b = (m_b ^ c) * 0x100000001b3ULL;
            m_b ^= m_b >> 29;
        }
        // Field separator so ("ab","c") and ("a","bc") differ.
        m_a = (m_a ^ 0xffU) * 0x100000001b3ULL;
        m_b = (m_b ^ 0xfeU) * 0x100000001b3ULL;
        return *this;
    }
    std::string hex() const
    {
        static const char* kDigits = "0123456789abcdef";
        std::string out(32, '0');
        for (int i = 0; i < 16; ++i) {
            out[static_cast<std::size_t>(15 - i)] = kDigits[(m_a >> (4 * i)) & 0xf];
            out[static_cast<std::size_t>(31 - i)] = kDigits[(m_b >> (4 * i)) & 0xf];
        }
        return out;
    }

private:
    std::uint64_t m_a = 0xcbf29ce484222325ULL;
    std::uint64_t m_b = 0x84222325cbf29ce4ULL;
};

// Default on-disk cache root: $KWB_CACHE_DIR, else $XDG_CACHE_HOME/kwb, else ~/.cache/kwb.
std::string defaultCacheRoot();

} // namespace kwb::gpu
