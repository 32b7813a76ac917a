// kwb_bridge_sandbox_enter, the sandbox entry of libkwb_bridge.so's C ABI, as
// the bridge's worker calls it: in a forked child (the sandbox is for good),
// the return value and why_not's first word, then a write outside the
// allowed folder (EACCES) and one inside (works). A missing folder is the
// caller's error and enters nothing. Needs no device.
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "gpu/bridge/bridge_api.h"
#include "gpu_test.h"
#include "sandbox/sandbox.h"

namespace fs = std::filesystem;

// Declared by bridge_api.h from ABI 3 on; repeated so this test builds either way.
extern "C" int kwb_bridge_sandbox_enter(const char* writable_dirs_colon_separated, char* why_not, int capacity);

namespace {

// Child exit codes: 0 = as expected; 10+ = which expectation failed.
int child(const std::string& allowed, const std::string& outside, bool landlock)
{
    char why[512] = {};
    const int rc = kwb_bridge_sandbox_enter(allowed.c_str(), why, sizeof why);
    std::printf("  kwb_bridge_sandbox_enter: %d (%s)\n", rc, why);
    std::fflush(stdout);
    if (landlock ? rc != 0 : rc != 1) return 10;
    if (std::strncmp(why, landlock ? "landlock+seccomp" : "seccomp", landlock ? 16 : 7) != 0) return 11;
    const int in = ::open((allowed + "/ok").c_str(), O_WRONLY | O_CREAT, 0644);
    if (in < 0) return 12;
    ::close(in);
    if (landlock) {
        const int out = ::open((outside + "/forged").c_str(), O_WRONLY | O_CREAT, 0644);
        if (out >= 0 || errno != EACCES) return 13;
        if (::open("/proc/self/mem", O_RDWR) >= 0 || errno != EACCES) return 14;
    }
    if (::ptrace(PTRACE_ATTACH, ::getppid(), nullptr, nullptr) == 0 || errno != EPERM) return 15;
    return 0;
}

} // namespace

int main()
{
    char tmpl[] = "/tmp/kwb_bridge_sandbox_XXXXXX";
    const fs::path root = ::mkdtemp(tmpl);
    fs::create_directories(root / "allowed");
    fs::create_directories(root / "outside");
    char why[256] = {};
    GT_CHECK(kwb_bridge_sandbox_enter((root / "missing").c_str(), why, sizeof why) < 0);
    GT_CHECK(std::strstr(why, "missing") != nullptr);
    std::string whyNoLandlock;
    const bool landlock = kwb::sandbox::landlockAbi(&whyNoLandlock) > 0;
    if (!landlock) std::printf("  no Landlock here (%s): expecting seccomp alone\n", whyNoLandlock.c_str());
    const pid_t pid = ::fork();
    if (pid == 0) {
        std::fflush(stdout);
        ::_exit(child((root / "allowed").string(), (root / "outside").string(), landlock));
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    std::printf("  child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    GT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    GT_CHECK(!fs::exists(root / "outside" / "forged"));
    fs::remove_all(root);
    return kwb::gputest::finish("tst_bridge_sandbox");
}
