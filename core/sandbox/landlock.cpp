// Landlock: reads and execution everywhere, writes only beneath the
// configured folders and to the device files. The ruleset handles every
// access right of the kernel's ABI, so a right this code does not name is
// denied rather than left open (Debian 12's headers stop at ABI 2; the later
// rights are defined here with the kernel's values).
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "sandbox/sandbox.h"

namespace kwb::sandbox {

namespace {

// Rights after ABI 1 (linux/landlock.h of 6.12).
constexpr std::uint64_t kFsRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kFsTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ULL << 15;  // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ULL << 0;   // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0; // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;

constexpr std::uint64_t kFsReadOnly =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// Rights a rule on a file (not a folder) may carry.
constexpr std::uint64_t kFsFileRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | kFsTruncate |
    kFsIoctlDev;

// The ruleset attribute as of ABI 6; older kernels get its prefix.
struct RulesetAttr {
    std::uint64_t handledAccessFs;
    std::uint64_t handledAccessNet;
    std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
    std::uint64_t allowedAccess;
    std::int32_t parentFd;
};

std::uint64_t fsRightsOf(int abi)
{
    std::uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; // ABI 1: bits 0..12
    if (abi >= 2) r |= kFsRefer;
    if (abi >= 3) r |= kFsTruncate;
    if (abi >= 5) r |= kFsIoctlDev;
    return r;
}

std::string errnoText(const char* what, const std::string& path = {})
{
    std::string s = what;
    if (!path.empty()) s += " " + path;
    return s + ": " + std::strerror(errno);
}

// Adds a rule for `path` with `rights` (narrowed to file rights for a non-folder).
bool addRule(int ruleset, const std::string& path, std::uint64_t rights, std::string* why)
{
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
        *why = errnoText("landlock: cannot open", path);
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFsFileRights;
    PathBeneathAttr attr{rights, fd};
    const long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
    const int saved = errno;
    ::close(fd);
    if (rc != 0) {
        errno = saved;
        *why = errnoText("landlock_add_rule", path);
        return false;
    }
    return true;
}

} // namespace

int landlockAbi(std::string* why)
{
    const long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (v > 0) return static_cast<int>(v);
    if (why) {
        if (errno == ENOSYS) *why = "the kernel has no Landlock (ENOSYS)";
        else if (errno == EOPNOTSUPP) *why = "Landlock is built in but disabled (add landlock to the lsm= boot parameter)";
        else *why = errnoText("landlock_create_ruleset(version)");
    }
    return 0;
}

bool applyLandlock(const SandboxConfig& config, SandboxReport& report)
{
    std::string why;
    const int abi = landlockAbi(&why);
    report.landlockAbi = abi;
    if (abi == 0) {
        report.whyNot += (report.whyNot.empty() ? "" : "; ") + why;
        return false;
    }
    const std::uint64_t fsAll = fsRightsOf(abi);
    RulesetAttr attr{fsAll, 0, 0};
    std::size_t size = sizeof(std::uint64_t);
    if (abi >= 4) {
        attr.handledAccessNet = kNetBindTcp | kNetConnectTcp;
        size = 2 * sizeof(std::uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = kScopeAbstractUnix | kScopeSignal;
        size = sizeof attr;
    }
    const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0));
    if (ruleset < 0) {
        report.whyNot += (report.whyNot.empty() ? "" : "; ") + errnoText("landlock_create_ruleset");
        return false;
    }
    bool ok = addRule(ruleset, "/", kFsReadOnly & fsAll, &why);
    for (const auto& dir : config.writable)
        if (ok) ok = addRule(ruleset, dir, fsAll, &why);
    const auto devices = config.devices.empty() ? defaultDeviceFiles() : config.devices;
    // A device is read, written and ioctl'ed; /dev/shm is a folder where IPC may create files.
    for (const auto& dev : devices)
        if (ok) ok = addRule(ruleset, dev, fsAll & ~kFsRefer, &why);
    if (ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        why = errnoText("prctl(PR_SET_NO_NEW_PRIVS)");
        ok = false;
    }
    if (ok && ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        why = errnoText("landlock_restrict_self");
        ok = false;
    }
    ::close(ruleset);
    if (!ok) {
        report.whyNot += (report.whyNot.empty() ? "" : "; ") + why;
        return false;
    }
    report.landlock = true;
    report.landlockNet = abi >= 4;
    report.landlockScoped = abi >= 6;
    return true;
}

} // namespace kwb::sandbox
