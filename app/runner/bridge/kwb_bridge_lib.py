"""ctypes view of libkwb_bridge.so (core/gpu/bridge/bridge_api.h), shared by
the judge and the candidate worker. No torch here: pointers and streams are
plain integers, so this module loads (and its pure parts are tested) anywhere.

ABI 2 is what the library had before issue 12; ABI 3 adds time_ex (refresh
callback, per-call mode, persisting-L2 reset), set_own_kernels, check (one
more comparison folded into post_timing / fresh_inputs / adversarial:<set>),
set_member (strict decode of a member measured elsewhere) and sandbox_enter.
Functions the loaded library lacks are None; `has(name)` says which exist, and
callers record a check they could not run instead of imitating it."""

import ctypes
import json
import os

LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class TimeArgs(ctypes.Structure):
    """KwbBridgeTimeArgs (bridge_api.h, ABI 3)."""
    _fields_ = [("reference", ctypes.c_int), ("launch", LAUNCH_FN), ("user", ctypes.c_void_p),
                ("refresh", LAUNCH_FN), ("refresh_user", ctypes.c_void_p), ("stream", ctypes.c_void_p),
                ("warmup", ctypes.c_int), ("trials", ctypes.c_int), ("l2_flush", ctypes.c_int),
                ("cupti", ctypes.c_int), ("per_call", ctypes.c_int), ("reset_persisting_l2", ctypes.c_int)]


P, I32, I64, D, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_double, ctypes.c_char_p
SIGNATURES = {
    "kwb_bridge_abi_version": (I32, []),
    "kwb_bridge_last_error": (S, []),
    "kwb_bridge_sentinel": (ctypes.c_uint64, [I32, I32]),
    "kwb_bridge_padded_bytes": (I64, [I64, I32]),
    "kwb_bridge_fill_sentinel": (I32, [P, I64, I32, I32, P]),
    "kwb_bridge_hash": (I32, [P, I64, ctypes.POINTER(ctypes.c_uint64), P]),
    "kwb_bridge_scanner_create": (P, []),
    "kwb_bridge_scanner_destroy": (None, [P]),
    "kwb_bridge_scan_first": (I32, [P, P, ctypes.POINTER(I64), I32, I32, I32, I32, P]),
    "kwb_bridge_scan_second": (I32, [P, P, P]),
    "kwb_bridge_device_info_json": (I64, [I32, S, I64]),
    "kwb_bridge_session_create": (P, []),
    "kwb_bridge_session_destroy": (None, [P]),
    "kwb_bridge_session_reset": (None, [P]),
    "kwb_bridge_session_set_tolerance": (I32, [P, S, S, D, D]),
    "kwb_bridge_session_add_coverage": (I32, [P, S, P, P]),
    "kwb_bridge_session_determinism": (I32, [P, I32, S, P, P, I64, I32, P]),
    "kwb_bridge_session_hash_input": (I32, [P, I32, S, P, I64, I32, P]),
    "kwb_bridge_session_compare": (I32, [P, I32, S, P, P, I64, P]),
    "kwb_bridge_session_time": (I32, [P, I32, LAUNCH_FN, P, P, I32, I32, I32, I32]),
    "kwb_bridge_session_result_size": (I64, [P]),
    "kwb_bridge_session_result_json": (I64, [P, S, I64]),
}
# ABI 3 (issue 12): optional until the library that has them is the one loaded.
SIGNATURES_V3 = {
    "kwb_bridge_session_time_ex": (I32, [P, ctypes.POINTER(TimeArgs)]),
    "kwb_bridge_session_set_own_kernels": (I32, [P, S]),
    "kwb_bridge_session_check": (I32, [P, S, I32, S, P, P, I64, P]),
    "kwb_bridge_session_set_member": (I32, [P, S, S]),
    "kwb_bridge_sandbox_enter": (I32, [S, S, I32]),
    "kwb_bridge_session_set_timing_budget": (I32, [P, ctypes.c_double]),
    "kwb_bridge_compute_sanitizer_path": (I64, [S, I64]),
    "kwb_bridge_sanitizer_tool_limit_s": (D, [D]),
}


