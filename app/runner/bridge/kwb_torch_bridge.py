#!/usr/bin/env python3
"""The PyTorch bridge of Kernel Workbench: the JUDGE.

Re-runs KernelBench samples -- a Python module defining ``ModelNew``, usually
with CUDA built by ``torch.utils.cpp_extension.load_inline`` -- against the
``Model`` of a KernelBench problem file, behind the same ``kwb.rerun/1``
JSON-lines protocol as kwb-runner (requests on stdin, replies on stdout).

The sample never runs in this process. This process (the judge, kwb_judge.py)
loads the problem, generates the inputs, computes and keeps the reference
outputs, measures its own host wall clock and writes the result line; a
candidate worker (kwb_candidate_worker.py), started per request with two
private pipes (kwb_worker_protocol.py) and sandboxed before it imports the
sample, runs ModelNew. Tensors cross as CUDA IPC handles (kwb_cuda_ipc.py).
docs/security.md is the threat model.

No check logic lives in these scripts. Every measurement that decides the
verdict is the core's C++, through libkwb_bridge.so (core/gpu/bridge/
bridge_api.h, loaded with ctypes from beside this script or from
$KWB_BRIDGE_LIB; kwb_bridge_lib.py): the two-pass coverage scan, KernelBench's
allclose with scale-invariant metrics and zero acceptance, input hashes,
determinism, the fresh-input / post-timing / adversarial comparisons, timing
(warm-up, L2 flush, persisting-L2 reset, CUDA events with the calibrated
bracket, the statistics, the CUPTI window and the own-kernel share), the strict
decoding of what the worker measured; the result's check members are encoded
by the core's protocol encoder.

Without PyTorch (or without a CUDA device, or without the library) it still
speaks the protocol: ``hello`` is answered with device_present = false and the
reason, a ``rerun`` with status no_device, and the process exits with status 1.

    python3 kwb_torch_bridge.py          serve the protocol on stdin/stdout
    python3 kwb_torch_bridge.py --check  print the capabilities line; exit 0 when usable
    python3 kwb_torch_bridge.py --build SAMPLE.py...  build the samples' extensions into the cache
    python3 kwb_torch_bridge.py --build-serve  the same for sample paths read one per line from
                                               stdin, a JSON line per sample on stdout
"""

import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kwb_bridge_common import (CandidateError, ExtensionCache, cache_root, extension_digest,  # noqa: E402,F401
                               extension_name, finite, load_module, num)
import kwb_bridge_lib  # noqa: E402
import kwb_worker_hardening  # noqa: E402

PROTOCOL = "kwb.rerun/1"
BRIDGE_VERSION = "kwb_torch_bridge 2 (judge + sandboxed candidate worker)"
REFERENCE_NAME = "kernelbench_model"
EXIT_UNUSABLE = 1  # no torch / no device / no library
EXIT_FATAL = 4     # sticky CUDA error in the judge: the parent starts a fresh bridge (as kwb-runner)

# The members of a result that the core's session fills (the checks, and what
# it strict-decoded from the worker and the judge's clock); the rest of a
# result line is this bridge's bookkeeping of the request.
CHECK_MEMBERS = ("precision", "tolerance", "coverage", "outputs", "inputs", "candidate_timing", "reference_timing",
                 "speedup", "candidate_cupti", "reference_cupti", "checks_run", "fresh_inputs", "post_timing",
                 "host_timing", "per_call_timing", "own_kernels", "sanitizer", "adversarial", "isolation")

torch = None
TORCH_ERROR = None
try:
    import torch  # noqa: E402
except Exception as exc:  # ImportError, or a broken install
    TORCH_ERROR = "%s: %s" % (type(exc).__name__, exc)


def context_broken():
    try:
        torch.cuda.synchronize()
        t = torch.ones(1, device="cuda")
        return float((t + 1).item()) != 2.0
    except Exception:
        return True


def no_dump():
    """Not dumpable: a worker (same user, no capabilities) can then neither
    ptrace the judge nor open /proc/<judge>/fd/* (the result channel) or
    /proc/<judge>/mem. KWB_BRIDGE_DUMPABLE=1 leaves it dumpable (debugging)."""
    if os.environ.get("KWB_BRIDGE_DUMPABLE") == "1":
        return False
    return kwb_worker_hardening.no_dump()


# ---------------------------------------------------------------- the bridge

