"""The judge of the PyTorch bridge: the process kwb talks to. It loads the
problem's Model, generates the inputs, computes every reference output and
keeps them, measures its own host wall clock, and folds every measurement
into the core's check session (libkwb_bridge.so), whose encoder writes the
result's check members. The sample never runs here: a candidate worker
(kwb_candidate_worker.py, sandboxed) imports it and runs ModelNew on request.

Memory between them (kwb_cuda_ipc.py): the inputs live in an arena of their
own that the worker maps (it may write them; the hashes before and after each
call show it); the worker's outputs come back by IPC handle and are scanned
and compared here. The reference is computed on the judge's own copy of the
inputs, so nothing the worker writes reaches it.

Untrusted, and treated so: every worker reply (validated by
kwb_worker_protocol), the worker's timer results (strict-decoded by the core
through set_member, cross-checked against the judge's host wall clock), the
outputs it keeps for the fresh-input and post-timing checks (the judge
regenerates their inputs from its nonce and computes their reference
itself), and what it says it noticed (violations: advisory)."""

import collections
import ctypes
import math
import os
import secrets
import shutil
import sys
import tempfile
import time
import traceback

import torch

import kwb_bridge_tensors as kt
import kwb_cuda_ipc as ipc
import kwb_worker_protocol as wp
from kwb_bridge_common import CandidateError, ExtensionCache, apply_sizes, cache_root, load_module, worker_writable_dirs
from kwb_bridge_lib import Scanner
from kwb_sample_source import declared_kernels

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kwb_candidate_worker.py")
READY_TIMEOUT_S = 120.0
HOST_ARENA_BYTES = 4 << 30   # the host timer's input sets, at most (fewer calls when the inputs are large)
# The host timer's batch lasts about this long: the judge -> worker round trip (two frames
# through a pipe, 0.4-1 ms on the H200 machine) is in the candidate's batch and not in the
# reference's, so a batch of 5 calls of a 50 us kernel read 2.5x the events (22 of the
# leaderboard's first 75 records flagged timer_mismatch that way). Spread over a batch of
# >= 10 ms it is a few per cent; nothing is subtracted, so nothing a worker reports can hide work.
# A used worker whose arenas hold more than this is reaped before the next record
# starts (wp.Retiring), so that two records' inputs are never on the device at once.
RETIRE_OVERLAP_BYTES = 1 << 30
HOST_BATCH_MS = 10.0
HOST_CALLS_MAX = 64


def option(options, key, kind, default):
    v = options.get(key, default)
    try:
        return kind(v)
    except (TypeError, ValueError):
        return default


