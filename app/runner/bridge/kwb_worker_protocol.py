"""The private channel between the judge (kwb_torch_bridge.py) and its
candidate worker (kwb_candidate_worker.py): JSON lines over two pipes, tag
"kwbw/1". Pure Python (no torch), so every rule here is testable on a machine
without a GPU.

The worker runs the sample, so everything it writes is untrusted. Nothing it
sends is unpickled or evaluated: a reply is one JSON object per line, at most
MAX_LINE_BYTES, answering the command of the same `seq`; every field the judge
uses is validated here (types, ranges, allow-listed names) before it touches
memory or the result. A line that is not a valid reply is a protocol
violation, recorded with what it looked like (a `kwb.rerun/1` line is a forged
result line); after MAX_JUNK_LINES of them the judge gives up on the worker.
"""

import collections
import hashlib
import json
import os
import re
import selectors
import signal
import subprocess
import time

import kwb_cuda_ipc

TAG = "kwbw/1"
MAX_LINE_BYTES = 1 << 20        # one reply line
MAX_JUNK_LINES = 64             # violations tolerated before the worker is dropped
MAX_SHAPE_RANK = 8
MAX_OUTPUTS = 64
MAX_KEPT = 64
RERUN_PROTOCOL = "kwb.rerun/1"

# Element types a worker may describe an output with, and their widths.
DTYPES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4, "int16": 2,
          "int8": 1, "uint8": 1, "bool": 1}
# Statuses a worker may end a command with (the protocol's candidate failures).
WORKER_STATUSES = ("compile_error", "launch_error", "fault", "oom", "unsupported")
# Result members the worker measures (its timing run); each is strict-decoded by the core afterwards.
WORKER_MEMBERS = ("candidate_timing", "candidate_cupti", "own_kernels", "per_call_timing")
HANDLE_HEX = 128                # a CUipcMemHandle is 64 bytes
_HEX = re.compile(r"\A[0-9a-f]+\Z")


class WorkerProtocolError(Exception):
    """The worker broke the channel's rules. `tampering` when what it sent
    looked like an attempt to reach the harness (a forged result line)."""

    def __init__(self, message, tampering=False):
        super().__init__(message)
        self.tampering = tampering


class WorkerDied(Exception):
    """The worker process ended (or was killed) before answering."""

    def __init__(self, message, returncode=None):
        super().__init__(message)
        self.returncode = returncode

    @property
    def by_signal(self):
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None


class WorkerTimeout(Exception):
    pass


class WorkerFailed(Exception):
    """The worker answered that the sample failed: `status` is a protocol status name;
    `reply` the whole (validated) failure reply."""

    def __init__(self, status, message, reply=None):
        super().__init__(message)
        self.status = status
        self.reply = reply or {}


# ---------------------------------------------------------------- encoding

