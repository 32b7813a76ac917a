// The seccomp filter: a hand-written BPF program (no libseccomp needed)
// that denies, with EPERM, the calls through which a candidate would reach
// another process or the kernel's wider surface; everything else is allowed
// (CUDA's driver needs a broad set of calls). Foreign architectures (i386
// through int 0x80) and the x32 ABI are denied outright, since the syscall
// numbers below are the native ones. clone3 answers ENOSYS so that glibc
// falls back to clone, whose flags a filter can see: new namespaces are
// denied there.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "sandbox/sandbox.h"

namespace kwb::sandbox {

namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
#error "kwb_sandbox: add the audit architecture of this CPU"
#endif

struct Denied {
    long nr;
    const char* name;
};

#define KWB_DENY(n) Denied{__NR_##n, #n}

std::vector<Denied> deniedCalls(bool allowPerfEvents)
{
    std::vector<Denied> d{
        // Reaching another process's memory or descriptors.
        KWB_DENY(ptrace), KWB_DENY(process_vm_readv), KWB_DENY(process_vm_writev), KWB_DENY(kcmp),
#ifdef __NR_pidfd_getfd
        KWB_DENY(pidfd_getfd),
#endif
#ifdef __NR_process_madvise
        KWB_DENY(process_madvise),
#endif
        // Changing what the filesystem or the process is.
        KWB_DENY(mount), KWB_DENY(umount2), KWB_DENY(pivot_root), KWB_DENY(chroot), KWB_DENY(unshare),
        KWB_DENY(setns), KWB_DENY(personality), KWB_DENY(open_by_handle_at),
#ifdef __NR_fsopen
        KWB_DENY(fsopen), KWB_DENY(fsconfig), KWB_DENY(fsmount), KWB_DENY(fspick), KWB_DENY(move_mount),
        KWB_DENY(open_tree),
#endif
#ifdef __NR_mount_setattr
        KWB_DENY(mount_setattr),
#endif
        // The kernel's wider surface.
        KWB_DENY(bpf), KWB_DENY(keyctl), KWB_DENY(add_key), KWB_DENY(request_key), KWB_DENY(userfaultfd),
        KWB_DENY(kexec_load), KWB_DENY(init_module), KWB_DENY(finit_module), KWB_DENY(delete_module),
        KWB_DENY(reboot), KWB_DENY(swapon), KWB_DENY(swapoff), KWB_DENY(acct), KWB_DENY(quotactl),
        KWB_DENY(syslog),
#ifdef __NR_kexec_file_load
        KWB_DENY(kexec_file_load),
#endif
#if defined(__x86_64__)
        KWB_DENY(iopl), KWB_DENY(ioperm),
#endif
    };
    if (!allowPerfEvents) d.push_back(KWB_DENY(perf_event_open));
    return d;
}

#undef KWB_DENY

constexpr unsigned kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                                     CLONE_NEWNET | CLONE_NEWCGROUP;

sock_filter stmt(unsigned short code, unsigned k)
{
    return sock_filter{code, 0, 0, k};
}
sock_filter jump(unsigned short code, unsigned k, unsigned char jt, unsigned char jf)
{
    return sock_filter{code, jt, jf, k};
}

} // namespace

bool applySeccomp(const SandboxConfig& config, SandboxReport& report)
{
    const auto denied = deniedCalls(config.allowPerfEvents);
    const unsigned eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    const unsigned enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
    std::vector<sock_filter> p;
    // Native architecture only.
    p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
    p.push_back(stmt(BPF_RET | BPF_K, eperm));
    p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
    // x32 calls carry bit 30 (__X32_SYSCALL_BIT).
    p.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    p.push_back(stmt(BPF_RET | BPF_K, eperm));
#endif
    for (const auto& d : denied) {
        p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(d.nr), 0, 1));
        p.push_back(stmt(BPF_RET | BPF_K, eperm));
    }
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1));
    p.push_back(stmt(BPF_RET | BPF_K, enosys));
    // clone: deny namespace flags (argument 0, low word).
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4));
    p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
    p.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaceFlags, 0, 1));
    p.push_back(stmt(BPF_RET | BPF_K, eperm));
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));

    sock_fprog prog{static_cast<unsigned short>(p.size()), p.data()};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        report.whyNot += std::string(report.whyNot.empty() ? "" : "; ") + "prctl(PR_SET_NO_NEW_PRIVS): " +
                         std::strerror(errno);
        return false;
    }
    report.noNewPrivs = true;
    // TSYNC: every thread of the process (CUDA's included) gets the filter.
    if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        report.whyNot += std::string(report.whyNot.empty() ? "" : "; ") + "seccomp(SET_MODE_FILTER, TSYNC): " +
                         std::strerror(errno);
        return false;
    }
    report.seccomp = true;
    for (const auto& d : denied) report.denied.emplace_back(d.name);
    report.denied.emplace_back("clone(namespaces)");
    report.denied.emplace_back("clone3(ENOSYS)");
    return true;
}

} // namespace kwb::sandbox
