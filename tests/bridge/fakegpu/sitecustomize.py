"""A stand-in GPU for the judge/worker end-to-end test on a machine without
one (tests/bridge/test_judge_fake_device.py). Loaded by Python at start-up
(this folder is put first on PYTHONPATH) in the judge and in every worker it
starts, and active only with KWB_FAKEGPU=1. It is test scaffolding, not a
model of the core's checks:

- torch (a CPU build) pretends to have CUDA: tensors are host tensors,
  `device="cuda"` empties come from shared memory, __cuda_array_interface__
  views come from raw addresses;
- kwb_cuda_ipc.Driver allocates, exports and maps /dev/shm files, so the
  judge's arena and the worker's outputs really are shared between the two
  processes, by handle;
- libkwb_bridge.so is a Python object with the C ABI's function names that
  records what the judge folds into it (comparisons by a plain allclose, a
  sentinel coverage count, byte hashes, a wall-clock "timer") and writes the
  result members, so the test can see what reached the session.
"""

import ctypes
import json
import mmap
import os
import re
import sys
import time

if os.environ.get("KWB_FAKEGPU") == "1":
    import torch

    sys.path.insert(0, os.environ["KWB_FAKEGPU_BRIDGE_DIR"])
    import kwb_bridge_lib
    import kwb_cuda_ipc

    def touched(what):
        """KWB_FAKEGPU_CONTEXT_LOG: where a real GPU would have a CUDA context
        (a device allocation, a context required), one line per process and use."""
        log = os.environ.get("KWB_FAKEGPU_CONTEXT_LOG")
        if log:
            with open(log, "a") as f:
                f.write("%d %s %s\n" % (os.getpid(), os.path.basename(sys.argv[0] if sys.argv else "?"), what))

    def addr(p):
        if p is None:
            return 0
        return p.value or 0 if hasattr(p, "value") else int(p)

    # ------------------------------------------------------------ shared memory

    class Shm:
        regions = {}  # base -> (name, size, mmap, ctypes array)
        count = [0]

        @classmethod
        def alloc(cls, size):
            cls.count[0] += 1
            name = "/dev/shm/kwbfake_%d_%d" % (os.getpid(), cls.count[0])
            fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o600)
            os.ftruncate(fd, max(size, 1))
            mm = mmap.mmap(fd, max(size, 1))
            os.close(fd)
            arr = (ctypes.c_uint8 * max(size, 1)).from_buffer(mm)
            base = ctypes.addressof(arr)
            cls.regions[base] = (name, max(size, 1), mm, arr)
            return base

        @classmethod
        def attach(cls, name):
            for base, (n, _s, _m, _a) in cls.regions.items():
                if n == name:
                    return base
            fd = os.open(name, os.O_RDWR)
            size = os.fstat(fd).st_size
            mm = mmap.mmap(fd, size)
            os.close(fd)
            arr = (ctypes.c_uint8 * size).from_buffer(mm)
            base = ctypes.addressof(arr)
            cls.regions[base] = (name, size, mm, arr)
            return base

        @classmethod
        def find(cls, ptr):
            for base, (name, size, _m, _a) in cls.regions.items():
                if base <= ptr < base + size:
                    return base, size, name
            return None

    class FakeDriver:
        def __init__(self, path="libcuda.so.1"):
            pass

        def require_context(self):
            touched("context required")

        def capability(self, ordinal=0):
            return (9, 0)

        def call(self, name, *args):
            if name == "cuMemAlloc_v2":
                touched("cuMemAlloc_v2")
                args[0]._obj.value = Shm.alloc(int(args[1]))
            elif name == "cuMemsetD8_v2":
                ctypes.memset(addr(args[0]), int(args[1]), int(args[2]))
            elif name in ("cuMemFree_v2", "cuCtxGetCurrent"):
                pass
            else:
                raise kwb_cuda_ipc.CudaError("fake driver: %s" % name)

        def address_range(self, ptr):
            hit = Shm.find(ptr)
            if hit is None:
                raise kwb_cuda_ipc.CudaError("cuMemGetAddressRange_v2 failed: not a shared allocation (fake)")
            return hit[0], hit[1]

        def export(self, base):
            hit = Shm.find(base)
            if hit is None:
                raise kwb_cuda_ipc.CudaError("cuIpcGetMemHandle failed (fake)")
            return hit[2].encode().ljust(64, b"\0")

        def open(self, handle):
            name = handle.rstrip(b"\0").decode()
            if not name.startswith("/dev/shm/kwbfake_") or "/" in name[len("/dev/shm/"):]:
                raise kwb_cuda_ipc.CudaError("cuIpcOpenMemHandle_v2 failed: invalid handle (fake)")
            return Shm.attach(name)

        def close(self, ptr):
            pass

    kwb_cuda_ipc.Driver = FakeDriver

    # ------------------------------------------------------------ torch pretends

    class _Stream:
        cuda_stream = 0

    torch.cuda.is_available = lambda: True
    torch.cuda.set_device = lambda d: None
    torch.cuda.synchronize = lambda *a: None
    torch.cuda.current_stream = lambda *a: _Stream()
    torch.cuda.memory_snapshot = lambda: []
    torch.cuda.mem_get_info = lambda *a: (1 << 28, 1 << 28)
    torch.cuda.get_device_capability = lambda *a: (touched("torch.cuda.get_device_capability"), (9, 0))[1]
    torch.cuda.current_device = lambda: 0
    torch.cuda.manual_seed = lambda s: None
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.Tensor.is_cuda = property(lambda self: True)

    _empty = torch.empty

    def empty(*size, dtype=None, device=None, **kw):
        if device != "cuda":
            return _empty(*size, dtype=dtype, device=device, **kw)
        touched("torch.empty(device='cuda')")
        shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        dtype = dtype or torch.float32
        n = 1
        for d in shape:
            n *= int(d)
        width = _empty((), dtype=dtype).element_size()
        base = Shm.alloc(max(n * width, 1))
        raw = torch.frombuffer(Shm.regions[base][3], dtype=torch.uint8)
        return raw[: n * width].view(dtype).reshape(shape)

    torch.empty = empty
    for _name in ("zeros", "ones", "full", "rand", "randn", "tensor", "arange"):
        def _wrap(fn):
            def f(*a, **k):
                if k.get("device") == "cuda":
                    k.pop("device")
                return fn(*a, **k)
            return f
        setattr(torch, _name, _wrap(getattr(torch, _name)))

    _as_tensor = torch.as_tensor

    def as_tensor(obj, *a, **k):
        cai = getattr(obj, "__cuda_array_interface__", None)
        if cai is None:
            return _as_tensor(obj, *a, **k)
        ptr, n = cai["data"][0], cai["shape"][0]
        arr = (ctypes.c_uint8 * n).from_address(ptr)
        t = torch.frombuffer(arr, dtype=torch.uint8)
        t._kwb_keep = (obj, arr)
        return t

    torch.as_tensor = as_tensor

    # ------------------------------------------------------------ the library

    def floats(ptr, count):
        return torch.frombuffer((ctypes.c_float * count).from_address(ptr), dtype=torch.float32) if count else \
            torch.zeros(0)

    class FakeSession:
        def __init__(self):
            self.reset()

        def reset(self):
            self.outputs = {}
            self.coverage = []
            self.inputs = {}
            self.members = {}
            self.checks = {"fresh_inputs": [0, 0], "per_call": [0, 0], "post_timing": [], "adversarial": []}
            self.own = []
            self.timing = {}
            self.budget = 0.0

    class FakeC:
        SENT = {2: 0x7e01, 4: 0x7f81dead, 8: 0x7ff8deadbeef0001}

        def __init__(self):
            self.sessions = {}
            self.scanners = {}
            self.next = [1]

        def handle(self):
            self.next[0] += 1
            return self.next[0]

        def kwb_bridge_abi_version(self):
            return 3

        def kwb_bridge_last_error(self):
            return b"fake error"

        def kwb_bridge_sentinel(self, eb, which):
            return self.SENT[eb] + which

        def kwb_bridge_padded_bytes(self, n, eb):
            return (n * eb + 511) // 512 * 512

        def kwb_bridge_fill_sentinel(self, ptr, n, eb, which, stream):
            pattern = (self.SENT[eb] + which).to_bytes(eb, "little")
            data = pattern * int(n)
            ctypes.memmove(addr(ptr), data, len(data))
            return 0

        def kwb_bridge_device_info_json(self, ordinal, buf, cap):
            data = json.dumps({"name": "fake H200"}).encode()
            ctypes.memmove(buf, data + b"\0", len(data) + 1)
            return len(data)

        def kwb_bridge_scanner_create(self):
            h = self.handle()
            self.scanners[h] = {}
            return h

        def kwb_bridge_scanner_destroy(self, h):
            self.scanners.pop(h, None)

        def kwb_bridge_scan_first(self, h, ptr, dims, ndim, eb, rows, cols, stream):
            n = 1
            for i in range(ndim):
                n *= dims[i]
            self.scanners[h].update(n=n, eb=eb, a=ctypes.string_at(addr(ptr), n * eb))
            return 0

        def kwb_bridge_scan_second(self, h, ptr, stream):
            s = self.scanners[h]
            s["b"] = ctypes.string_at(addr(ptr), s["n"] * s["eb"])
            return 0

        def kwb_bridge_session_create(self):
            h = self.handle()
            self.sessions[h] = FakeSession()
            return h

        def kwb_bridge_session_destroy(self, h):
            pass

        def kwb_bridge_session_reset(self, h):
            self.sessions[h].reset()

        def kwb_bridge_session_set_tolerance(self, h, policy, precision, atol, rtol):
            return 0

        def kwb_bridge_session_add_coverage(self, h, name, sc, stream):
            s = self.scanners[sc]
            eb, n = s["eb"], s["n"]
            sa = (self.SENT[eb]).to_bytes(eb, "little")
            sb = (self.SENT[eb] + 1).to_bytes(eb, "little")
            written = sum(1 for i in range(0, n * eb, eb)
                          if s["a"][i:i + eb] != sa and s["b"][i:i + eb] != sb) if n <= 1 << 16 else n
            self.sessions[h].coverage.append({"name": name.decode(), "elements": n, "written": written,
                                              "written_fraction": written / n if n else 1.0})
            return 0

        def kwb_bridge_session_determinism(self, h, i, name, a, b, n, eb, stream):
            return 0

        def kwb_bridge_session_hash_input(self, h, i, name, ptr, nbytes, after, stream):
            d = self.sessions[h].inputs.setdefault(i, {"name": name.decode(), "mutated": False})
            digest = hash(ctypes.string_at(addr(ptr), nbytes))
            if after:
                d["mutated"] = d["mutated"] or digest != d.get("before")
            else:
                d["before"] = digest
            return 0

        @staticmethod
        def close_enough(out, ref, count):
            if not out:
                return False
            o, r = floats(addr(out), count), floats(addr(ref), count)
            return bool(torch.allclose(o, r, atol=1e-2, rtol=1e-2))

        def kwb_bridge_session_compare(self, h, i, name, out, ref, count, stream):
            d = self.sessions[h].outputs.setdefault(i, {"name": name.decode(), "trials": 0, "trials_passed": 0})
            d["trials"] += 1
            d["trials_passed"] += 1 if self.close_enough(out, ref, count) else 0
            return 0

        def kwb_bridge_session_check(self, h, which, i, name, out, ref, count, stream):
            s = self.sessions[h]
            ok = self.close_enough(out, ref, count)
            which = which.decode()
            if which == "fresh_inputs":
                s.checks["fresh_inputs"][0] += 1
                s.checks["fresh_inputs"][1] += 0 if ok else 1
            elif which == "post_timing":
                s.checks["post_timing"].append({"name": name.decode(), "passed": ok})
            elif which == "per_call":
                s.checks["per_call"][0] += 1
                s.checks["per_call"][1] += 0 if ok else 1
            elif which.startswith("adversarial:"):
                s.checks["adversarial"].append({"set": which.split(":", 1)[1], "passed": ok})
            else:
                return -1
            return 0

        def kwb_bridge_session_set_timing_budget(self, h, seconds):
            self.sessions[h].budget = seconds
            return 0

        def kwb_bridge_session_set_own_kernels(self, h, names):
            self.sessions[h].own = [n for n in names.decode().split("\n") if n]
            return 0

        def kwb_bridge_compute_sanitizer_path(self, buf, cap):
            path = os.environ.get("KWB_COMPUTE_SANITIZER", "").encode()
            ctypes.memmove(buf, path + b"\0", len(path) + 1)
            return len(path)

        def kwb_bridge_sanitizer_tool_limit_s(self, timeout_s):
            return max(10.0, timeout_s * 10.0)

        def kwb_bridge_session_set_member(self, h, member, text):
            value = json.loads(text.decode())
            if member.decode() == "sanitizer_logs":  # the core's parser, as far as the stand-in's logs need
                reports = []
                for run in value:
                    m = re.search(r"ERROR SUMMARY: (\d+)", run["log"])
                    ok = run["answered"] and m is not None
                    reports.append({"tool": run["tool"], "errors": int(m.group(1)) if ok else -1,
                                    "first_report": "" if ok else "returned no result (%s)" % run.get("detail", "")})
                self.sessions[h].members["sanitizer"] = reports
                return 0
            if member.decode() not in ("candidate_timing", "candidate_cupti", "own_kernels", "per_call_timing",
                                       "host_timing", "isolation", "checks_run"):
                return -1
            if member.decode() == "candidate_timing" and not isinstance(value.get("median_ms"), (int, float)):
                return -1  # what a strict decoder refuses
            self.sessions[h].members[member.decode()] = value
            return 0

        def run_timer(self, h, reference, launch, refresh, warmup, trials, per_call):
            if self.sessions[h].budget > 0:  # the stand-in's budget is always spent: the core's floor
                trials = min(trials, 10)
            times = []
            for i in range(warmup + trials):
                if refresh:
                    if refresh(None, None):
                        return -1
                t0 = time.perf_counter()
                if launch(None, None):
                    return -1
                if i >= warmup:
                    times.append((time.perf_counter() - t0) * 1e3)
            times.sort()
            stats = {"trials": trials, "median_ms": times[len(times) // 2], "mean_ms": sum(times) / len(times)}
            s = self.sessions[h]
            s.timing[("reference" if reference else "candidate") + "_timing"] = stats
            if per_call:  # as the core: then each call alone, refreshed before each
                calls = []
                for i in range(min(trials, 30)):
                    if refresh and refresh(None, None):
                        return -1
                    t0 = time.perf_counter()
                    if launch(None, None):
                        return -1
                    calls.append((time.perf_counter() - t0) * 1e3)
                calls.sort()
                s.timing[("reference" if reference else "candidate") + "_per_call"] = {
                    "trials": len(calls), "median_ms": calls[len(calls) // 2]}
            if not reference and s.own:
                s.timing["own_kernels"] = {"declared": s.own, "launched": []}
            return 0

        def kwb_bridge_session_time(self, h, reference, launch, user, stream, warmup, trials, l2, cupti):
            return self.run_timer(h, reference, launch, None, warmup, trials, False)

        def kwb_bridge_session_time_ex(self, h, args):
            a = args._obj
            return self.run_timer(h, a.reference, a.launch, a.refresh if a.refresh else None, a.warmup, a.trials,
                                  a.per_call)

        def result(self, h):
            s = self.sessions[h]
            r = {"outputs": [dict(v, passed=v["trials"] == v["trials_passed"]) for _k, v in sorted(s.outputs.items())],
                 "coverage": s.coverage,
                 "inputs": [{"name": v["name"], "mutated": v["mutated"]} for _k, v in sorted(s.inputs.items())],
                 "fresh_inputs": {"checked": s.checks["fresh_inputs"][0], "failed": s.checks["fresh_inputs"][1]},
                 "post_timing": s.checks["post_timing"], "adversarial": s.checks["adversarial"]}
            if "candidate_timing" in s.timing:
                r["candidate_timing"] = s.timing["candidate_timing"]
            if "reference_timing" in s.timing:
                r["reference_timing"] = s.timing["reference_timing"]
            if "own_kernels" in s.timing:
                r["own_kernels"] = s.timing["own_kernels"]
            r.update(s.members)
            if "candidate_per_call" in s.timing or "per_call_timing" in r:
                pc = dict(r.get("per_call_timing") or {})
                if "candidate_per_call" in s.timing:
                    pc["candidate"] = s.timing["candidate_per_call"]
                if "reference_per_call" in s.timing:
                    pc["reference"] = s.timing["reference_per_call"]
                pc.update(checked=s.checks["per_call"][0], failed=s.checks["per_call"][1])
                r["per_call_timing"] = pc
            return json.dumps(r).encode()

        def kwb_bridge_session_result_size(self, h):
            return len(self.result(h)) + 1

        def kwb_bridge_session_result_json(self, h, buf, cap):
            data = self.result(h)
            ctypes.memmove(buf, data + b"\0", len(data) + 1)
            return len(data)

        def kwb_bridge_sandbox_enter(self, dirs, why, cap):
            text = b"fake device: no sandbox"
            ctypes.memmove(why, text + b"\0", len(text) + 1)
            return 1

    def fake_find_library():
        lib = kwb_bridge_lib.BridgeLib.__new__(kwb_bridge_lib.BridgeLib)
        lib.lib = FakeC()
        lib.path = "fake:libkwb_bridge.so"
        lib.abi = 3
        lib.optional = {name: getattr(lib.lib, name) for name in kwb_bridge_lib.SIGNATURES_V3}
        return lib, None

    kwb_bridge_lib.find_library = fake_find_library