def encode(obj):
    """One line of the channel: strict JSON (no NaN), newline-terminated bytes."""
    return (json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n").encode("ascii")


def command(op, seq, **fields):
    c = {"kwbw": TAG, "op": op, "seq": int(seq)}
    c.update(fields)
    return c


def reply(seq, ok=True, **fields):
    r = {"kwbw": TAG, "seq": int(seq), "type": "reply", "ok": bool(ok)}
    r.update(fields)
    return r


def tick_seed(nonce, n):
    """The seed of timed iteration `n`'s fresh inputs: both processes derive it
    from the judge's nonce, which the worker learns only when timing starts."""
    if not isinstance(nonce, str) or not _HEX.match(nonce) or len(nonce) < 16:
        raise ValueError("nonce must be at least 16 hex digits")
    h = hashlib.sha256(("%s:%d" % (nonce, int(n))).encode("ascii")).hexdigest()
    return int(h[:15], 16)


# ---------------------------------------------------------------- validation

def _reject_constant(name):
    raise ValueError("non-standard number %s" % name)


def parse_line(raw):
    """A channel line as an object, or WorkerProtocolError saying why not."""
    if len(raw) > MAX_LINE_BYTES:
        raise WorkerProtocolError("a worker line of %d bytes (limit %d)" % (len(raw), MAX_LINE_BYTES))
    try:
        text = raw.decode("utf-8")
        obj = json.loads(text, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        snippet = raw[:80].decode("utf-8", "replace")
        forged = RERUN_PROTOCOL in snippet
        raise WorkerProtocolError("%s worker line (%s): %r" % ("a forged result" if forged else "a malformed", exc,
                                                              snippet), tampering=forged)
    if not isinstance(obj, dict):
        raise WorkerProtocolError("a worker line that is not an object: %r" % (text[:80],))
    if obj.get("protocol") == RERUN_PROTOCOL or obj.get("type") in ("result", "capabilities", "progress"):
        raise WorkerProtocolError("a forged result line on the worker channel (type %r, id %r)" % (
            obj.get("type"), obj.get("id")), tampering=True)
    if obj.get("kwbw") != TAG:
        raise WorkerProtocolError("a worker line without the channel tag: %r" % (text[:80],))
    return obj


def check_reply(obj, seq, kinds=("reply",)):
    """The reply (or tick) to command `seq`; raises WorkerFailed for a failure reply."""
    kind = obj.get("type")
    if kind not in kinds:
        raise WorkerProtocolError("a worker line of type %r where %s was expected" % (kind, "/".join(kinds)))
    if type(obj.get("seq")) is not int or obj["seq"] != seq:
        raise WorkerProtocolError("a worker reply to command %r while command %d was pending" % (obj.get("seq"), seq))
    if kind == "reply":
        if type(obj.get("ok")) is not bool:
            raise WorkerProtocolError("a worker reply without a boolean 'ok'")
        if not obj["ok"]:
            status = obj.get("status")
            if status not in WORKER_STATUSES:
                raise WorkerProtocolError("a worker failure with status %r (expected one of %s)" % (
                    status, ", ".join(WORKER_STATUSES)))
            raise WorkerFailed(status, text_field(obj, "message", 8000), obj)
    return obj


def text_field(obj, key, limit=4000, default=""):
    v = obj.get(key, default)
    if not isinstance(v, str):
        raise WorkerProtocolError("worker field %r is not a string" % key)
    return v[:limit]


def int_field(obj, key, lo=0, hi=(1 << 62)):
    v = obj.get(key)
    if type(v) is not int or v < lo or v > hi:
        raise WorkerProtocolError("worker field %r must be an integer in [%d, %d], got %r" % (key, lo, hi, v))
    return v


def number_field(obj, key, lo=0.0, hi=1e12):
    v = obj.get(key)
    if type(v) not in (int, float) or not (lo <= v <= hi):
        raise WorkerProtocolError("worker field %r must be a number in [%g, %g], got %r" % (key, lo, hi, v))
    return float(v)


def bool_field(obj, key):
    v = obj.get(key)
    if type(v) is not bool:
        raise WorkerProtocolError("worker field %r must be a boolean, got %r" % (key, v))
    return v


def string_list(obj, key, limit=256, item_limit=512):
    v = obj.get(key, [])
    if not isinstance(v, list) or len(v) > limit or not all(isinstance(s, str) for s in v):
        raise WorkerProtocolError("worker field %r must be a list of at most %d strings" % (key, limit))
    return [s[:item_limit] for s in v]


def handle_field(obj, key="handle"):
    v = obj.get(key)
    if not isinstance(v, str) or len(v) != HANDLE_HEX or not _HEX.match(v):
        raise WorkerProtocolError("worker field %r must be %d lowercase hex digits (a CUDA IPC handle)" % (
            key, HANDLE_HEX))
    return bytes.fromhex(v)


def output_desc(obj):
    """One output the worker hands back by CUDA IPC handle:
    {"handle", "offset", "nbytes", "dtype", "shape"} (contiguous, row-major).
    Returns a plain dict of validated values; the mapping's size is checked
    against the allocation when the judge opens it."""
    if not isinstance(obj, dict):
        raise WorkerProtocolError("an output description that is not an object")
    dtype = obj.get("dtype")
    if dtype not in DTYPES:
        raise WorkerProtocolError("output dtype %r is not one of %s" % (dtype, ", ".join(sorted(DTYPES))))
    shape = obj.get("shape")
    if not isinstance(shape, list) or len(shape) > MAX_SHAPE_RANK or not all(
            type(d) is int and 0 <= d < (1 << 40) for d in shape):
        raise WorkerProtocolError("output shape %r must be a list of at most %d non-negative integers" % (
            shape, MAX_SHAPE_RANK))
    count = 1
    for d in shape:
        count *= d
    nbytes = int_field(obj, "nbytes", 0, 1 << 44)
    if nbytes != count * DTYPES[dtype]:
        raise WorkerProtocolError("output of shape %r and dtype %s must be %d bytes, the worker says %d" % (
            shape, dtype, count * DTYPES[dtype], nbytes))
    offset = int_field(obj, "offset", 0, 1 << 44)
    if offset % 16:
        raise WorkerProtocolError("output offset %d is not 16-byte aligned" % offset)
    return {"handle": handle_field(obj), "offset": offset, "nbytes": nbytes, "dtype": dtype, "shape": shape,
            "count": count}


def outputs_field(obj, key="outputs"):
    v = obj.get(key)
    if not isinstance(v, list) or len(v) > MAX_OUTPUTS:
        raise WorkerProtocolError("worker field %r must be a list of at most %d outputs" % (key, MAX_OUTPUTS))
    return [output_desc(o) for o in v]


def kept_field(obj, key, ticks_seen):
    """Outputs the worker kept at the judge's request: [{"tick": n, "outputs": [...]}].
    Only ticks the judge asked to keep are accepted, each once."""
    v = obj.get(key, [])
    if not isinstance(v, list) or len(v) > MAX_KEPT:
        raise WorkerProtocolError("worker field %r must be a list of at most %d kept outputs" % (key, MAX_KEPT))
    out, seen = [], set()
    for k in v:
        if not isinstance(k, dict):
            raise WorkerProtocolError("a kept output that is not an object")
        tick = int_field(k, "tick", 0, 1 << 30)
        if tick not in ticks_seen or tick in seen:
            raise WorkerProtocolError("kept output of tick %d, which the judge did not ask to keep" % tick)
        seen.add(tick)
        out.append({"tick": tick, "outputs": outputs_field(k)})
    return out


def json_depth_ok(v, depth=0, budget=None):
    budget = budget if budget is not None else [200000]
    budget[0] -= 1
    if budget[0] < 0 or depth > 12:
        return False
    if isinstance(v, dict):
        return all(isinstance(k, str) and json_depth_ok(x, depth + 1, budget) for k, x in v.items())
    if isinstance(v, list):
        return all(json_depth_ok(x, depth + 1, budget) for x in v)
    return v is None or isinstance(v, (str, bool, int, float))


def members_field(obj, key="members"):
    """The result members the worker's timing run measured, still untrusted:
    only WORKER_MEMBERS, each an object; the core's decoder (set_member) then
    decides whether each is well-formed."""
    v = obj.get(key)
    if not isinstance(v, dict):
        raise WorkerProtocolError("worker field %r must be an object" % key)
    extra = sorted(set(v) - set(WORKER_MEMBERS))
    if extra:
        raise WorkerProtocolError("the worker reported members it does not measure: %s" % ", ".join(extra))
    for name, m in v.items():
        if not isinstance(m, dict) or not json_depth_ok(m):
            raise WorkerProtocolError("worker member %r must be a bounded JSON object" % name)
    return v


# ---------------------------------------------------------------- the channel

# Set in a worker's environment by a build lane's judge: the worker imports samples
# to build them and never runs one, so it starts no CUDA context.
BUILD_ONLY_ENV = "KWB_WORKER_BUILD_ONLY"


class WorkerChannel:
    """A worker process and its two private pipes. The judge's own stdout (the
    kwb.rerun/1 channel) is never inherited: close_fds, and the judge keeps
    its protocol copy non-inheritable. stderr is shared (the parent logs it)."""

    def __init__(self, argv, env=None, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                                     close_fds=True, env=env, cwd=cwd)
        self.seq = 0
        self.buffer = b""
        self.violations = []
        self.junk = 0
        self.sel = selectors.DefaultSelector()
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.ready = None

    @property
    def pid(self):
        return self.proc.pid

    def violation(self, message):
        if len(self.violations) < 32:
            self.violations.append(message[:500])

    def send(self, obj):
        try:
            self.proc.stdin.write(encode(obj))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self.died("the worker closed its command pipe")

    def died(self, why):
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = self.proc.returncode
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = "signal %d" % -rc
            return WorkerDied("%s: the candidate worker was killed by %s" % (why, name), rc)
        return WorkerDied("%s: the candidate worker exited with status %s" % (why, rc), rc)

    def read_line(self, deadline):
        """The next line (bytes, without the newline), or WorkerDied / WorkerTimeout."""
        while True:
            nl = self.buffer.find(b"\n")
            if nl >= 0:
                line, self.buffer = self.buffer[:nl], self.buffer[nl + 1:]
                return line
            if len(self.buffer) > MAX_LINE_BYTES:
                self.buffer = b""
                raise WorkerProtocolError("a worker line longer than %d bytes" % MAX_LINE_BYTES)
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerTimeout("the candidate worker did not answer in time")
            if not self.sel.select(timeout=min(left, 1.0)):
                continue
            try:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise self.died("end of the worker's replies")
            self.buffer += chunk

    def receive(self, seq, timeout_s, kinds=("reply",)):
        """The next valid line for command `seq`; invalid lines become violations
        and are skipped (the worker is dropped after MAX_JUNK_LINES)."""
        deadline = time.monotonic() + timeout_s
        while True:
            raw = self.read_line(deadline)
            if not raw.strip():
                continue
            try:
                return check_reply(parse_line(raw), seq, kinds)
            except WorkerProtocolError as exc:
                self.violation(("tampering: " if exc.tampering else "protocol: ") + str(exc))
                self.junk += 1
                if self.junk > MAX_JUNK_LINES:
                    self.kill()
                    raise WorkerProtocolError("the worker sent more than %d invalid lines; dropped" % MAX_JUNK_LINES,
                                              tampering=exc.tampering)

    def wait_ready(self, timeout_s):
        self.ready = self.receive(0, timeout_s, kinds=("ready",))
        return self.ready

    def call(self, op, timeout_s, **fields):
        self.seq += 1
        self.send(command(op, self.seq, **fields))
        return self.receive(self.seq, timeout_s)

    def signal_kill(self):
        """SIGKILL without waiting: the exit (and the driver's teardown of the
        worker's CUDA context) goes on while the caller does other work."""
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass

    def kill(self):
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def close(self, timeout_s=5.0):
        if self.proc.poll() is None:
            try:
                self.seq += 1
                self.send(command("shutdown", self.seq))
                self.proc.wait(timeout=timeout_s)
            except (WorkerDied, subprocess.TimeoutExpired, OSError):
                pass
        self.kill()
        try:
            self.sel.close()
            self.proc.stdin.close()
            self.proc.stdout.close()
        except OSError:
            pass


class Retiring:
    """Used workers, killed and not yet reaped, with the arenas each mapped.
    A worker's exit (mostly the driver tearing down its CUDA context) was most
    of a record's teardown, 0.7 s on the H100; killed at once and reaped later
    it overlaps the next record's set-up. Nothing of a used worker is read
    again, so it gets no graceful shutdown. Its arenas are freed only once it
    is gone, since it maps them; arenas above `overlap_bytes` are not left for
    later, so two records' inputs are not on the device at once."""

    def __init__(self, release, overlap_bytes):
        self.release = release   # waits for a channel's process and cleans up after it
        self.overlap_bytes = overlap_bytes
        self.items = collections.deque()

    def __len__(self):
        return len(self.items)

    def add(self, ch, arenas):
        ch.signal_kill()
        self.items.append((ch, list(arenas)))
        if sum(a.size for a in arenas) > self.overlap_bytes:
            self.reap()

    def reap(self):
        while self.items:
            ch, arenas = self.items.popleft()
            self.release(ch)
            kwb_cuda_ipc.free_all(arenas)
