"""What the candidate worker does to itself before it imports a sample, in
addition to (and independent of) the sandbox of libkwb_bridge.so: no new
privileges, every capability dropped, not dumpable. Pure ctypes (Linux), no
torch: the channel tests apply it to their stand-in worker.

Why the capabilities matter: the judge is not dumpable, which keeps a worker
of the same user out of /proc/<judge>/fd (the result channel) and
/proc/<judge>/mem -- unless the worker holds CAP_SYS_PTRACE, as any process of
root does (containers often run as root). Landlock does not restrict pipes
reached through /proc/<pid>/fd, so only dropping the capability closes that
route."""

import ctypes
import os
import platform

PR_CAPBSET_DROP = 24
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
CAP_VERSION_3 = 0x20080522
SYS_CAPSET = {"x86_64": 126, "aarch64": 185, "ppc64le": 184}.get(platform.machine())


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def no_dump():
    """PR_SET_DUMPABLE 0; True when set."""
    try:
        return _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def no_new_privs():
    try:
        return _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def capabilities():
    """The effective capability mask of this process (from /proc/self/status), or None."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except OSError:
        return None
    return None


def drop_capabilities():
    """Empties the bounding set (when allowed) and the effective, permitted
    and inheritable sets. Returns (ok, why_not)."""
    libc = _libc()
    try:
        for cap in range(64):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() not in (22, 1):
                break  # EINVAL past the last capability; EPERM without CAP_SETPCAP
        if SYS_CAPSET is None:
            return False, "capset: unknown system call number on %s" % platform.machine()
        hdr = _CapHeader(CAP_VERSION_3, 0)
        data = (_CapData * 2)()
        if libc.syscall(SYS_CAPSET, ctypes.byref(hdr), data) != 0:
            return False, "capset: %s" % os.strerror(ctypes.get_errno())
    except (OSError, AttributeError) as exc:
        return False, "capset: %s" % exc
    left = capabilities()
    if left:
        return False, "capabilities left after capset: %#x" % left
    return True, ""


def harden():
    """All three; returns the notes of what could not be done (empty: all done)."""
    notes = []
    if not no_new_privs():
        notes.append("no_new_privs not set")
    ok, why = drop_capabilities()
    if not ok:
        notes.append(why)
    if not no_dump():
        notes.append("PR_SET_DUMPABLE failed")
    return notes
