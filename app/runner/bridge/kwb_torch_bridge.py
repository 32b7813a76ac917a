#!/usr/bin/env python3
"""The PyTorch bridge of Kernel Workbench.

Re-runs KernelBench samples -- a Python module defining ``ModelNew``, usually
with CUDA built by ``torch.utils.cpp_extension.load_inline`` -- against the
``Model`` of a KernelBench problem file, behind the same ``kwb.rerun/1``
JSON-lines protocol as kwb-runner (requests on stdin, replies on stdout).

This script holds no check logic. It supplies what only Python can: calls of
the sample's ModelNew and of the problem's Model, their tensors (device
pointers, sizes, dtypes), and sentinel-poisoned memory for the sample's own
allocations. Every measurement that decides the verdict is the core's C++,
through libkwb_bridge.so (core/gpu/bridge/bridge_api.h, loaded with ctypes
from beside this script or from $KWB_BRIDGE_LIB): the two-pass coverage scan,
KernelBench's allclose with scale-invariant metrics and zero acceptance over
the trials, input hashes, determinism, timing (warm-up, L2 flush, CUDA events
with the calibrated bracket, the statistics), the CUPTI window of every kernel
on every stream and its library kernels by the rule table; the result's check
members are encoded by the core's protocol encoder.

Without PyTorch (or without a CUDA device, or without the library) it still
speaks the protocol: ``hello`` is answered with device_present = false and the
reason, a ``rerun`` with status no_device, and the process exits with status 1.

    python3 kwb_torch_bridge.py          serve the protocol on stdin/stdout
    python3 kwb_torch_bridge.py --check  print the capabilities line; exit 0 when usable
    python3 kwb_torch_bridge.py --build SAMPLE.py...  build the samples' extensions into the cache
"""

import ctypes
import hashlib
import inspect
import json
import math
import os
import re
import sys
import time
import traceback
import types

PROTOCOL = "kwb.rerun/1"
BRIDGE_VERSION = "kwb_torch_bridge 1"
REFERENCE_NAME = "kernelbench_model"
EXIT_UNUSABLE = 1  # no torch / no device / no library
EXIT_FATAL = 4     # sticky CUDA error: the parent starts a fresh bridge (as kwb-runner)

# The members of a result that the core's session fills (the checks); the
# rest of a result line is this bridge's bookkeeping of the request.
CHECK_MEMBERS = ("precision", "tolerance", "coverage", "outputs", "inputs", "candidate_timing", "reference_timing",
                 "speedup", "candidate_cupti", "reference_cupti")

torch = None
TORCH_ERROR = None
try:
    import torch  # noqa: E402
except Exception as exc:  # ImportError, or a broken install
    TORCH_ERROR = "%s: %s" % (type(exc).__name__, exc)


class CandidateError(Exception):
    """The sample (not the bridge) failed; `status` is a protocol status name."""

    def __init__(self, status, message, fatal=False):
        super().__init__(message)
        self.status = status
        self.fatal = fatal


def num(v):
    """Protocol numbers: non-finite values travel as strings."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def finite(obj):
    """Non-finite floats anywhere in a message become the protocol's strings."""
    if isinstance(obj, float):
        return num(obj)
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def cache_root():
    root = os.environ.get("KWB_CACHE_DIR")
    if root:
        return root
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "kwb")
    return os.path.join(os.path.expanduser("~"), ".cache", "kwb")


# ---------------------------------------------------------------- the library

LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class BridgeLib:
    """ctypes view of core/gpu/bridge/bridge_api.h (the parts this bridge uses)."""

    ABI_VERSION = 2

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        P, I32, I64, D = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_double
        sig = {
            "kwb_bridge_abi_version": (I32, []),
            "kwb_bridge_last_error": (ctypes.c_char_p, []),
            "kwb_bridge_sentinel": (ctypes.c_uint64, [I32, I32]),
            "kwb_bridge_padded_bytes": (I64, [I64, I32]),
            "kwb_bridge_fill_sentinel": (I32, [P, I64, I32, I32, P]),
            "kwb_bridge_scanner_create": (P, []),
            "kwb_bridge_scanner_destroy": (None, [P]),
            "kwb_bridge_scan_first": (I32, [P, P, ctypes.POINTER(I64), I32, I32, I32, I32, P]),
            "kwb_bridge_scan_second": (I32, [P, P, P]),
            "kwb_bridge_device_info_json": (I64, [I32, ctypes.c_char_p, I64]),
            "kwb_bridge_session_create": (P, []),
            "kwb_bridge_session_destroy": (None, [P]),
            "kwb_bridge_session_reset": (None, [P]),
            "kwb_bridge_session_set_tolerance": (I32, [P, ctypes.c_char_p, ctypes.c_char_p, D, D]),
            "kwb_bridge_session_add_coverage": (I32, [P, ctypes.c_char_p, P, P]),
            "kwb_bridge_session_determinism": (I32, [P, I32, ctypes.c_char_p, P, P, I64, I32, P]),
            "kwb_bridge_session_hash_input": (I32, [P, I32, ctypes.c_char_p, P, I64, I32, P]),
            "kwb_bridge_session_compare": (I32, [P, I32, ctypes.c_char_p, P, P, I64, P]),
            "kwb_bridge_session_time": (I32, [P, I32, LAUNCH_FN, P, P, I32, I32, I32, I32]),
            "kwb_bridge_session_result_size": (I64, [P]),
            "kwb_bridge_session_result_json": (I64, [P, ctypes.c_char_p, I64]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        self.lib = lib
        version = lib.kwb_bridge_abi_version()
        if version != self.ABI_VERSION:
            raise OSError("%s speaks ABI %d, this bridge %d" % (path, version, self.ABI_VERSION))

    def check(self, rc, what):
        if rc < 0:
            raise RuntimeError("%s: %s" % (what, self.lib.kwb_bridge_last_error().decode("utf-8", "replace")))
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
    """The core's check session (core/gpu/bridge/bridge_session.h) for one request at a time."""

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

    def time(self, reference, launch, stream, warmup, trials, l2_flush, cupti):
        """Times `launch` (a callable taking no arguments) through the core's timer.
        Returns None, or the exception `launch` raised (the timing stopped there)."""
        raised = []

        def trampoline(_user, _stream):
            try:
                launch()
                return 0
            except BaseException as exc:  # reported once the timer has returned
                raised.append(exc)
                return 1

        fn = LAUNCH_FN(trampoline)
        rc = self.lib.lib.kwb_bridge_session_time(self.handle, 1 if reference else 0, fn, None, stream, warmup,
                                                  trials, 1 if l2_flush else 0, 1 if cupti else 0)
        if raised:
            return raised[0]
        self.lib.check(rc, "timing")
        return None

    def result(self):
        size = self.lib.check(self.lib.lib.kwb_bridge_session_result_size(self.handle), "result size")
        buf = ctypes.create_string_buffer(int(size))
        self.lib.check(self.lib.lib.kwb_bridge_session_result_json(self.handle, buf, len(buf)), "result")
        return json.loads(buf.value.decode("utf-8"))


def find_library():
    """libkwb_bridge.so: $KWB_BRIDGE_LIB, else beside this script. Returns (lib, reason)."""
    here = os.path.dirname(os.path.abspath(__file__))
    tried = []
    env = os.environ.get("KWB_BRIDGE_LIB")
    paths = [env] if env else [os.path.join(here, "libkwb_bridge.so")]
    for p in paths:
        tried.append(p)
        if os.path.isfile(p):
            try:
                return BridgeLib(p), None
            except OSError as exc:
                return None, "cannot load %s: %s" % (p, exc)
    return None, "libkwb_bridge.so not found (set KWB_BRIDGE_LIB; looked at: %s)" % ", ".join(tried)


# ---------------------------------------------------------------- modules

# load_inline's arguments that shape the binary it builds.
EXTENSION_KEYS = ("name", "cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags",
                  "extra_ldflags", "extra_include_paths", "with_cuda", "is_python_module")


def extension_digest(arguments, toolchain):
    """Source hash of a load_inline call: its binary-shaping arguments and the
    toolchain (torch, CUDA, GPU, arch list), 24 hex digits."""
    h = hashlib.sha256()
    for key in EXTENSION_KEYS:
        h.update(repr(arguments.get(key)).encode("utf-8", "replace"))
        h.update(b"\0")
    h.update(toolchain.encode("utf-8", "replace"))
    return h.hexdigest()[:24]


def extension_name(name, digest):
    """The module name a cached build gets: the sample's name made safe, plus the digest."""
    safe = re.sub(r"[^A-Za-z0-9_]", "_", str(name or "ext"))
    return "%s_kwb%s" % (safe, digest[:12])


class ExtensionCache:
    """Routes load_inline builds to a folder named by a hash of everything that
    shapes the binary, so a second re-run of the same sample reuses the build
    (torch's own JIT then finds it up to date)."""

    def __init__(self):
        self.calls = 0
        self.hits = 0
        self.original = None

    def build_folder(self, digest):
        """The build folder of `digest` (created) and whether it already holds a build; counts the call."""
        build = os.path.join(cache_root(), "torch_ext", digest)
        os.makedirs(build, exist_ok=True)
        hit = any(f.endswith(".so") for f in os.listdir(build))
        self.calls += 1
        self.hits += 1 if hit else 0
        return build, hit

    def install(self):
        import torch.utils.cpp_extension as cpp_ext
        if self.original is None:
            self.original = cpp_ext.load_inline
        original = self.original
        signature = inspect.signature(original)
        cache = self

        def cached_load_inline(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
            toolchain = "%s|%s|%s|%s" % (torch.__version__, torch.version.cuda, torch.cuda.get_device_capability(),
                                         os.environ.get("TORCH_CUDA_ARCH_LIST", ""))
            digest = extension_digest(a, toolchain)
            build, hit = cache.build_folder(digest)
            a["name"] = extension_name(a.get("name"), digest)
            a["build_directory"] = build
            return original(*bound.args, **bound.kwargs)

        cpp_ext.load_inline = cached_load_inline


def load_module(prefix, source, label):
    digest = hashlib.sha256(source.encode("utf-8", "replace")).hexdigest()[:16]
    name = "%s_%s" % (prefix, digest)
    module = types.ModuleType(name)
    module.__file__ = label
    sys.modules[name] = module
    code = compile(source, label, "exec")
    exec(code, module.__dict__)
    return module


# ---------------------------------------------------------------- helpers

def tensors_of(value):
    """Output tensors of a forward call, in order (a tensor, or a tuple/list of them)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(tensors_of(v))
        return out
    return []


def poisonable(t):
    """Outputs the sentinel fill and the scan handle: device tensors of 2-, 4- or 8-byte elements."""
    return t.is_cuda and t.element_size() in (2, 4, 8)


def output_names(n):
    return ["output"] + ["output%d" % i for i in range(1, n)]


def int_view_dtype(elem_bytes):
    return {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[elem_bytes]


def signed(bits, elem_bytes):
    width = 8 * elem_bytes
    return bits - (1 << width) if bits >= (1 << (width - 1)) else bits


def is_cuda_fault(exc):
    text = str(exc)
    return any(s in text for s in ("CUDA error", "illegal memory access", "unspecified launch failure",
                                   "device-side assert", "misaligned address", "illegal instruction",
                                   "CUBLAS_STATUS_EXECUTION_FAILED", "an illegal"))


def context_broken():
    try:
        torch.cuda.synchronize()
        t = torch.ones(1, device="cuda")
        return float((t + 1).item()) != 2.0
    except Exception:
        return True


def classify(exc, what):
    """A CandidateError for an exception raised while running sample code."""
    if isinstance(exc, CandidateError):
        return exc
    if torch is not None and isinstance(exc, getattr(torch.cuda, "OutOfMemoryError", ())):
        return CandidateError("oom", "%s: out of device memory: %s" % (what, exc))
    if is_cuda_fault(exc) or context_broken():
        return CandidateError("fault", "%s: CUDA fault: %s" % (what, exc), fatal=context_broken())
    tail = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return CandidateError("launch_error", "%s raised %s" % (what, tail))


# ---------------------------------------------------------------- the bridge

class Bridge:
    def __init__(self, out):
        self.out = out
        self.lib = None
        self.reason = None
        self.device = None
        self.session = None
        self.ext_cache = ExtensionCache()
        self.tol_policy = ("kernelbench", 0.0, 0.0)
        if torch is None:
            self.reason = "PyTorch is not installed (%s: %s)" % (sys.executable, TORCH_ERROR)
            return
        try:
            if not torch.cuda.is_available():
                self.reason = "PyTorch %s sees no CUDA device (torch.cuda.is_available() is False)" % torch.__version__
                return
        except Exception as exc:
            self.reason = "PyTorch %s cannot use CUDA: %s" % (torch.__version__, exc)
            return
        self.lib, why = find_library()
        if self.lib is None:
            self.reason = why
            return
        torch.cuda.set_device(0)
        try:
            self.device = self.lib.device_info(0)
            self.session = Session(self.lib)
        except Exception as exc:
            self.reason = "cannot open CUDA device 0: %s" % exc
            self.lib = None
            return
        cap = torch.cuda.get_device_capability(0)
        # Build extensions for this GPU only: faster, and what the sample runs on.
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % cap)
        self.ext_cache.install()

    @property
    def usable(self):
        return self.reason is None

    # -- protocol output

    def send(self, obj):
        self.out.write(json.dumps(finite(obj), ensure_ascii=False, allow_nan=False) + "\n")
        self.out.flush()

    def header(self, kind, rid):
        return {"protocol": PROTOCOL, "type": kind, "id": rid}

    def capabilities(self, rid):
        c = self.header("capabilities", rid)
        c["runner_version"] = BRIDGE_VERSION + (" (torch %s)" % torch.__version__ if torch is not None else "")
        c["device_present"] = self.usable
        if self.reason:
            c["reason"] = self.reason
        c["device"] = self.device or {"name": ""}
        c["references"] = [REFERENCE_NAME] if self.usable else []
        return c

    def progress(self, rid, stage, done, total):
        p = self.header("progress", rid)
        p.update({"stage": stage, "done": int(done), "total": int(total)})
        self.send(p)

    # -- rerun

    def rerun(self, msg):
        started = time.perf_counter()
        rid = msg.get("id", "")
        problem = msg.get("problem") or {}
        candidate = msg.get("candidate") or {}
        r = self.header("result", rid)
        r.update({"problem_id": problem.get("id", ""), "candidate_id": candidate.get("id", ""),
                  "status": "internal_error", "message": "", "device": self.device or {"name": ""}, "sizes": {},
                  "precision": "float32", "coverage": [], "outputs": [], "inputs": []})
        tol = problem.get("tolerance") or {}
        self.tol_policy = (str(tol.get("policy", "kernelbench")), float(tol.get("atol", 0.0)), float(tol.get("rtol", 0.0)))
        try:
            if not self.usable:
                raise CandidateError("no_device", self.reason)
            kb = msg.get("kernelbench") or {}
            if candidate.get("form") != "kernelbench_sample" or not kb.get("problem_source"):
                raise CandidateError("unsupported", "the PyTorch bridge runs KernelBench samples (candidate form "
                                     "'kernelbench_sample' with the problem's Python source in 'kernelbench'); "
                                     "this candidate's form is '%s'" % candidate.get("form", "?"))
            self.session.reset()
            try:
                self.run_sample(rid, problem, candidate, kb, msg.get("options") or {}, r)
            finally:
                # What the checks measured, as the core encodes it (also when the sample failed part-way).
                checks = self.session.result()
                for key in CHECK_MEMBERS:
                    if key in checks:
                        r[key] = checks[key]
            r["status"] = "ok"
        except CandidateError as exc:
            r["status"] = exc.status
            r["message"] = str(exc)
            if exc.fatal:
                r["fatal"] = True
        except Exception as exc:  # the bridge's own failure
            r["status"] = "internal_error"
            where = traceback.extract_tb(exc.__traceback__)[-1]
            r["message"] = "bridge error at %s:%d: %s" % (os.path.basename(where.filename), where.lineno, "".join(
                traceback.format_exception_only(type(exc), exc)).strip())
            traceback.print_exc(file=sys.stderr)
            if torch is not None and self.usable and context_broken():
                r["fatal"] = True
        wall = (time.perf_counter() - started) * 1e3
        r["wall_ms"] = num(wall)
        try:
            warmup = int((msg.get("options") or {}).get("warmup", 10))
        except (TypeError, ValueError, AttributeError):
            warmup = 0
        r["overhead_ms"] = num(max(0.0, wall - timed_ms(r, warmup)))
        return r

    def run_sample(self, rid, problem, candidate, kb, options, r):
        seed = int(options.get("seed", 42))
        trials = int(options.get("trials", 100))
        warmup = int(options.get("warmup", 10))
        correctness_trials = max(1, int(options.get("correctness_trials", 3)))
        grid_rows = int(options.get("coverage_rows", 32))
        grid_cols = int(options.get("coverage_cols", 32))
        l2_flush = bool(options.get("l2_flush", True))
        use_cupti = bool(options.get("cupti", True))
        time_reference = bool(options.get("time_reference", True))
        stream = torch.cuda.current_stream()
        sp = ctypes.c_void_p(stream.cuda_stream)

        # Modules. The problem's failures are the bridge's input errors; the sample's are the candidate's.
        self.progress(rid, "compile", 0, 1)
        try:
            prob = load_module("kwb_problem", kb["problem_source"], kb.get("problem_file") or "<problem>")
        except Exception as exc:
            raise CandidateError("internal_error", "the KernelBench problem %s does not load: %s" % (
                kb.get("problem_file", ""), traceback.format_exception_only(type(exc), exc)[-1].strip()))
        for part in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(prob, part):
                raise CandidateError("internal_error", "the KernelBench problem %s defines no %s" % (
                    kb.get("problem_file", ""), part))
        # Size overrides replace integer module globals (batch_size, dim, ...),
        # which get_inputs()/get_init_inputs() read when called.
        for name, value in sorted((options.get("sizes") or {}).items()):
            current = getattr(prob, name, None)
            if not isinstance(current, int) or isinstance(current, bool):
                raise CandidateError("unsupported", "size override '%s': the problem has no integer global of that "
                                     "name" % name)
            setattr(prob, name, int(value))
            r["sizes"][name] = int(value)
        calls0, hits0 = self.ext_cache.calls, self.ext_cache.hits
        t0 = time.perf_counter()
        try:
            sample = load_module("kwb_sample", candidate.get("source", ""), "<sample %s>" % candidate.get("id", ""))
        except Exception as exc:
            if is_cuda_fault(exc) and context_broken():
                raise CandidateError("fault", "loading the sample faulted: %s" % exc, fatal=True)
            raise CandidateError("compile_error", "the sample does not build or import: %s" % str(exc)[-4000:])
        torch.cuda.synchronize()
        r["compile_ms"] = num((time.perf_counter() - t0) * 1e3)
        calls = self.ext_cache.calls - calls0
        r["compile_cache_hit"] = calls > 0 and self.ext_cache.hits - hits0 == calls
        if not hasattr(sample, "ModelNew"):
            raise CandidateError("compile_error", "the sample defines no class ModelNew")
        self.progress(rid, "compile", 1, 1)

        def to_cuda(xs):
            return [x.cuda() if isinstance(x, torch.Tensor) else x for x in xs]

        def make_inputs(s):
            # Generated on the GPU (same distributions as KernelBench's CPU
            # generation, other values): KernelBench's current shapes hold
            # gigabytes, which the CPU would take seconds to draw.
            torch.manual_seed(s)
            torch.cuda.manual_seed(s)
            try:
                with torch.device("cuda"):
                    return to_cuda(prob.get_inputs())
            except Exception:
                torch.manual_seed(s)
                return to_cuda(prob.get_inputs())

        with torch.no_grad():
            init_inputs = to_cuda(prob.get_init_inputs())
            torch.manual_seed(seed)
            torch.cuda.manual_seed(seed)
            try:
                model = prob.Model(*init_inputs).cuda()
            except Exception as exc:
                raise CandidateError("internal_error", "the problem's Model(*get_init_inputs()) failed: %s" % exc)
            torch.manual_seed(seed)
            torch.cuda.manual_seed(seed)
            try:
                model_new = sample.ModelNew(*init_inputs).cuda()
                torch.cuda.synchronize()
            except Exception as exc:
                raise classify(exc, "ModelNew(*get_init_inputs())")

            def call_candidate(inputs, what):
                try:
                    out = model_new(*inputs)
                    torch.cuda.synchronize()
                    return out
                except Exception as exc:
                    raise classify(exc, what)

            self.check_correctness(rid, model, call_candidate, make_inputs, seed, correctness_trials, grid_rows,
                                   grid_cols, sp, r)
            inputs = make_inputs(seed)
            torch.cuda.synchronize()
            self.progress(rid, "timing", 0, 2)
            self.measure(False, lambda: model_new(*inputs), trials, warmup, l2_flush, use_cupti, "ModelNew")
            if time_reference:
                self.progress(rid, "reference", 1, 2)
                self.measure(True, lambda: model(*inputs), trials, warmup, l2_flush, use_cupti, None)
            self.progress(rid, "timing", 2, 2)

    # -- poisoning and coverage

    def poison_pool(self, which, elem_bytes, want_bytes, sp):
        """Fills the caching allocator's free blocks (and a few fresh blocks of
        the output's size) with sentinel `which`, then frees them: the pool
        keeps them, so the sample's torch.empty outputs start poisoned."""
        held = []
        try:
            snapshot = torch.cuda.memory_snapshot()
            free_sizes = [b["size"] for seg in snapshot if seg.get("device", 0) == torch.cuda.current_device()
                          for b in seg.get("blocks", []) if b.get("state") == "inactive"]
            free_dev, _total = torch.cuda.mem_get_info()
            budget = int(free_dev * 0.5)
            sizes = sorted(free_sizes, reverse=True)
            rounded = max(512, (int(want_bytes) + 511) // 512 * 512)
            for _ in range(3):
                if rounded <= budget:
                    sizes.append(rounded)
                    budget -= rounded
            for size in sizes:
                try:
                    t = torch.empty(int(size), dtype=torch.uint8, device="cuda")
                except Exception:  # out of memory: poison what we could
                    break
                self.lib.fill(ctypes.c_void_p(t.data_ptr()), t.numel() // elem_bytes, elem_bytes, which, sp)
                held.append(t)
            torch.cuda.synchronize()
        finally:
            del held  # back to the pool, poisoned (no empty_cache)

    def fill_tensor(self, t, which, elem_bytes):
        """Sentinel fill of a tensor the sample returned (it may hand the same buffer back next time)."""
        bits = signed(self.lib.sentinel(elem_bytes, which), elem_bytes)
        if t.is_contiguous() and t.numel() > 0:
            t.view(-1).view(int_view_dtype(elem_bytes)).fill_(bits)

    def scan_source(self, t, elem_bytes):
        """A pointer the scan may read: the tensor itself when it is contiguous and
        starts a 512-byte unit of the caching allocator, else a padded copy."""
        if t.is_contiguous() and t.data_ptr() % 512 == 0:
            return t, t.data_ptr()
        padded = self.lib.padded_bytes(t.numel(), elem_bytes)
        buf = torch.empty(padded, dtype=torch.uint8, device="cuda")
        buf[: t.numel() * elem_bytes].view(t.dtype).copy_(t.reshape(-1))
        return buf, buf.data_ptr()

    def check_correctness(self, rid, model, call_candidate, make_inputs, seed, n_trials, grid_rows, grid_cols, sp, r):
        """Correctness trials on fresh inputs: the reference's outputs, the
        sample's outputs from poisoned memory, the inputs' bytes before and
        after, all handed to the core's session, which keeps the verdict."""
        sess = self.session
        names = None
        for trial in range(n_trials):
            self.progress(rid, "correctness", trial, n_trials)
            inputs = make_inputs(seed + trial)
            ref = tensors_of(model(*inputs))
            torch.cuda.synchronize()
            if not ref:
                raise CandidateError("unsupported", "the problem's Model returns no tensor")
            names = names or output_names(len(ref))
            # Inputs the session hashes: contiguous tensors, numbered among the tensor arguments.
            hashed = [(k, i, x) for k, (i, x) in enumerate((i, x) for i, x in enumerate(inputs)
                                                         if isinstance(x, torch.Tensor)) if x.is_contiguous()]
            for k, i, x in hashed:
                sess.hash_input(k, "input%d" % i, ctypes.c_void_p(x.data_ptr()), x.numel() * x.element_size(), False,
                                sp)

            if trial == 0:
                out = self.coverage_runs(rid, names, inputs, call_candidate, grid_rows, grid_cols, sp)
                eb = out[0].element_size() if out else 4
                nbytes = max((t.numel() * t.element_size() for t in out), default=0)
            else:
                # Fresh inputs, poisoned memory again, and the buffers the last
                # call returned poisoned too (a sample may hand them back stale).
                self.poison_pool(0, eb if eb in (2, 4, 8) else 4, nbytes, sp)
                input_ptrs = {x.data_ptr() for x in inputs if isinstance(x, torch.Tensor)}
                for t in prev:
                    if poisonable(t) and t.data_ptr() not in input_ptrs:
                        self.fill_tensor(t, 0, t.element_size())
                torch.cuda.synchronize()
                del prev
                out = tensors_of(call_candidate(inputs, "ModelNew.forward"))

            for k, i, x in hashed:
                sess.hash_input(k, "input%d" % i, ctypes.c_void_p(x.data_ptr()), x.numel() * x.element_size(), True,
                                sp)

            for k, ref_t in enumerate(ref):
                precision = {torch.float16: "float16", torch.bfloat16: "bfloat16"}.get(ref_t.dtype, "float32")
                sess.set_tolerance(self.tol_policy[0], precision, self.tol_policy[1], self.tol_policy[2])
                ref_f = ref_t.detach().float().reshape(-1).contiguous()
                o = out[k] if k < len(out) else None
                # KernelBench fails a shape mismatch; the session records it as such.
                out_f = o.detach().float().reshape(-1).contiguous() if (
                    o is not None and tuple(o.shape) == tuple(ref_t.shape)) else None
                sess.compare(k, names[k], ctypes.c_void_p(out_f.data_ptr()) if out_f is not None else None,
                             ctypes.c_void_p(ref_f.data_ptr()), ref_f.numel(), sp)
                del ref_f, out_f
            prev = out
            del ref
        self.progress(rid, "correctness", n_trials, n_trials)

    def coverage_runs(self, rid, names, inputs, call_candidate, grid_rows, grid_cols, sp):
        """Run 0 (unpoisoned) finds the outputs' width and size; run A and run B
        start from sentinel-poisoned memory (the pool and whatever buffers run 0
        returned); the core's scan and session combine them and compare A with
        B for determinism."""
        lib = self.lib
        sess = self.session
        self.progress(rid, "coverage", 0, 2)
        out0 = tensors_of(call_candidate(inputs, "ModelNew.forward"))
        if not out0:
            raise CandidateError("launch_error", "ModelNew.forward returned no tensor")
        eb = out0[0].element_size()
        nbytes = max(t.numel() * t.element_size() for t in out0)
        scannable = [poisonable(t) for t in out0]

        # A returned buffer that is one of the inputs is left alone: poisoning
        # it would change the inputs (the input hashes report such samples).
        input_ptrs = {x.data_ptr() for x in inputs if isinstance(x, torch.Tensor)}
        self.poison_pool(0, eb if eb in (2, 4, 8) else 4, nbytes, sp)
        for t in out0:
            if poisonable(t) and t.data_ptr() not in input_ptrs:
                self.fill_tensor(t, 0, t.element_size())
        torch.cuda.synchronize()
        out_a = tensors_of(call_candidate(inputs, "ModelNew.forward"))
        scanners = []
        keep_a = []
        for k, t in enumerate(out_a):
            if k < len(scannable) and scannable[k] and poisonable(t):
                sc = Scanner(lib)
                src, ptr = self.scan_source(t, t.element_size())
                sc.first(ctypes.c_void_p(ptr), list(t.shape), t.element_size(), grid_rows, grid_cols, sp)
                torch.cuda.synchronize()
                del src
                scanners.append((k, sc))
            keep_a.append(t.detach().clone())
        self.progress(rid, "coverage", 1, 2)

        self.poison_pool(1, eb if eb in (2, 4, 8) else 4, nbytes, sp)
        for t in out_a + out0:
            if poisonable(t) and t.data_ptr() not in input_ptrs:
                self.fill_tensor(t, 1, t.element_size())
        torch.cuda.synchronize()
        del out0, out_a
        out_b = tensors_of(call_candidate(inputs, "ModelNew.forward"))

        for k, sc in scanners:
            try:
                if k >= len(out_b) or out_b[k].shape != keep_a[k].shape or out_b[k].dtype != keep_a[k].dtype:
                    continue
                src, ptr = self.scan_source(out_b[k], out_b[k].element_size())
                sc.second(ctypes.c_void_p(ptr), sp)
                sess.add_coverage(names[k] if k < len(names) else "output%d" % k, sc, sp)
                del src
            finally:
                sc.close()

        # Determinism: runs A and B saw equal inputs; the session compares the elements both wrote.
        for k, t in enumerate(out_b):
            if k < len(keep_a) and keep_a[k].shape == t.shape and keep_a[k].dtype == t.dtype:
                b = t.detach().contiguous()
                sess.determinism(k, names[k] if k < len(names) else "output%d" % k,
                                 ctypes.c_void_p(keep_a[k].data_ptr()), ctypes.c_void_p(b.data_ptr()), t.numel(),
                                 t.element_size(), sp)
                del b
        del keep_a
        self.progress(rid, "coverage", 2, 2)
        return out_b

    # -- timing

    def measure(self, reference, fn, trials, warmup, l2_flush, use_cupti, what):
        """Times `fn` through the core's timer on torch's current stream, the
        one KernelBench times on and samples launch on (work a sample puts on
        another stream shows in the CUPTI window as that stream's)."""
        stream = torch.cuda.current_stream()
        raised = self.session.time(reference, fn, ctypes.c_void_p(stream.cuda_stream), warmup, max(1, trials),
                                   l2_flush, use_cupti)
        if raised is not None:
            if isinstance(raised, CandidateError):
                raise raised
            if what:
                raise classify(raised, what + ".forward (timing)")
            raise raised


def timed_ms(r, warmup):
    """Device time of the timed runs (warm-up included), as the executor counts it for overhead_ms."""
    total = 0.0
    for key in ("candidate_timing", "reference_timing"):
        t = r.get(key)
        if isinstance(t, dict):
            try:
                total += float(t.get("mean_ms", 0.0)) * (int(t.get("trials", 0)) + max(0, warmup))
            except (TypeError, ValueError):
                pass
    return total


def build_only(bridge, files):
    """Imports sample files so that their load_inline extensions are built
    into the cache (several of these can run in parallel before a batch)."""
    if not bridge.usable:
        print(bridge.reason, file=sys.stderr)
        return EXIT_UNUSABLE
    failed = 0
    for path in files:
        t0 = time.perf_counter()
        hits0 = bridge.ext_cache.hits
        try:
            with open(path, "r", encoding="utf-8") as f:
                load_module("kwb_sample", f.read(), path)
            print("built %s in %.1f s (%s)" % (path, time.perf_counter() - t0,
                                                "cache hit" if bridge.ext_cache.hits > hits0 else "compiled"),
                  file=sys.stderr)
        except Exception as exc:
            failed += 1
            print("failed %s: %s" % (path, str(exc)[-2000:]), file=sys.stderr)
    return 1 if failed else 0


def serve(bridge):
    """Reads requests until shutdown or end of input; returns the exit status."""
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError as exc:
            bridge.send({"protocol": PROTOCOL, "type": "error", "id": "", "message": "not JSON: %s" % exc})
            continue
        if not isinstance(msg, dict):
            bridge.send({"protocol": PROTOCOL, "type": "error", "id": "", "message": "a request must be an object"})
            continue
        rid = msg.get("id", "") if isinstance(msg.get("id", ""), str) else ""
        if msg.get("protocol") != PROTOCOL:
            bridge.send({"protocol": PROTOCOL, "type": "error", "id": rid,
                         "message": "protocol version mismatch: peer speaks \"%s\", this bridge speaks \"%s\"" % (
                             msg.get("protocol"), PROTOCOL)})
            continue
        kind = msg.get("type")
        if kind == "hello":
            bridge.send(bridge.capabilities(rid))
        elif kind == "shutdown":
            break
        elif kind == "zero_probe":  # kwb zeros (kwb_zero_probe.py)
            import kwb_zero_probe
            result = kwb_zero_probe.probe(bridge, msg, load_module)
            bridge.send(result)
            if torch is not None and bridge.usable and context_broken():
                return EXIT_FATAL
        elif kind == "rerun":
            result = bridge.rerun(msg)
            bridge.send(result)
            if result.get("fatal"):
                return EXIT_FATAL
        else:
            bridge.send({"protocol": PROTOCOL, "type": "error", "id": rid,
                         "message": "the bridge only serves hello, rerun, zero_probe and shutdown"})
    return 0 if bridge.usable else EXIT_UNUSABLE


def main(argv):
    # The protocol keeps a private copy of stdout; fd 1 (and print, and the
    # compilers load_inline runs) go to stderr so they cannot corrupt it.
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(proto_fd, "w", encoding="utf-8", buffering=1)
    bridge = Bridge(out)
    if "--check" in argv[1:]:
        bridge.send(bridge.capabilities("check"))
        return 0 if bridge.usable else EXIT_UNUSABLE
    if "--build" in argv[1:]:
        return build_only(bridge, [a for a in argv[1:] if a != "--build"])
    return serve(bridge)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