class Bridge:
    def __init__(self, out, builds_only=False):
        self.out = out
        self.lib = None
        self.reason = None
        self.device = None
        self.session = None
        self.judge = None
        self.tol_policy = ("kernelbench", 0.0, 0.0)
        if torch is None:
            self.reason = "PyTorch is not installed (%s: %s)" % (sys.executable, TORCH_ERROR)
            return
        if builds_only:
            self.open_for_builds()
            return
        try:
            if not torch.cuda.is_available():
                self.reason = "PyTorch %s sees no CUDA device (torch.cuda.is_available() is False)" % torch.__version__
                return
        except Exception as exc:
            self.reason = "PyTorch %s cannot use CUDA: %s" % (torch.__version__, exc)
            return
        self.lib, why = kwb_bridge_lib.find_library()
        if self.lib is None:
            self.reason = why
            return
        torch.cuda.set_device(0)
        try:
            torch.empty(1, device="cuda")  # the primary context, current on this thread (the driver calls need it)
            self.device = self.lib.device_info(0)
            self.session = kwb_bridge_lib.Session(self.lib)
            import kwb_judge
            self.judge = kwb_judge.Judge(self.lib, self.session, self.progress)
        except Exception as exc:
            self.reason = "cannot open CUDA device 0: %s" % exc
            self.lib = None
            return
        cap = torch.cuda.get_device_capability(0)
        # Build extensions for this GPU only: faster, and what the sample runs on.
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % cap)

    def open_for_builds(self):
        """A build lane: the device's architecture from the driver (no context),
        and a judge whose workers import samples without one."""
        self.lib, why = kwb_bridge_lib.find_library()
        if self.lib is None:
            self.reason = why
            return
        try:
            import kwb_cuda_ipc
            import kwb_judge
            cap = kwb_cuda_ipc.Driver().capability(0)
            os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % cap)
            self.judge = kwb_judge.Judge(self.lib, None, self.progress, builds_only=True)
        except Exception as exc:
            self.reason = "cannot read CUDA device 0: %s" % exc
            self.lib = None

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
        try:
            tol = problem.get("tolerance") or {}
            self.tol_policy = (str(tol.get("policy", "kernelbench")), float(tol.get("atol", 0.0)),
                               float(tol.get("rtol", 0.0)))
            if not self.usable:
                raise CandidateError("no_device", self.reason)
            kb = msg.get("kernelbench") or {}
            if candidate.get("form") != "kernelbench_sample" or not kb.get("problem_source"):
                raise CandidateError("unsupported", "the PyTorch bridge runs KernelBench samples (candidate form "
                                     "'kernelbench_sample' with the problem's Python source in 'kernelbench'); "
                                     "this candidate's form is '%s'" % candidate.get("form", "?"))
            self.session.reset()
            try:
                self.judge.run(rid, problem, candidate, kb, msg.get("options") or {}, r, self.tol_policy)
            finally:
                # What the checks measured, as the core encodes it (also when the sample failed part-way).
                checks = self.session.result()
                for key in CHECK_MEMBERS:
                    if key in checks:
                        r[key] = checks[key]
                # A library without set_member (ABI 2): what the judge measured, as measured.
                for key, value in r.pop("_unset", {}).items():
                    r.setdefault(key, value)
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
        r.pop("_unset", None)
        wall = (time.perf_counter() - started) * 1e3
        r["wall_ms"] = num(wall)
        try:
            warmup = int((msg.get("options") or {}).get("warmup", 10))
        except (TypeError, ValueError, AttributeError):
            warmup = 0
        r["overhead_ms"] = num(max(0.0, wall - timed_ms(r, warmup)))
        return r

    def close(self):
        if self.judge is not None:
            self.judge.shutdown()


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
    """Builds the samples' load_inline extensions into the cache (several of
    these run in parallel before a batch). Each sample is imported in a
    candidate worker of its own, hardened and sandboxed as for a re-run: the
    build pool runs sample code too."""
    if not bridge.usable:
        print(bridge.reason, file=sys.stderr)
        return EXIT_UNUSABLE
    bridge.judge.prefork = 0  # one worker per sample, none started ahead
    failed = 0
    for path in files:
        t0 = time.perf_counter()
        try:
            with open(path, "r", encoding="utf-8") as f:
                reply = bridge.judge.build(f.read(), path)
            # "(cache hit)" is what the build pool (core/workbench/build_pool.cpp) looks for.
            print("built %s in %.1f s (%s), sandbox %s%s" % (
                path, time.perf_counter() - t0, "cache hit" if reply.get("compile_cache_hit") else "compiled",
                reply.get("sandbox"), ": " + reply["why_not"] if reply.get("why_not") else ""), file=sys.stderr)
        except Exception as exc:
            failed += 1
            print("failed %s: %s" % (path, str(exc)[-2000:]), file=sys.stderr)
    return 1 if failed else 0


def build_serve(bridge):
    """The build pool's lane: builds the samples named one per line on stdin,
    one after another, each in a fresh sandboxed worker started while the one
    before it builds, and answers a JSON line per sample ({"path", "ok",
    "cache_hit", "seconds", "error"}). A lane pays the judge's start once and
    each worker's start beside the previous build: on the H200 machine those two
    Python starts (each an `import torch`) were 9 s of a 37 s cold build."""
    if not bridge.usable:
        print(bridge.reason, file=sys.stderr)
        return EXIT_UNUSABLE
    bridge.judge.prefork = 1
    bridge.judge.warm()
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        t0 = time.perf_counter()
        rec = {"path": path}
        try:
            with open(path, "r", encoding="utf-8") as f:
                reply = bridge.judge.build(f.read(), path)
            rec.update(ok=True, cache_hit=bool(reply.get("compile_cache_hit")))
        except Exception as exc:
            rec.update(ok=False, error=str(exc)[-4000:])
        rec["seconds"] = time.perf_counter() - t0
        print("built %s in %.1f s" % (path, rec["seconds"]) if rec["ok"] else "failed %s" % path, file=sys.stderr)
        bridge.send(rec)
    return 0


def serve(bridge):
    """Reads requests until shutdown or end of input; returns the exit status."""
    if bridge.judge is not None:
        bridge.judge.warm()  # the first request's worker starts while kwb sends it
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
    # The copy is not inheritable (PEP 446) and workers start with close_fds.
    no_dump()
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(proto_fd, "w", encoding="utf-8", buffering=1)
    bridge = Bridge(out, builds_only="--build" in argv[1:] or "--build-serve" in argv[1:])
    if "--check" in argv[1:]:
        bridge.send(bridge.capabilities("check"))
        return 0 if bridge.usable else EXIT_UNUSABLE
    if "--build" in argv[1:]:
        return build_only(bridge, [a for a in argv[1:] if a != "--build"])
    if "--build-serve" in argv[1:]:
        try:
            return build_serve(bridge)
        finally:
            bridge.close()
    try:
        return serve(bridge)
    finally:
        bridge.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
