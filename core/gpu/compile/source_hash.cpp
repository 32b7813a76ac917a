#include "gpu/compile/source_hash.h"

#include <cstdlib>

namespace kwb::gpu {

std::string defaultCacheRoot()
{
    if (const char* d = std::getenv("KWB_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kwb";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kwb";
    return "/tmp/kwb-cache";
}

} // namespace kwb::gpu
