#pragma once
// Sandbox for the current process, entered once and never left: no new
// privileges, not dumpable, no capabilities, Landlock (reads and execution everywhere, writes
// only beneath the given folders and to the device files CUDA needs, no TCP,
// no signals or abstract sockets out of the domain) and a seccomp filter that
// denies the calls a candidate would use to reach its harness (ptrace,
// process_vm_*, kcmp, pidfd_getfd, mount, bpf, keyctl, userfaultfd, new
// namespaces, ...). What was applied, and why a part was not, is reported:
// a kernel without Landlock still gets seccomp, with the reason.
//
// Used by the shared-object candidate host (core/gpu/isolation) after CUDA is
// initialised and before the candidate is loaded, and through the bridge's C
// ABI (kwb_bridge_sandbox_enter). Qt-free and CUDA-free.
//
// Thread: call before any other thread starts (before CUDA's initialisation):
// Landlock (ABI <= 7) restricts the calling thread and the threads it starts
// later, not threads already running; seccomp (TSYNC) reaches every thread.
// The report says how many threads predate the Landlock domain.
#include <string>
#include <vector>

namespace kwb::sandbox {

struct SandboxConfig {
    // Folders (and files) that stay writable, recursively. Must exist.
    std::vector<std::string> writable;
    // Device files and folders opened read/write with ioctl after entry; empty
    // = defaultDeviceFiles().
    std::vector<std::string> devices;
    // perf_event_open stays allowed (measured: CUPTI's activity API does not need it).
    bool allowPerfEvents = false;
    // The seccomp filter (off only to measure what it costs).
    bool seccomp = true;
};

// /dev/nvidia* and /dev/nvidia-caps/*, /dev/shm, /dev/null, /dev/zero, /dev/full, /dev/urandom, /dev/random (those present).
std::vector<std::string> defaultDeviceFiles();

struct SandboxReport {
    bool noNewPrivs = false;
    bool notDumpable = false;
    bool capabilitiesDropped = false; // every capability set emptied (root keeps its uid, loses its privileges)
    int landlockAbi = 0;         // 0 = not available
    bool landlock = false;       // the ruleset is enforced
    bool landlockNet = false;    // TCP bind/connect denied (ABI >= 4)
    bool landlockScoped = false; // signals and abstract sockets scoped (ABI >= 6)
    bool seccomp = false;
    std::vector<std::string> denied; // syscall names the filter denies
    int threadsBefore = 0;           // threads of the process at entry (Landlock misses all but the caller)
    std::string whyNot;              // why a part was not applied (empty when all were)

    // "landlock+seccomp", "seccomp", "landlock" or "none" (the contract's isolation.sandbox).
    std::string applied() const;
    // One line for logs: what was applied, the ABI, and whyNot.
    std::string describe() const;
};

// Landlock's ABI version on this kernel, or 0 with `why` (ENOSYS: not built
// in; EOPNOTSUPP: built in but disabled at boot).
int landlockAbi(std::string* why = nullptr);

// Enters the sandbox. Parts that cannot be applied are skipped and named in
// whyNot; an error in a part that the kernel supports (a writable folder that
// does not exist, a rejected filter) is also named there and that part is not
// applied. The process is never left half-configured in a way the report
// does not say.
SandboxReport enterSandbox(const SandboxConfig& config);

// The pieces, for tests and reports.
bool applyLandlock(const SandboxConfig& config, SandboxReport& report);
bool applySeccomp(const SandboxConfig& config, SandboxReport& report);

} // namespace kwb::sandbox