class BridgeLib:
    MIN_ABI = 2

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        for name, (res, args) in SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        self.optional = {}
        for name, (res, args) in SIGNATURES_V3.items():
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = res
                fn.argtypes = args
            self.optional[name] = fn
        self.lib = lib
        self.path = path
        self.abi = lib.kwb_bridge_abi_version()
        if self.abi < self.MIN_ABI:
            raise OSError("%s speaks ABI %d, this bridge needs %d or later" % (path, self.abi, self.MIN_ABI))

    def has(self, name):
        return self.optional.get(name) is not None

    def error(self):
        return self.lib.kwb_bridge_last_error().decode("utf-8", "replace")

    def check(self, rc, what):
        if rc < 0:
            raise RuntimeError("%s: %s" % (what, self.error()))
        return rc

    def sentinel(self, elem_bytes, which):
        return self.lib.kwb_bridge_sentinel(elem_bytes, which)

    def padded_bytes(self, elements, elem_bytes):
        return self.check(self.lib.kwb_bridge_padded_bytes(elements, elem_bytes), "padded_bytes")

    def fill(self, ptr, elements, elem_bytes, which, stream):
        self.check(self.lib.kwb_bridge_fill_sentinel(ptr, elements, elem_bytes, which, stream), "sentinel fill")

    def device_info(self, ordinal):
        buf = ctypes.create_string_buffer(8192)
        self.check(self.lib.kwb_bridge_device_info_json(ordinal, buf, len(buf)), "device info")
        return json.loads(buf.value.decode("utf-8"))

    def compute_sanitizer(self, timeout_s):
        """(path, per-tool limit in seconds) as core finds them; path "" when the
        tool is not there, None when this library predates the sanitizer pass."""
        fn = self.optional.get("kwb_bridge_compute_sanitizer_path")
        limit = self.optional.get("kwb_bridge_sanitizer_tool_limit_s")
        if fn is None or limit is None:
            return None, 0.0
        buf = ctypes.create_string_buffer(4096)
        n = fn(buf, len(buf))
        return (buf.value.decode("utf-8", "replace") if n > 0 else ""), float(limit(float(timeout_s)))

    def sandbox_enter(self, writable_dirs):
        """(state, why_not): state "entered", "unavailable" or "error"."""
        fn = self.optional.get("kwb_bridge_sandbox_enter")
        if fn is None:
            return "unavailable", "this libkwb_bridge.so (ABI %d) has no kwb_bridge_sandbox_enter" % self.abi
        why = ctypes.create_string_buffer(1024)
        rc = fn(":".join(writable_dirs).encode("utf-8"), why, len(why))
        text = why.value.decode("utf-8", "replace")
        if rc == 0:
            return "entered", text
        if rc == 1:
            return "unavailable", text or "the sandbox is not available here"
        return "error", text or self.error()


class Scanner:
    def __init__(self, lib):
        self.lib = lib
        self.handle = lib.lib.kwb_bridge_scanner_create()
        if not self.handle:
            raise RuntimeError("cannot create a coverage scanner")

    def close(self):
        if self.handle:
            self.lib.lib.kwb_bridge_scanner_destroy(self.handle)
            self.handle = None

    def first(self, ptr, shape, elem_bytes, rows, cols, stream):
        dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        self.lib.check(self.lib.lib.kwb_bridge_scan_first(self.handle, ptr, dims, len(shape), elem_bytes, rows, cols,
                                                          stream), "coverage scan (pass A)")

    def second(self, ptr, stream):
        self.lib.check(self.lib.lib.kwb_bridge_scan_second(self.handle, ptr, stream), "coverage scan (pass B)")


