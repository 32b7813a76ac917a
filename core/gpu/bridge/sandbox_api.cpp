// kwb_bridge_sandbox_enter: the bridge's worker enters the same sandbox as the
// shared-object candidate host (core/sandbox) before it imports a sample.
// Declared in bridge_api.h (ABI 3). Returns 0 = entered (Landlock and
// seccomp), 1 = entered in part or not at all because this kernel lacks a
// part, < 0 = the caller's error (a folder that does not exist: nothing
// entered). `why_not` always starts with what was applied, as the result's
// isolation.sandbox spells it ("landlock+seccomp", "seccomp", "none"), then
// ": " and the reason for what was not.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/bridge/bridge_api.h"
#include "sandbox/sandbox.h"

namespace {

void copyOut(const std::string& text, char* out, int capacity)
{
    if (!out || capacity <= 0) return;
    const std::size_t n = std::min(text.size(), static_cast<std::size_t>(capacity - 1));
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
}

std::vector<std::string> splitColons(const char* s)
{
    std::vector<std::string> out;
    if (!s) return out;
    std::string cur;
    for (const char* p = s;; ++p) {
        if (*p == ':' || *p == '\0') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
            if (*p == '\0') break;
        } else {
            cur += *p;
        }
    }
    return out;
}

} // namespace

extern "C" int kwb_bridge_sandbox_enter(const char* writable_dirs_colon_separated, char* why_not, int capacity);

extern "C" int kwb_bridge_sandbox_enter(const char* writable_dirs_colon_separated, char* why_not, int capacity)
{
    try {
        const auto dirs = splitColons(writable_dirs_colon_separated);
        // A folder that cannot be a rule is the caller's error: nothing is entered.
        for (const auto& d : dirs) {
            struct stat st {};
            if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
                copyOut("none: writable folder " + d + " does not exist or is not a folder", why_not, capacity);
                return -1;
            }
        }
        kwb::sandbox::SandboxConfig config;
        config.writable = dirs;
        const kwb::sandbox::SandboxReport r = kwb::sandbox::enterSandbox(config);
        const std::string applied = r.applied();
        copyOut(r.whyNot.empty() ? applied : applied + ": " + r.whyNot, why_not, capacity);
        if (r.landlock && r.seccomp) return 0;
        return 1;
    } catch (...) {
        copyOut("none: out of memory", why_not, capacity);
        return -3;
    }
}