class Options:
    """The request's options this bridge reads (the runner's names; the
    issue-12 ones default to the cheap checks on, per-call off)."""

    def __init__(self, o):
        self.seed = option(o, "seed", int, 42)
        self.trials = max(1, option(o, "trials", int, 100))
        self.warmup = max(0, option(o, "warmup", int, 10))
        self.correctness_trials = max(1, option(o, "correctness_trials", int, 3))
        self.rows = option(o, "coverage_rows", int, 32)
        self.cols = option(o, "coverage_cols", int, 32)
        self.l2_flush = bool(o.get("l2_flush", True))
        self.cupti = bool(o.get("cupti", True))
        self.time_reference = bool(o.get("time_reference", True))
        self.timeout_s = max(10.0, option(o, "timeout_s", float, 120.0))
        self.fresh_inputs = bool(o.get("fresh_inputs", True))
        # check_every k (the runner's option): about one timed iteration in k is compared, which
        # ones chosen at random after each has run (a fixed schedule could be counted).
        self.check_every = max(1, option(o, "check_every", int, 10))
        self.fresh_checks = max(0, option(o, "fresh_checks", int, -(-self.trials // self.check_every)))
        self.post_timing = bool(o.get("post_timing", True))
        self.per_call = bool(o.get("per_call", False))
        self.adversarial = bool(o.get("adversarial", False))  # the runner's default: off (its cost)
        # compute-sanitizer tools (the runner's option; off by default: each costs a worker run under the tool)
        # (kwb validated the names; the core's decoder refuses any other in the reports)
        tools = o.get("sanitize") if isinstance(o.get("sanitize"), list) else []
        self.sanitize = [t for t in tools if isinstance(t, str)][:4]
        self.host_timer = bool(o.get("host_timer", True))
        # Five calls: the host timer bounds the events from below; more buys little and costs a
        # reference and a worker call each (plus K input sets in memory).
        self.host_calls = max(2, option(o, "host_calls", int, 5))
        self.reset_persisting_l2 = bool(o.get("reset_persisting_l2", True))
        self.sizes = o.get("sizes") if isinstance(o.get("sizes"), dict) else {}
        # Per timed kernel (the core cuts warm-ups and trials to fit); 0: the full counts.
        self.timing_budget_s = min(86400.0, max(0.0, option(o, "timing_budget_s", float, 0.0)))


class Judge:
    """GPU state that lives as long as the bridge: the library, the session,
    the driver, and spare workers started ahead of the next requests."""

    def __init__(self, lib, session, progress, builds_only=False):
        self.lib = lib
        self.session = session
        self.progress = progress
        self.driver = ipc.Driver()
        # A build lane's judge and its workers hold no CUDA context: 8 lanes of
        # three processes held 13.5 GiB of an H100, and two leaderboard records ran
        # out of memory beside them (docs/gpu-validation.md).
        self.builds_only = builds_only
        if not builds_only:
            self.driver.require_context()
        self.spares = collections.deque()
        self.retiring = wp.Retiring(self.release, RETIRE_OVERLAP_BYTES)
        # How many workers start ahead (KWB_BRIDGE_PREFORK, 0 = none): two, because a
        # record can take less time than a worker's start-up (a torch import and a CUDA
        # context) on a machine whose cores also compile the batch's next samples.
        try:
            self.prefork = max(0, min(4, int(os.environ.get("KWB_BRIDGE_PREFORK", "2"))))
        except ValueError:
            self.prefork = 2

    # -- workers

    def spawn(self, prefix=(), extra_env=None, build_only=None):
        """A worker process; `prefix` runs it under another program (compute-sanitizer).
        A build-only worker imports samples without a CUDA context (default: as the judge)."""
        scratch = tempfile.mkdtemp(prefix="kwb_worker_")
        root = cache_root()
        env = dict(os.environ)
        env.update({"KWB_BRIDGE_LIB": self.lib.path, "TMPDIR": scratch, "PYTHONDONTWRITEBYTECODE": "1",
                    "TORCH_EXTENSIONS_DIR": ExtensionCache.root(), "TRITON_CACHE_DIR": os.path.join(root, "triton"),
                    "CUDA_CACHE_PATH": os.path.join(scratch, "cuda_cache"),  # the driver's PTX cache, inside the sandbox
                    # IPC handles need plain cudaMalloc segments, not expandable (VMM) ones.
                    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False"})
        env.pop(wp.BUILD_ONLY_ENV, None)
        if self.builds_only if build_only is None else build_only:
            env[wp.BUILD_ONLY_ENV] = "1"
        env.update(extra_env or {})
        ch = wp.WorkerChannel(list(prefix) + [sys.executable, "-u", WORKER_SCRIPT], env=env, cwd=scratch)
        ch.scratch = scratch
        ch.writable = worker_writable_dirs(scratch, root)
        return ch

    def warm(self):
        while len(self.spares) < self.prefork:
            self.spares.append(self.spawn())

    def take_worker(self):
        # A later request's worker starts now: its start-up (a torch import and a
        # CUDA context, seconds) then overlaps this request and the next instead of
        # adding to a later one. It runs on another core and touches the GPU only to
        # create its context; the host-timer and event figures of the validation run
        # say whether that shows (KWB_BRIDGE_PREFORK=0 turns it off).
        ch = self.spares.popleft() if self.spares else self.spawn()
        self.warm()
        ready = ch.wait_ready(READY_TIMEOUT_S)
        if ready.get("usable") is not True:
            ch.close()
            raise RuntimeError("the candidate worker cannot run samples: %s" % wp.text_field(ready, "reason"))
        return ch

    def release(self, ch):
        ch.close()
        shutil.rmtree(ch.scratch, ignore_errors=True)

    def retire(self, ch, arenas):
        """Kills a used worker without waiting; its arenas are freed once it is gone (reap)."""
        self.retiring.add(ch, arenas)

    def reap(self):
        """Waits for the killed workers and frees their arenas. Called before
        anything is timed, so no other context's teardown runs beside a timed loop."""
        self.retiring.reap()

    def build(self, source, label, timeout_s=900.0):
        """Imports one sample in a fresh sandboxed worker so that its extension
        is built into the cache; the worker's reply (compile_ms, cache hit, sandbox).
        A lane's worker has no CUDA context; a sample that does not import there
        (its module code may use the GPU) is imported once more in a worker with
        one, so the lane's verdict is the re-run's (a compile error costs a second
        try, mostly cached: its failed header tiers are not tried again). A build
        that ran out of time is not tried again: missing CUDA does not hang."""
        try:
            return self.build_in(self.spares.popleft() if self.spares else self.spawn(), source, label, timeout_s)
        except (wp.WorkerFailed, wp.WorkerDied, wp.WorkerProtocolError, RuntimeError):
            if not self.builds_only:
                raise
        return self.build_in(self.spawn(build_only=False), source, label, timeout_s)

    def build_in(self, ch, source, label, timeout_s):
        try:
            ready = ch.wait_ready(READY_TIMEOUT_S)
            if ready.get("usable") is not True:
                raise RuntimeError("the candidate worker cannot run samples: %s" % wp.text_field(ready, "reason"))
            # A build lane's next worker starts while this sample builds, not beside this
            # worker's own start: on the H200 machine the lanes' first wave, every lane
            # starting a judge and two workers at once, took 7 s longer than the waves after it.
            self.warm()
            return ch.call("build", timeout_s, sample_source=source, sample_label=label, writable_dirs=ch.writable)
        finally:
            # Killed, not shut down: its files are written once it has answered, and
            # Python's own exit (torch's finalisers) is CPU the lanes' compilers need.
            ch.signal_kill()
            self.release(ch)

    def shutdown(self):
        self.prefork = 0
        self.reap()
        while self.spares:
            self.release(self.spares.popleft())

    # -- a request

    def run(self, rid, problem, candidate, kb, options, r, tol_policy):
        run = JudgeRun(self, rid, problem, candidate, kb, Options(options), r, tol_policy)
        try:
            run.execute()
        except wp.WorkerDied as exc:
            err, why = worker_death(exc)
            if why:
                run.violation(why)
            raise err
        except wp.WorkerTimeout as exc:
            raise CandidateError("timeout", "%s (limit %.0f s)" % (exc, run.o.timeout_s * 0.9))
        except wp.WorkerProtocolError as exc:
            run.violation(("tampering: " if exc.tampering else "protocol: ") + str(exc))
            raise CandidateError("launch_error", "the candidate worker broke the protocol: %s" % exc)
        finally:
            run.close()


class JudgeRun:
    def __init__(self, judge, rid, problem, candidate, kb, opts, r, tol_policy):
        self.j = judge
        self.lib = judge.lib
        self.sess = judge.session
        self.rid = rid
        self.problem = problem
        self.candidate = candidate
        self.kb = kb
        self.o = opts
        self.r = r
        self.tol = tol_policy
        self.stream = torch.cuda.current_stream()
        self.sp = ctypes.c_void_p(self.stream.cuda_stream)
        self.worker = None
        self.arena = None
        self.host_arena = None
        self.event_ms = None  # the candidate's event median, once timed: sizes the host timer's batch
        self.mappings = ipc.Mappings(judge.driver)
        self.checks = []
        self.violations = []
        self.sandbox = ("none", "the worker did not start")
        self.unset = {}   # members the library could not take (ABI 2): put in the result as measured
        self.deadline = time.monotonic() + opts.timeout_s * 0.9

    # -- plumbing

    def ran(self, check):
        if check not in self.checks:
            self.checks.append(check)

    def violation(self, what):
        if what not in self.violations and len(self.violations) < 64:
            self.violations.append(what[:500])

    def left(self):
        return max(1.0, self.deadline - time.monotonic())

    def collect(self, reply):
        for v in wp.string_list(reply, "violations", 64):
            self.violation(v)

    def call(self, op, **fields):
        """One worker command; its reply, validated. Worker failures become the candidate's."""
        try:
            reply = self.worker.call(op, self.left(), **fields)
        except wp.WorkerFailed as exc:
            self.collect(exc.reply)
            if op == "setup":
                self.note_sandbox(exc.reply)
            raise CandidateError(exc.status, str(exc))
        finally:
            for v in self.worker.violations:
                self.violation(v)
            self.worker.violations = []
        self.collect(reply)
        return reply

    def note_sandbox(self, reply):
        """The sandbox the worker says it entered (its own word: the SIGSYS of a
        seccomp kill and the judge's view of /proc are what can be checked)."""
        kind = reply.get("sandbox")
        self.sandbox = (kind if kind in ("landlock+seccomp", "seccomp", "none") else "none",
                        wp.text_field(reply, "why_not", 1000) if isinstance(reply.get("why_not"), str) else "")

    def set_member(self, name, value):
        got = self.sess.set_member(name, value)
        if got is None:
            self.unset[name] = value
            return True
        ok, why = got
        if not ok:
            self.violation("decoder: %s rejected by the core's decoder: %s" % (name, why))
        return ok

    def map_output(self, d):
        """A tensor over the worker's output `d` (validated), the pointer, and the bytes readable there."""
        try:
            ptr, avail = self.mappings.resolve(d["handle"], d["offset"], d["nbytes"])
        except ipc.CudaError as exc:
            raise CandidateError("launch_error", "the worker's output cannot be mapped: %s" % exc)
        return kt.view_at(ptr, d["nbytes"], d["dtype"], d["shape"]), ptr, avail

    def outputs(self, reply, key="outputs"):
        try:
            return [self.map_output(d) + (d,) for d in wp.outputs_field(reply, key)]
        except wp.WorkerProtocolError as exc:
            self.violation("protocol: %s" % exc)
            raise CandidateError("launch_error", "the candidate worker broke the protocol: %s" % exc)

    # -- the request

    def execute(self):
        o, r, kbp = self.o, self.r, self.kb
        self.progress("problem", 0, 1)
        try:
            prob = load_module("kwb_problem", kbp["problem_source"], kbp.get("problem_file") or "<problem>")
        except Exception as exc:
            raise CandidateError("internal_error", "the KernelBench problem %s does not load: %s" % (
                kbp.get("problem_file", ""), traceback.format_exception_only(type(exc), exc)[-1].strip()))
        for part in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(prob, part):
                raise CandidateError("internal_error", "the KernelBench problem %s defines no %s" % (
                    kbp.get("problem_file", ""), part))
        r["sizes"].update(apply_sizes(prob, o.sizes))
        self.prob = prob

        kt.strict_fp32()
        with torch.no_grad():
            init_inputs = kt.to_cuda(prob.get_init_inputs())
            torch.manual_seed(o.seed)
            torch.cuda.manual_seed(o.seed)
            try:
                self.model = prob.Model(*init_inputs).cuda()
            except Exception as exc:
                raise CandidateError("internal_error", "the problem's Model(*get_init_inputs()) failed: %s" % exc)
            first = kt.make_inputs(prob, o.seed)
            torch.cuda.synchronize()
        self.open_arena(first)

        # Stages of their own, so a batch's log says where a record's seconds go
        # (waiting for a spare worker, the sample's import, the host timer, the teardown).
        self.progress("worker", 0, 1)
        try:
            self.worker = self.j.take_worker()
        except (wp.WorkerDied, wp.WorkerTimeout, wp.WorkerProtocolError, RuntimeError) as exc:
            raise CandidateError("internal_error", "the candidate worker did not start: %s" % exc)
        source = self.candidate.get("source", "")
        self.progress("compile", 0, 1)
        reply = self.call("setup", arena={"handle": self.arena.handle.hex(), "size": self.arena.size},
                          inputs=self.arg_descs, writable_dirs=self.worker.writable, seed=o.seed,
                          sizes=r["sizes"], problem_source=kbp["problem_source"],
                          problem_label=kbp.get("problem_file") or "<problem>", sample_source=source,
                          sample_label="<sample %s>" % self.candidate.get("id", ""))
        self.note_sandbox(reply)
        r["compile_ms"] = wp.number_field(reply, "compile_ms", 0.0, 1e9)
        r["compile_cache_hit"] = wp.bool_field(reply, "compile_cache_hit")
        self.progress("compile", 1, 1)
        self.own = declared_kernels(source)

        with torch.no_grad():
            self.correctness()
            if o.adversarial:
                self.progress("adversarial", 0, 1)
                self.adversarial_sets()
            self.timing()
        if o.sanitize:
            self.progress("sanitizer", 0, len(o.sanitize))
            self.sanitizer_pass(source, kbp)

    def sanitizer_pass(self, source, kbp):
        """Each tool runs a fresh worker under compute-sanitizer (sandboxed as
        any worker, its own inputs drawn from the problem, no CUDA IPC): the
        sample is set up and called twice. The logs go to the core, whose parser
        (the native pass's) turns them into the result's sanitizer reports; a
        worker that does not answer is a report saying so, never "0 errors"."""
        o = self.o
        path, limit = self.j.lib.compute_sanitizer(o.timeout_s)
        runs = []
        for k, tool in enumerate(o.sanitize):
            run = {"tool": tool, "log": "", "answered": False, "detail": ""}
            if path is None:
                run["detail"] = "this libkwb_bridge.so has no compute-sanitizer pass"
            elif not path:
                run["detail"] = "compute-sanitizer not found (KWB_COMPUTE_SANITIZER, CUDA_HOME/bin, /usr/local/cuda/bin, PATH)"
            else:
                logdir = tempfile.mkdtemp(prefix="kwb_sanitizer_")
                log = os.path.join(logdir, tool + ".log")
                # No caching allocator under the tool: each tensor its own allocation, so that a read
                # past a tensor is past what the tool knows as allocated (inside a cached segment it is not).
                ch = self.j.spawn(prefix=[path, "--tool", tool, "--log-file", log, "--print-limit", "20"],
                                  extra_env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
                end = time.monotonic() + limit  # the whole run within the tool's limit, as kwb allows it
                left = lambda: max(1.0, end - time.monotonic())  # noqa: E731
                try:
                    ready = ch.wait_ready(left())
                    if ready.get("usable") is not True:
                        raise RuntimeError("the worker under the tool cannot run samples: %s" % wp.text_field(ready, "reason"))
                    ch.call("setup", left(), arena=None, inputs=None, writable_dirs=ch.writable, seed=o.seed,
                            sizes=self.r["sizes"], problem_source=kbp["problem_source"],
                            problem_label=kbp.get("problem_file") or "<problem>", sample_source=source,
                            sample_label="<sample %s>" % self.candidate.get("id", ""))
                    ch.call("sanitize", left(), calls=2)
                    run["answered"] = True
                except (wp.WorkerFailed, wp.WorkerDied, wp.WorkerTimeout, wp.WorkerProtocolError, RuntimeError) as exc:
                    run["detail"] = str(exc)[:400]
                finally:
                    self.j.release(ch)  # its channel's stray lines never reach kwb: only the log counts
                try:
                    with open(log, encoding="utf-8", errors="replace") as f:
                        run["log"] = f.read()[-200000:]
                except OSError as exc:
                    run["detail"] = (run["detail"] + "; " if run["detail"] else "") + "no log: %s" % exc
                shutil.rmtree(logdir, ignore_errors=True)
            runs.append(run)
            self.progress("sanitizer", k + 1, len(o.sanitize))
        if self.set_member("sanitizer_logs", runs):
            self.ran("sanitizer")

    def open_arena(self, inputs):
        self.slots = kt.tensor_slots(inputs)
        for i, x in self.slots:
            if not x.is_cuda or x.dtype not in kt.DTYPE_NAMES:
                raise CandidateError("unsupported", "input %d is a %s %s tensor; the bridge shares CUDA tensors of "
                                     "%s" % (i, x.device, x.dtype, ", ".join(sorted(kt.TORCH_DTYPES))))
        sizes = [x.numel() * x.element_size() for _i, x in self.slots]
        self.arena = ipc.InputArena(self.j.driver, sizes)
        self.views = [kt.view_at(self.arena.ptr(k), sizes[k], kt.DTYPE_NAMES[x.dtype], list(x.shape))
                      for k, (_i, x) in enumerate(self.slots)]
        descs, k = [], 0
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                descs.append({"arg": i, "tensor": {"offset": self.arena.offsets[k], "nbytes": sizes[k],
                                                   "dtype": kt.DTYPE_NAMES[x.dtype], "shape": list(x.shape)}})
                k += 1
            elif kt.scalar_ok(x):
                descs.append({"arg": i, "value": list(x) if isinstance(x, tuple) else x})
            else:
                raise CandidateError("unsupported", "input %d is a %s, which the bridge cannot hand to the worker" % (
                    i, type(x).__name__))
        self.arg_descs = descs

    def give(self, inputs):
        """The worker's copy of `inputs`: written into the arena, waited for."""
        kt.write_into(self.views, inputs, "inputs")
        torch.cuda.synchronize()

    def hash_inputs(self, after):
        for k, (i, x) in enumerate(self.slots):
            self.sess.hash_input(k, "input%d" % i, ctypes.c_void_p(self.arena.ptr(k)), x.numel() * x.element_size(),
                                 after, self.sp)

    def progress(self, stage, done, total):
        self.j.progress(self.rid, stage, done, total)

    # -- correctness, coverage, determinism, input hashes

    def precision(self, ref_t):
        return {torch.float16: "float16", torch.bfloat16: "bfloat16"}.get(ref_t.dtype, "float32")

    def compare_into(self, which, ref, outs, names):
        """Folds each output against its reference: the correctness trials
        (which None) or one more member (fresh_inputs, post_timing, adversarial:<set>)."""
        for k, ref_t in enumerate(ref):
            self.sess.set_tolerance(self.tol[0], self.precision(ref_t), self.tol[1], self.tol[2])
            ref_f = ref_t.detach().float().reshape(-1).contiguous()
            o = outs[k][0] if k < len(outs) else None
            out_f = o.float().reshape(-1).contiguous() if (o is not None and tuple(o.shape) == tuple(ref_t.shape)) \
                else None
            out_p = ctypes.c_void_p(out_f.data_ptr()) if out_f is not None else None
            name = names[k] if k < len(names) else "output%d" % k
            if which is None:
                self.sess.compare(k, name, out_p, ctypes.c_void_p(ref_f.data_ptr()), ref_f.numel(), self.sp)
            elif not self.sess.check(which, k, name, out_p, ctypes.c_void_p(ref_f.data_ptr()), ref_f.numel(), self.sp):
                return False
            torch.cuda.synchronize()
            del ref_f, out_f
        return True

    def reference(self, inputs):
        ref = kt.tensors_of(self.model(*inputs))
        torch.cuda.synchronize()
        if not ref:
            raise CandidateError("unsupported", "the problem's Model returns no tensor")
        return ref

    def correctness(self):
        o = self.o
        names = None
        eb, nbytes = 4, 0
        for trial in range(o.correctness_trials):
            self.progress("correctness", trial, o.correctness_trials)
            inputs = kt.make_inputs(self.prob, o.seed + trial)
            ref = self.reference(inputs)
            names = names or kt.output_names(len(ref))
            self.give(inputs)
            self.hash_inputs(False)
            if trial == 0:
                outs = self.coverage_runs(names)
                if outs:
                    eb = wp.DTYPES[outs[0][3]["dtype"]]
                    nbytes = max(d["nbytes"] for _v, _p, _a, d in outs)
            else:
                outs = self.outputs(self.call("call", poison={"which": 0, "elem_bytes": eb, "bytes": nbytes}))
            self.hash_inputs(True)
            self.compare_into(None, ref, outs, names)
            self.last_inputs = inputs
        self.names = names
        for c in ("coverage", "correctness", "determinism", "input_hashes"):
            self.ran(c)
        self.progress("correctness", o.correctness_trials, o.correctness_trials)

    def scan_pointer(self, view, ptr, avail, eb):
        """A pointer the scan may read: the mapping itself when the padding is
        inside the allocation and it starts a 512-byte unit, else a padded copy."""
        padded = self.lib.padded_bytes(view.numel(), eb)
        if ptr % 512 == 0 and avail >= padded:
            return None, ptr
        buf = torch.empty(padded, dtype=torch.uint8, device="cuda")
        buf[: view.numel() * eb].view(view.dtype).copy_(view.reshape(-1))
        return buf, buf.data_ptr()

    def coverage_runs(self, names):
        """Run 0 (unpoisoned) finds the outputs' width and size; run A and run B
        start from sentinel-poisoned memory in the worker (its pool and whatever
        buffers the previous run returned); the core's scan, here, combines them
        and compares A with B for determinism."""
        o = self.o
        self.progress("coverage", 0, 2)
        out0 = self.outputs(self.call("call", poison=None))
        if not out0:
            raise CandidateError("launch_error", "ModelNew.forward returned no tensor")
        eb = wp.DTYPES[out0[0][3]["dtype"]]
        nbytes = max(d["nbytes"] for _v, _p, _a, d in out0)
        scannable = [wp.DTYPES[d["dtype"]] in (2, 4, 8) for _v, _p, _a, d in out0]
        out_a = self.outputs(self.call("call", poison={"which": 0, "elem_bytes": eb, "bytes": nbytes}))
        scanners, keep_a = [], []
        for k, (view, ptr, avail, d) in enumerate(out_a):
            e = wp.DTYPES[d["dtype"]]
            if k < len(scannable) and scannable[k] and e in (2, 4, 8):
                sc = Scanner(self.lib)
                src, p = self.scan_pointer(view, ptr, avail, e)
                sc.first(ctypes.c_void_p(p), list(view.shape), e, o.rows, o.cols, self.sp)
                torch.cuda.synchronize()
                del src
                scanners.append((k, sc))
            keep_a.append(view.clone())  # the judge's copy: the worker poisons its buffer next
        torch.cuda.synchronize()
        self.progress("coverage", 1, 2)
        out_b = self.outputs(self.call("call", poison={"which": 1, "elem_bytes": eb, "bytes": nbytes}))
        for k, sc in scanners:
            try:
                if k >= len(out_b) or out_b[k][0].shape != keep_a[k].shape or out_b[k][0].dtype != keep_a[k].dtype:
                    continue
                view, ptr, avail, d = out_b[k]
                src, p = self.scan_pointer(view, ptr, avail, wp.DTYPES[d["dtype"]])
                sc.second(ctypes.c_void_p(p), self.sp)
                self.sess.add_coverage(names[k] if k < len(names) else "output%d" % k, sc, self.sp)
                del src
            finally:
                sc.close()
        for k, (view, _p, _a, d) in enumerate(out_b):
            if k < len(keep_a) and keep_a[k].shape == view.shape and keep_a[k].dtype == view.dtype:
                b = view.contiguous()
                self.sess.determinism(k, names[k] if k < len(names) else "output%d" % k,
                                      ctypes.c_void_p(keep_a[k].data_ptr()), ctypes.c_void_p(b.data_ptr()),
                                      view.numel(), wp.DTYPES[d["dtype"]], self.sp)
                del b
        del keep_a
        torch.cuda.synchronize()
        self.progress("coverage", 2, 2)
        return out_b

    # -- adversarial value sets

    def adversarial_sets(self):
        if not self.lib.has("kwb_bridge_session_check"):
            return
        base = kt.make_inputs(self.prob, self.o.seed)
        done = 0
        for s in kt.ADVERSARIAL_SETS:
            inputs = kt.adversarial(base, s)
            if inputs is None:
                continue
            ref = self.reference(inputs)
            # A set the reference itself overflows on says nothing about the candidate.
            if not all(bool(torch.isfinite(t.float()).all()) for t in ref if t.is_floating_point()):
                continue
            self.give(inputs)
            outs = self.outputs(self.call("call", poison=None))
            if self.compare_into("adversarial:" + s, ref, outs, self.names):
                done += 1
        if done:
            self.ran("adversarial")

    # -- timing

    def timing(self):
        o = self.o
        self.progress("timing", 0, 2)
        self.j.reap()  # the previous record's worker is gone before anything is timed
        time_ex = self.lib.has("kwb_bridge_session_time_ex")
        fresh = o.fresh_inputs and time_ex
        nonce = secrets.token_hex(16)
        if self.own and self.lib.has("kwb_bridge_session_set_own_kernels"):
            self.ran("own_kernels")
        reply, kept_ticks, ticks = self.timed_run(nonce, fresh)
        members = self.validated(wp.members_field, reply, "members")
        for name in wp.WORKER_MEMBERS:
            if name in members:
                self.set_member(name, members[name])
        ct = members.get("candidate_timing") if isinstance(members.get("candidate_timing"), dict) else {}
        med = ct.get("median_ms")
        # Only sizes the host timer's batch (a wrong value costs calls, not a verdict).
        self.event_ms = float(med) if isinstance(med, (int, float)) and not isinstance(med, bool) and med > 0 else None
        ok = members.get("own_kernels")
        if ok is not None and set(ok.get("declared") or []) != set(self.own):
            self.violation("own kernels: the worker reported declared kernels %s, the sample declares %s" % (
                ok.get("declared"), self.own))
        if time_ex and o.reset_persisting_l2:
            self.ran("persisting_l2_reset")
        if o.per_call and time_ex:
            self.ran("per_call")

        # Re-validation of what the timed iterations returned, on inputs the judge regenerates from its nonce.
        kept = self.validated(lambda rep, key: wp.kept_field(rep, key, kept_ticks), reply, "kept")
        if fresh and kept:
            for k in kept:
                ref = self.reference(kt.make_inputs(self.prob, wp.tick_seed(nonce, k["tick"])))
                outs = [self.map_output(d) + (d,) for d in k["outputs"]]
                # The core refreshes before each batched trial, then (per-call mode) before each call alone.
                per_call = o.per_call and k["tick"] >= o.trials
                self.compare_into("per_call" if per_call else "fresh_inputs", ref, outs, self.names)
            self.ran("fresh_inputs")
        last = reply.get("last")
        if o.post_timing and isinstance(last, dict) and self.lib.has("kwb_bridge_session_check"):
            tick = last.get("tick")
            if fresh and (type(tick) is not int or tick != ticks - 1):
                self.violation("protocol: the last timed output is of tick %r, the judge counted %d" % (tick, ticks))
            else:
                inputs = kt.make_inputs(self.prob, wp.tick_seed(nonce, tick)) if fresh else self.last_inputs
                ref = self.reference(inputs)
                outs = self.validated(lambda rep, key: [self.map_output(d) + (d,) for d in wp.outputs_field(rep, key)],
                                      last, "outputs")
                if self.compare_into("post_timing", ref, outs, self.names):
                    self.ran("post_timing")
        self.call("release")

        # The reference first: the core's timer fills host_timing (measured_by runner) for it, which the
        # judge's own measurement then replaces whole.
        if o.time_reference:
            self.progress("reference", 1, 2)
            self.time_reference()
        if o.host_timer:
            self.progress("host timer", 0, 1)
            self.host_timing()

    def validated(self, fn, obj, key):
        try:
            return fn(obj, key)
        except wp.WorkerProtocolError as exc:
            self.violation("protocol: %s" % exc)
            raise CandidateError("launch_error", "the candidate worker broke the protocol: %s" % exc)

    def timed_run(self, nonce, fresh):
        """The worker's timing run. Before each trial the worker announces tick
        n (it is about to write iteration n's inputs; iteration n-1's output is
        done) and the judge answers whether to keep that output: chosen here
        at random after the output exists, so a sample cannot be honest only
        on the iterations that are checked."""
        o = self.o
        ch = self.worker
        ch.seq += 1
        seq = ch.seq
        ch.send(wp.command("time", seq, nonce=nonce if fresh else None, fresh=fresh, warmup=o.warmup,
                           trials=o.trials, l2_flush=o.l2_flush, cupti=o.cupti, per_call=o.per_call,
                           reset_persisting_l2=o.reset_persisting_l2, own_kernels=self.own,
                           timing_budget_s=o.timing_budget_s or None))
        rng = secrets.SystemRandom()
        runs = 2 if o.per_call else 1
        want = min(o.fresh_checks * runs, wp.MAX_KEPT)
        p = min(1.0, float(o.fresh_checks) / max(1, min(o.trials, 30) if o.per_call else o.trials))
        if o.timing_budget_s:  # the core may stop after 10 trials: keep about two of them still
            p = max(p, min(1.0, 2.0 / 10))
        kept, ticks = set(), 0
        while True:
            try:
                msg = ch.receive(seq, self.left(), kinds=("tick", "reply"))
            except wp.WorkerFailed as exc:
                self.collect(exc.reply)
                raise CandidateError(exc.status, str(exc))
            finally:
                for v in ch.violations:
                    self.violation(v)
                ch.violations = []
            if msg["type"] == "reply":
                self.collect(msg)
                return msg, kept, ticks
            n = msg.get("n")
            if type(n) is not int or n != ticks:
                self.violation("protocol: tick %r where %d was due" % (n, ticks))
                raise CandidateError("launch_error", "the candidate worker broke the protocol: tick %r where %d was "
                                     "due" % (n, ticks))
            keep = n >= 1 and len(kept) < want and rng.random() < p
            if keep:
                kept.add(n - 1)
            ticks += 1
            ch.send({"kwbw": wp.TAG, "op": "tick", "seq": seq, "keep": keep})

    def host_timing(self):
        """The third timer, which nothing in the worker can patch: the judge's
        clock around K back-to-back calls between device synchronisations, on K
        input sets the judge wrote into an arena of their own (distinct
        contents, so a look-up cannot stand in for the work). The worker keeps
        what each call returned; afterwards the judge picks two calls at random
        and compares their outputs with references it computes itself (into
        fresh_inputs), so a worker that computes only some of the calls is
        caught. Nothing the worker reports is subtracted from the wall time.
        The reference runs over the same sets here, before the worker sees them."""
        o = self.o
        per_set = sum(x.numel() * x.element_size() for _i, x in self.slots)
        want = o.host_calls
        if self.event_ms:
            want = max(want, min(HOST_CALLS_MAX, int(math.ceil(HOST_BATCH_MS / self.event_ms))))
        k = min(want, HOST_ARENA_BYTES // max(1, per_set))
        if k < 2 or not self.slots:
            return
        seed = secrets.randbelow(1 << 40)
        sizes = [x.numel() * x.element_size() for _i, x in self.slots] * k
        self.host_arena = ipc.InputArena(self.j.driver, sizes)
        n = len(self.slots)
        sets, descs = [], []
        for j in range(k):
            views = [kt.view_at(self.host_arena.ptr(j * n + s), sizes[s], kt.DTYPE_NAMES[x.dtype], list(x.shape))
                     for s, (_i, x) in enumerate(self.slots)]
            kt.write_into(views, kt.make_inputs(self.prob, seed + j), "host-timer inputs")
            args, d, s_i = [], [], 0
            for a in self.arg_descs:
                if "tensor" in a:
                    args.append(views[s_i])
                    d.append({"arg": a["arg"], "tensor": dict(a["tensor"], offset=self.host_arena.offsets[j * n + s_i])})
                    s_i += 1
                else:
                    args.append(a["value"])
                    d.append(a)
            sets.append(args)
            descs.append(d)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for args in sets:
            self.model(*args)
        torch.cuda.synchronize()
        ref_ms = (time.perf_counter() - t0) * 1e3 / k
        del sets
        self.call("host_setup", arena={"handle": self.host_arena.handle.hex(), "size": self.host_arena.size},
                  sets=descs)
        # Once untimed: the worker keeps every call's output, so a cold batch pays the caching
        # allocator's cudaMalloc of k fresh output blocks, which the reference's loop (outputs
        # dropped) never does; the timed batch reuses them. (The likely cause of L1/1's 5.2 ms
        # a call against its events' 3.2 ms on the leaderboard run.)
        self.call("host_batch")
        t0 = time.perf_counter()
        self.call("host_batch")
        cand_ms = (time.perf_counter() - t0) * 1e3 / k
        picks = secrets.SystemRandom().sample(range(k), 2)
        reply = self.call("host_outputs", picks=picks)
        kept = self.validated(lambda rep, key: wp.kept_field(rep, key, set(picks)), reply, "kept")
        verified = len(kept) == len(picks)
        # Both picks in one buffer: the sample reuses its output buffer, which is
        # honest; the earlier call's output is gone, so nothing can be checked.
        places = [tuple((d["handle"], d["offset"]) for d in e["outputs"]) for e in kept]
        if len(set(places)) < len(places):
            verified, kept = False, []
        for entry in kept:
            outs = [self.map_output(d) + (d,) for d in entry["outputs"]]
            ref = self.reference(kt.make_inputs(self.prob, seed + entry["tick"]))
            if not self.compare_into("fresh_inputs", ref, outs, self.names):
                verified = False
        self.call("release")
        if self.set_member("host_timing", {"candidate_ms": cand_ms, "reference_ms": ref_ms, "trials": k,
                                           "measured_by": "judge"}) and verified:
            self.ran("host_timer")

    def time_reference(self):
        """The reference, timed here by the core's timer on the judge's own
        inputs. No fresh contents: the reference is trusted, and the refresh
        would only add to the re-run's cost."""
        o = self.o
        inputs = kt.make_inputs(self.prob, o.seed)
        if o.timing_budget_s:
            self.sess.set_timing_budget(o.timing_budget_s)
        torch.cuda.synchronize()
        raised, _ran = self.sess.time(True, lambda: self.model(*inputs), self.sp, o.warmup, o.trials, o.l2_flush,
                                      o.cupti, refresh=None, per_call=o.per_call,
                                      reset_persisting_l2=o.reset_persisting_l2)
        if raised is not None:
            raise raised

    # -- the end

    def close(self):
        self.progress("teardown", 0, 1)
        r = self.r
        isolation = {"reference_process": "separate", "sandbox": self.sandbox[0], "why_not": self.sandbox[1],
                     "violations": list(self.violations)}
        if self.worker is not None:
            for v in self.worker.violations:
                self.violation(v)
            isolation["violations"] = list(self.violations)
        self.ran("isolation")
        self.set_member("isolation", isolation)
        self.set_member("checks_run", list(self.checks))
        r.setdefault("_unset", {}).update(self.unset)
        # The judge's mappings of the worker's memory go first, then the worker (killed now, reaped
        # later), then the arenas it mapped (freed once it is gone).
        try:
            torch.cuda.synchronize()
        except Exception:
            traceback.print_exc(file=sys.stderr)
        self.mappings.close_all()
        arenas = [a for a in (self.arena, self.host_arena) if a is not None]
        if self.worker is not None:
            self.j.reap()  # at most one worker dying at a time
            self.j.retire(self.worker, arenas)
        else:
            ipc.free_all(arenas)


def worker_death(exc):
    """A CandidateError for a worker that died, naming a sandbox kill."""
    sig = exc.by_signal
    if sig == 31:  # SIGSYS: seccomp stopped a forbidden system call
        return CandidateError("fault", "%s (a system call the sandbox forbids)" % exc), \
            "sandbox: the worker was killed by SIGSYS (a forbidden system call)"
    return CandidateError("fault", str(exc)), None