class Session:
    """The core's check session (core/gpu/bridge/bridge_session.h), one request at a time."""

    def __init__(self, lib):
        self.lib = lib
        self.handle = lib.lib.kwb_bridge_session_create()
        if not self.handle:
            raise RuntimeError("cannot create a check session")

    def reset(self):
        self.lib.lib.kwb_bridge_session_reset(self.handle)

    def set_tolerance(self, policy, precision, atol, rtol):
        self.lib.check(self.lib.lib.kwb_bridge_session_set_tolerance(self.handle, policy.encode(), precision.encode(),
                                                                     atol, rtol), "tolerance")

    def add_coverage(self, name, scanner, stream):
        self.lib.check(self.lib.lib.kwb_bridge_session_add_coverage(self.handle, name.encode(), scanner.handle, stream),
                       "coverage collect")

    def determinism(self, index, name, a_ptr, b_ptr, count, elem_bytes, stream):
        self.lib.check(self.lib.lib.kwb_bridge_session_determinism(self.handle, index, name.encode(), a_ptr, b_ptr,
                                                                   count, elem_bytes, stream), "determinism")

    def hash_input(self, index, name, ptr, nbytes, after, stream):
        self.lib.check(self.lib.lib.kwb_bridge_session_hash_input(self.handle, index, name.encode(), ptr, nbytes,
                                                                  1 if after else 0, stream), "input hash")

    def compare(self, index, name, out_ptr, ref_ptr, count, stream):
        self.lib.check(self.lib.lib.kwb_bridge_session_compare(self.handle, index, name.encode(), out_ptr, ref_ptr,
                                                               count, stream), "compare")

    def check(self, which, index, name, out_ptr, ref_ptr, count, stream):
        """One more comparison folded into member `which` (ABI 3); False when the library cannot."""
        fn = self.lib.optional.get("kwb_bridge_session_check")
        if fn is None:
            return False
        self.lib.check(fn(self.handle, which.encode(), index, name.encode(), out_ptr, ref_ptr, count, stream),
                       "check %s" % which)
        return True

    def set_own_kernels(self, names):
        fn = self.lib.optional.get("kwb_bridge_session_set_own_kernels")
        if fn is None:
            return False
        self.lib.check(fn(self.handle, "\n".join(names).encode("utf-8")), "own kernels")
        return True

    def set_timing_budget(self, seconds):
        """Cuts each timed kernel's warm-ups and trials to fit `seconds` until
        the next reset (False when the library lacks it: full trial counts)."""
        fn = self.lib.optional.get("kwb_bridge_session_set_timing_budget")
        if fn is None or not seconds or seconds <= 0:
            return False
        self.lib.check(fn(self.handle, float(seconds)), "timing budget")
        return True

    def set_member(self, member, value):
        """Strict-decodes `value` (a JSON-able object) into result member
        `member`. Returns (True, "") when accepted, (False, why) when the
        core's decoder rejects it; None when the library has no set_member."""
        fn = self.lib.optional.get("kwb_bridge_session_set_member")
        if fn is None:
            return None
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        rc = fn(self.handle, member.encode("utf-8"), text.encode("utf-8"))
        if rc < 0:
            return False, self.lib.error()
        return True, ""

    def time(self, reference, launch, stream, warmup, trials, l2_flush, cupti, refresh=None, per_call=False,
             reset_persisting_l2=True):
        """Times `launch` (a callable taking no arguments) through the core's
        timer; `refresh` (a callable, or None) writes fresh input contents
        before each trial (ABI 3). Returns (exception or None, what ran):
        the exception `launch`/`refresh` raised (the timing stopped there)."""
        raised = []

        def guard(fn):
            def trampoline(_user, _stream):
                try:
                    fn()
                    return 0
                except BaseException as exc:  # reported once the timer has returned
                    raised.append(exc)
                    return 1
            return LAUNCH_FN(trampoline)

        fn = guard(launch)
        time_ex = self.lib.optional.get("kwb_bridge_session_time_ex")
        if time_ex is not None:
            args = TimeArgs(reference=1 if reference else 0, launch=fn, user=None,
                            refresh=guard(refresh) if refresh is not None else LAUNCH_FN(),
                            refresh_user=None, stream=stream, warmup=warmup, trials=trials,
                            l2_flush=1 if l2_flush else 0, cupti=1 if cupti else 0, per_call=1 if per_call else 0,
                            reset_persisting_l2=1 if reset_persisting_l2 else 0)
            rc = time_ex(self.handle, ctypes.byref(args))
            ran = "time_ex"
        else:
            rc = self.lib.lib.kwb_bridge_session_time(self.handle, 1 if reference else 0, fn, None, stream, warmup,
                                                      trials, 1 if l2_flush else 0, 1 if cupti else 0)
            ran = "time"
        if raised:
            return raised[0], ran
        self.lib.check(rc, "timing")
        return None, ran

    def result(self):
        size = self.lib.check(self.lib.lib.kwb_bridge_session_result_size(self.handle), "result size")
        buf = ctypes.create_string_buffer(int(size))
        self.lib.check(self.lib.lib.kwb_bridge_session_result_json(self.handle, buf, len(buf)), "result")
        return json.loads(buf.value.decode("utf-8"))


def find_library():
    """libkwb_bridge.so: $KWB_BRIDGE_LIB, else beside this module. Returns (lib, reason)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("KWB_BRIDGE_LIB")
    paths = [env] if env else [os.path.join(here, "libkwb_bridge.so")]
    for p in paths:
        if os.path.isfile(p):
            try:
                return BridgeLib(p), None
            except OSError as exc:
                return None, "cannot load %s: %s" % (p, exc)
    return None, "libkwb_bridge.so not found (set KWB_BRIDGE_LIB; looked at: %s)" % ", ".join(paths)
