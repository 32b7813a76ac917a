#include "sandbox/sandbox.h"

#include <dirent.h>
#include <glob.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kwb::sandbox {

std::vector<std::string> defaultDeviceFiles()
{
    std::vector<std::string> out;
    for (const char* pattern : {"/dev/nvidia*", "/dev/nvidia-caps/*"}) {
        glob_t g{};
        if (::glob(pattern, 0, nullptr, &g) == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
        ::globfree(&g);
    }
    for (const char* p : {"/dev/shm", "/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"})
        if (::access(p, F_OK) == 0) out.emplace_back(p);
    return out;
}

std::string SandboxReport::applied() const
{
    if (landlock && seccomp) return "landlock+seccomp";
    if (seccomp) return "seccomp";
    if (landlock) return "landlock";
    return "none";
}

std::string SandboxReport::describe() const
{
    std::string s = "sandbox " + applied();
    if (landlock) {
        s += " (Landlock ABI " + std::to_string(landlockAbi);
        if (landlockNet) s += ", TCP denied";
        if (landlockScoped) s += ", signals and abstract sockets scoped";
        s += ")";
    }
    if (seccomp) s += ", " + std::to_string(denied.size()) + " calls denied";
    if (notDumpable) s += ", not dumpable";
    if (capabilitiesDropped) s += ", no capabilities";
    if (!whyNot.empty()) s += "; not applied: " + whyNot;
    return s;
}

namespace {

int threadCount()
{
    int n = 0;
    if (DIR* d = ::opendir("/proc/self/task")) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

// Drops every capability (bounding set, ambient, effective, permitted,
// inheritable): root's CAP_SYS_PTRACE and CAP_DAC_OVERRIDE would otherwise
// reach other processes' /proc entries where Landlock is missing.
bool dropCapabilities(std::string* why)
{
    for (int cap = 0; cap <= 63; ++cap)
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM) break;
    ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capset, &header, data) != 0) {
        *why = std::string("capset: ") + std::strerror(errno);
        return false;
    }
    return true;
}

} // namespace

SandboxReport enterSandbox(const SandboxConfig& config)
{
    SandboxReport r;
    r.threadsBefore = threadCount();
    // No new privileges first: Landlock and seccomp both require it of an
    // unprivileged caller, and a setuid helper could otherwise leave the sandbox.
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) r.noNewPrivs = true;
    else r.whyNot = std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
    // Not dumpable: no core dump of the candidate's memory, and /proc/PID of
    // this process is root's (another process of the same user cannot open it).
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0) r.notDumpable = true;
    std::string capWhy;
    r.capabilitiesDropped = dropCapabilities(&capWhy);
    if (!r.capabilitiesDropped) r.whyNot += (r.whyNot.empty() ? "" : "; ") + capWhy;
    // Landlock restricts the calling thread and what it starts from now on;
    // threads that already run (a CUDA context's, a thread pool's) stay outside
    // its domain on this ABI, which the report must say. seccomp (TSYNC) covers them.
    if (applyLandlock(config, r) && r.threadsBefore > 1)
        r.whyNot += (r.whyNot.empty() ? "" : "; ") + std::to_string(r.threadsBefore - 1) +
                    " thread(s) started before entry are outside the Landlock domain (seccomp covers them)";
    if (config.seccomp) applySeccomp(config, r);
    else r.whyNot += std::string(r.whyNot.empty() ? "" : "; ") + "seccomp switched off by the caller";
    return r;
}

} // namespace kwb::sandbox
