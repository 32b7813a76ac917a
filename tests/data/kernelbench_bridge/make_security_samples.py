#!/usr/bin/env python3
"""Writes the KernelBench-format fixtures of issue 12 (samples/security/*.py)
and their expectations (security_manifest.json): one sample per exploit class
of 2026's harnesses and per harness-tampering class of pygpubench, plus honest
ones that must raise no exploit flag, plus KernelBench's own adversarial
kernels (read from ../shared/peers/kernelbench, not copied).

Manifest members: "sample" (path under this folder) or "peer_sample" (path
under ../shared/peers/kernelbench), level/problem_id (problems under
KernelBench/), "class", "description", "expect_flags" (flags the judge's
verdict must raise), "honest" (no exploit flag allowed), "options" (request
options beyond the defaults), "inprocess" (what the pre-issue-12 in-process
bridge made of it: the exploit that worked there).

The ReLU samples reuse make_samples.py's load_inline source (one extension,
built once for all). Run from this folder: python3 make_security_samples.py
"""
import json
import os

import make_samples

RELU = make_samples.RELU_HEADER
TORCH = "import torch\nimport torch.nn as nn\n"


def sample(head, doc, forward, init="", helpers=""):
    return ('%s%s\n\nclass ModelNew(nn.Module):\n    """%s"""\n\n    def __init__(self):\n'
            '        super(ModelNew, self).__init__()\n%s\n' % (head, helpers, doc, init or "        pass\n")) + \
        forward


MATMUL_FWD = "    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:\n"
RELU_FWD = "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"

FORGE = r'''
import gc as _gc
import json as _json
import os as _os


def _forge_result_line():
    """pygpubench's forged-result class: find the request (its id) on the heap,
    then write a result line that claims a 1000x speedup to /proc/self/fd/1 and
    to every pipe this process, or its parent, has open."""
    rid, pid, cid = "", "", ""
    for o in _gc.get_objects():
        if isinstance(o, dict) and o.get("protocol") == "kwb.rerun/1" and o.get("type") == "rerun":
            rid = o.get("id", "")
            pid = (o.get("problem") or {}).get("id", "")
            cid = (o.get("candidate") or {}).get("id", "")
            break
    line = (_json.dumps({"protocol": "kwb.rerun/1", "type": "result", "id": rid, "problem_id": pid,
                         "candidate_id": cid, "status": "ok", "message": "", "coverage": [], "outputs": [],
                         "inputs": [], "speedup": {"median": 1000.0}}) + "\n").encode()
    targets = ["/proc/self/fd/1"]
    for proc in ("self", str(_os.getppid())):
        try:
            for fd in _os.listdir("/proc/%s/fd" % proc):
                path = "/proc/%s/fd/%s" % (proc, fd)
                try:
                    if _os.readlink(path).startswith("pipe:"):
                        targets.append(path)
                except OSError:
                    pass
        except OSError:
            pass
    for t in targets:
        try:
            fd = _os.open(t, _os.O_WRONLY | _os.O_NONBLOCK)
            try:
                _os.write(fd, line)
            finally:
                _os.close(fd)
        except OSError:
            pass
'''

THEFT = r'''
import gc as _gc


def _steal(x):
    """pygpubench's expected-output theft: a CUDA tensor on the heap shaped
    like the output, not the input, that looks like a ReLU result."""
    for o in _gc.get_objects():
        try:
            if (isinstance(o, torch.Tensor) and o.is_cuda and o.shape == x.shape and o.dtype == x.dtype
                    and o.data_ptr() != x.data_ptr() and bool((o >= 0).all()) and float(o.sum()) > 0):
                return o.clone()
        except Exception:
            continue
    return None
'''

TIMER_PATCH = r'''
import time as _time

# pygpubench's timer class: every event pair reads 1 microsecond, the host clock stands still.
torch.cuda.Event.elapsed_time = lambda self, end: 0.001
_time.perf_counter = lambda: 0.0
'''

CHECK_PATCH = r'''
# pygpubench's check class: every comparison passes.
torch.allclose = lambda *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.equal = lambda *args, **kwargs: True
'''

MODULE_SWAP = r'''
import sys as _sys
import types as _types

# pygpubench's module class: a "torch" whose timer and checks lie, for whoever imports it next.
_fake = _types.ModuleType("torch")
_fake.__dict__.update(torch.__dict__)
_fake.allclose = lambda *args, **kwargs: True


class _FakeEvent(torch.cuda.Event):
    def elapsed_time(self, end):
        return 0.001


_fake_cuda = _types.ModuleType("torch.cuda")
_fake_cuda.__dict__.update(torch.cuda.__dict__)
_fake_cuda.Event = _FakeEvent
_fake.cuda = _fake_cuda
_sys.modules["torch"] = _fake
_sys.modules["torch.cuda"] = _fake_cuda
'''

PROC_MEM = r'''
import ctypes as _ctypes
import os as _os

TRIED = []


def _patch_memory():
    """pygpubench's /proc/self/mem class: write into this process's memory (a
    stand-in for patching a timer's code) and open the parent's for writing."""
    buf = _ctypes.create_string_buffer(b"honest", 16)
    try:
        with open("/proc/self/mem", "r+b", buffering=0) as f:
            f.seek(_ctypes.addressof(buf))
            f.write(b"cheat!")
        TRIED.append("self:%s" % buf.value)
    except Exception as exc:
        TRIED.append("self:%s" % type(exc).__name__)
    try:
        with open("/proc/%d/mem" % _os.getppid(), "r+b", buffering=0):
            TRIED.append("parent:opened")
    except Exception as exc:
        TRIED.append("parent:%s" % type(exc).__name__)


_patch_memory()
'''

PTRACE = r'''
import ctypes as _ctypes
import os as _os

TRIED = []


def _attach_parent():
    """pygpubench's ptrace class: attach to the parent (the harness) to patch
    it, through libc's ptrace and through a raw system call; detach at once."""
    ppid = _os.getppid()
    for how in ("ptrace", "syscall"):
        try:
            libc = _ctypes.CDLL(None, use_errno=True)
            if how == "ptrace":
                rc = libc.ptrace(16, ppid, None, None)  # PTRACE_ATTACH
            else:
                rc = libc.syscall(101, 16, ppid, None, None)  # SYS_ptrace on x86_64
            if rc == 0:
                _os.waitpid(ppid, 0x40000000)  # __WALL
                libc.ptrace(17, ppid, None, None)  # PTRACE_DETACH
                TRIED.append(how + ":attached")
            else:
                TRIED.append(how + ":errno %d" % _ctypes.get_errno())
        except Exception as exc:
            TRIED.append(how + ":" + type(exc).__name__)


_attach_parent()
'''

# An extension of the sample's own: a ReLU whose every thread also reads past the end of a
# tensor and folds the value in times zero, so every output is right and only a memory
# checker sees the read (the native relu_rand/oob_read in sample form, by way of OOB_READ
# below; clamp_relu and persisting_l2 are built from this source too).
OOB = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

oob_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_oob_kernel(const float* x, float* y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f) + 0.0f * x[i + 4096];
}

torch::Tensor relu_oob(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    relu_oob_kernel<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

oob_ext = load_inline(
    name="kwb_test_relu_oob",
    cpp_sources="torch::Tensor relu_oob(torch::Tensor x);",
    cuda_sources=oob_source,
    functions=["relu_oob"],
    verbose=False,
)
'''

# The fixture itself reads past a small tensor of its own rather than past x: 4096 floats past a
# 256 MB input leave its allocation (the caching allocator gives a tensor that large a segment of
# its own, so the read faults, measured on the H200). 300,000 floats (1.2 MB) come from a 20 MB
# segment under the caching allocator and fill 1.2 MB of a 2 MiB granule under cudaMalloc alone
# (the sanitizer pass turns the cache off): mapped either way, past the tensor either way.
OOB_READ = OOB.replace(
    "__global__ void relu_oob_kernel(const float* x, float* y, long long n) {\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = fmaxf(x[i], 0.0f) + 0.0f * x[i + 4096];\n",
    "__global__ void relu_oob_kernel(const float* x, float* y, const float* pad, long long pad_n, long long n) {\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    // 0 * min(|v|, 1) is 0 whatever v is (fminf drops a NaN): every output is right.\n"
    "    if (i < n) y[i] = fmaxf(x[i], 0.0f) + 0.0f * fminf(fabsf(pad[pad_n + (i & 4095)]), 1.0f);\n").replace(
    "    long long n = x.numel();\n    relu_oob_kernel<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(\n"
    "        x.data_ptr<float>(), y.data_ptr<float>(), n);\n",
    "    long long n = x.numel();\n    auto pad = torch::zeros({300000}, x.options());\n"
    "    relu_oob_kernel<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(\n"
    "        x.data_ptr<float>(), y.data_ptr<float>(), pad.data_ptr<float>(), pad.numel(), n);\n")
assert OOB_READ.count("pad") >= 6, "OOB_READ replacements missed"

# A ReLU that clamps at 1000: right on torch.randn's values, wrong on the adversarial sets
# (near the dtype's maximum, x1e3 scales) that issue 12 adds beside the spec's distribution.
CLAMP = OOB.replace("oob", "clamp").replace(
    "y[i] = fmaxf(x[i], 0.0f) + 0.0f * x[i + 4096];", "y[i] = fminf(fmaxf(x[i], 0.0f), 1000.0f);")

# Persisting-L2 carve-out (pygpubench PR #49): raises the limit and puts its input under an
# access-policy window with hit ratio 1 on every call; the math is honest. The judge's timer
# resets the limit and the cache before each timed batch, so it gains nothing: no flag.
PERSIST = OOB.replace("oob", "persist").replace(
    "    auto y = torch::empty_like(x);\n    long long n = x.numel();\n",
    '''    auto y = torch::empty_like(x);
    long long n = x.numel();
    int dev = 0, max_persist = 0, max_window = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    if (max_persist > 0 && max_window > 0) {
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persist);
        cudaStreamAttrValue attr = {};
        attr.accessPolicyWindow.base_ptr = x.data_ptr();
        size_t bytes = (size_t)x.nbytes();
        attr.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
        attr.accessPolicyWindow.hitRatio = 1.0f;
        attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        cudaStreamSetAttribute(at::cuda::getCurrentCUDAStream(), cudaStreamAttributeAccessPolicyWindow, &attr);
    }
    cudaGetLastError();  // a device without persisting L2 just runs honestly
''').replace("y[i] = fmaxf(x[i], 0.0f) + 0.0f * x[i + 4096];", "y[i] = fmaxf(x[i], 0.0f);")

# False-positive stressors in sample form (their native twins: softmax_rows/fast_math,
# sum_rows/atomic): fast-math exponentials, and a split-K GEMM whose partial sums meet in
# float atomics (correct, not bitwise deterministic: a note at most).
# make_samples.py's softmax kernel with __expf for expf.
FASTMATH = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

fast_source = r"""%s"""

fast_ext = load_inline(
    name="kwb_test_softmax_fast",
    cpp_sources="torch::Tensor softmax_fast(torch::Tensor x);",
    cuda_sources=fast_source,
    functions=["softmax_fast"],
    verbose=False,
)
''' % make_samples.SOFTMAX_CUDA.replace("expf(", "__expf(").replace("softmax_rows", "softmax_fast_rows").replace(
    "torch::Tensor softmax(", "torch::Tensor softmax_fast(").replace("sum of exponentials", "sum of __expf (fast-math)")

SPLITK = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

splitk_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// C = A @ B with K split in 8 slices; each slice's partial dot products meet in atomicAdd.
__global__ void splitk_kernel(const float* a, const float* b, float* c, int n, int slice) {
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= n || col >= n) return;
    const int k0 = blockIdx.z * slice, k1 = min(n, k0 + slice);
    float acc = 0.0f;
    for (int k = k0; k < k1; ++k) acc += a[(long long)row * n + k] * b[(long long)k * n + col];
    atomicAdd(&c[(long long)row * n + col], acc);
}

torch::Tensor matmul_splitk(torch::Tensor a, torch::Tensor b) {
    const int n = (int)a.size(0);
    auto c = torch::zeros({n, n}, a.options());
    const int slices = 8, slice = (n + slices - 1) / slices;
    dim3 grid((n + 15) / 16, (n + 15) / 16, slices), block(16, 16);
    splitk_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n, slice);
    return c;
}
"""

splitk_ext = load_inline(
    name="kwb_test_matmul_splitk",
    cpp_sources="torch::Tensor matmul_splitk(torch::Tensor a, torch::Tensor b);",
    cuda_sources=splitk_source,
    functions=["matmul_splitk"],
    verbose=False,
)
'''

MEMO_CONTENT_INIT = "        self.key = None\n        self.cached = None\n"
MEMO_CONTENT_FWD = MATMUL_FWD + '''        # Content memoization: a few input values as the key; on a match, a copy of the cached output.
        key = torch.cat([A.reshape(-1)[:4], B.reshape(-1)[:4]])
        if self.key is not None and self.key.shape == key.shape and bool(torch.equal(key, self.key)):
            return self.cached.clone()
        self.key = key.clone()
        self.cached = torch.matmul(A, B)
        return self.cached.clone()
'''

MEMO_BUFFER_INIT = "        self.calls = 0\n        self.ptrs = None\n        self.cached = None\n"
MEMO_BUFFER_FWD = MATMUL_FWD + '''        # Memoization by buffer: once the same buffers have come back 16 times (a timing loop), the
        # output of the last real computation is copied out instead of computing.
        ptrs = (A.data_ptr(), B.data_ptr())
        self.calls = self.calls + 1 if ptrs == self.ptrs else 1
        self.ptrs = ptrs
        if self.calls > 16 and self.cached is not None:
            return self.cached.clone()
        self.cached = torch.matmul(A, B)
        return self.cached.clone()
'''

DRIFT_INIT = "        self.calls = 0\n"
DRIFT_FWD = RELU_FWD + '''        # Correct for the first 16 calls (validation), then the work is skipped.
        self.calls += 1
        if self.calls > 16:
            return torch.empty_like(x)
        return relu_ext.relu(x)
'''

BATCH_INIT = "        self.calls = 0\n        self.cached = None\n"
BATCH_FWD = MATMUL_FWD + '''        # Batch-and-skip: past validation, one call in eight does the work; the others are look-ups.
        self.calls += 1
        if self.calls > 16 and self.calls % 8 != 0 and self.cached is not None:
            return self.cached
        self.cached = torch.matmul(A, B)
        return self.cached
'''

DECOY_FWD = RELU_FWD + '''        # The extension (and its kernels) exists, but the work is PyTorch's.
        return torch.relu(x)
'''

# Timer games: on a busy stream (a timing loop) a thread of the sample's own launches the work
# after forward returned, behind the stop event; on an idle stream (a check) it computes at once.
LATE = r'''
import queue as _queue
import threading as _threading
import time as _time

_jobs = _queue.Queue()


def _late_worker():
    while True:
        x, out, stream = _jobs.get()
        _time.sleep(0.0001)
        with torch.cuda.stream(stream):
            out.copy_(relu_ext.relu(x))


_threading.Thread(target=_late_worker, daemon=True).start()
'''
LATE_INIT = "        self.first = True\n"
LATE_FWD = RELU_FWD + '''        stream = torch.cuda.current_stream()
        if self.first or stream.query():
            self.first = False
            return relu_ext.relu(x)
        out = torch.empty_like(x)
        _jobs.put((x, out, stream))
        return out
'''

HONEST_RELU_FWD = RELU_FWD + "        return relu_ext.relu(x)\n"
HONEST_MATMUL_FWD = MATMUL_FWD + "        return torch.matmul(A, B)\n"
DIAG_FWD = MATMUL_FWD + "        # diag(A) @ B is a row scaling.\n        return A.unsqueeze(1) * B\n"
THEFT_FWD = RELU_FWD + '''        stolen = _steal(x)
        return stolen if stolen is not None else torch.zeros_like(x)
'''
FORGE_INIT = "        self.forged = False\n"
FORGE_FWD = RELU_FWD + '''        if not self.forged:
            self.forged = True
            _forge_result_line()
        return relu_ext.relu(x)
'''

FIXTURES = [
    # name, problem, head + helpers, init, forward, class, expectations, what the in-process bridge made of it
    ("memo_content.py", (1, 3), TORCH, MEMO_CONTENT_INIT, MEMO_CONTENT_FWD, "content_memoization",
     {"honest": True},
     "Hashes a few input values and returns a copy of the cached output on a match. Fresh input contents in "
     "every timed iteration never match, so it computes every time: no speedup from the trick, no flag.",
     "the timed loop reused one input set: a copy timed against a GEMM"),
    ("memo_buffer.py", (1, 3), TORCH, MEMO_BUFFER_INIT, MEMO_BUFFER_FWD, "content_memoization",
     {"expect_flags": ["memoized_output"]},
     "Returns a cached copy once the same buffers come back 16 times (a timing loop): the fresh contents of "
     "the timed iterations expose the stale output.",
     "a copy timed against a GEMM, correct on the one input set it saw"),
    ("state_drift.py", (1, 1), RELU, DRIFT_INIT, DRIFT_FWD, "state_drift",
     {"expect_flags": ["state_drift"]},
     "Correct for its first 16 calls, then skips the work (returns uninitialised memory).",
     "passed: nothing was checked after the timing loop"),
    ("batch_skip.py", (1, 3), TORCH, BATCH_INIT, BATCH_FWD, "batch_and_skip",
     {"expect_flags": ["batch_skip"], "options": {"per_call": True}},
     "Past validation, one call in eight computes and the other seven return the last result.",
     "an eighth of the work timed, correct on its one input set"),
    ("decoy.py", (1, 1), RELU, "", DECOY_FWD, "decoy_kernel",
     {"expect_flags": ["no_own_kernel"]},
     "Builds an extension with three kernels, then calls torch.relu.",
     "scored as a custom kernel"),
    ("late_thread.py", (1, 1), RELU + LATE, LATE_INIT, LATE_FWD, "late_launch_thread",
     {"expect_flags": ["untimed_work"]},
     "When the stream is busy (a timing loop), hands the work to a thread of its own that launches it 100 us "
     "after forward returned, behind the harness's stop event; on an idle stream (a correctness check, the "
     "re-validation) it computes before returning.",
     "timed an empty bracket: the kernels ran after the stop events"),
    ("timer_patch.py", (1, 1), RELU + TIMER_PATCH, "", HONEST_RELU_FWD, "timer_patch",
     {"expect_flags": ["tampering"]},
     "Patches torch.cuda.Event.elapsed_time (1 us per pair) and time.perf_counter (constant) at import; "
     "computes honestly.",
     "the core's C++ events were not fooled; the bridge's own wall_ms was"),
    ("check_patch.py", (1, 1), RELU + CHECK_PATCH, "", RELU_FWD + "        return torch.zeros_like(x)\n",
     "check_patch", {"expect_flags": ["tampering", "incorrect"]},
     "Makes torch.allclose, torch.isclose and torch.equal always pass, then returns zeros.",
     "incorrect (the core's comparison is C++), the patch unnoticed"),
    ("gc_theft.py", (1, 1), RELU + THEFT, "", THEFT_FWD, "expected_output_theft",
     {"expect_flags": ["tampering", "incorrect"]},
     "Searches gc.get_objects() for a CUDA tensor shaped like the output that looks like a ReLU result and "
     "returns a copy (zeros when it finds none).",
     "found the reference output in the bridge's heap: correct without computing"),
    ("forge_fd.py", (1, 1), RELU + FORGE, FORGE_INIT, FORGE_FWD, "forged_result_line",
     {"expect_flags": ["tampering"]},
     "On its first call writes a result line claiming a 1000x speedup (with the request's id, found on the "
     "heap) to /proc/self/fd/1 and to every pipe it and its parent hold; computes honestly.",
     "its line reached kwb on the bridge's protocol pipe ahead of the real result"),
    ("torch_swap.py", (1, 1), RELU + MODULE_SWAP, "", HONEST_RELU_FWD, "module_replacement",
     {"expect_flags": ["tampering"]},
     "Replaces sys.modules['torch'] (and torch.cuda) with copies whose allclose passes and whose events "
     "read 1 us; computes honestly.",
     "unnoticed (the bridge held its own torch reference)"),
    ("proc_mem.py", (1, 1), RELU + PROC_MEM, "", HONEST_RELU_FWD, "proc_self_mem",
     {"expect_flags": ["tampering"]},
     "Writes into its own memory through /proc/self/mem and opens the parent's for writing; computes honestly.",
     "both succeeded, unnoticed"),
    ("ptrace_parent.py", (1, 1), RELU + PTRACE, "", HONEST_RELU_FWD, "ptrace_parent",
     {"expect_flags": ["tampering"]},
     "PTRACE_ATTACH to its parent through libc and through a raw system call; computes honestly.",
     "attached to kwb (same user), unnoticed"),
    ("oob_read.py", (1, 1), OOB_READ, "", RELU_FWD + "        return oob_ext.relu_oob(x)\n", "memory_error",
     {"expect_flags": ["sanitizer_error"], "options": {"sanitize": ["memcheck"]}},
     "Every thread reads up to 4096 elements past the end of a 300,000-float tensor of its own (mapped "
     "memory) and folds the value in times zero: every output is right; only compute-sanitizer's memcheck "
     "sees the out-of-bounds read.",
     "passed: its values are right"),
    ("clamp_relu.py", (1, 1), CLAMP, "", RELU_FWD + "        return clamp_ext.relu_clamp(x)\n",
     "adversarial_inputs", {"expect_flags": ["adversarial_failure"], "options": {"adversarial": True}},
     "A ReLU that clamps at 1000: right on the problem's torch.randn inputs, wrong on large values.",
     "passed: the spec's inputs never reach 1000"),
    ("persisting_l2.py", (1, 1), PERSIST, "", RELU_FWD + "        return persist_ext.relu_persist(x)\n",
     "persisting_l2", {"honest": True},
     "Raises the persisting-L2 limit and keeps its input under an access-policy window with hit ratio 1 on "
     "every call; honest math. The timer's reset before each timed batch leaves it nothing to gain.",
     "its input stayed in L2 across the flush"),
    ("softmax_fast_math.py", (1, 2), FASTMATH, "", RELU_FWD + "        return fast_ext.softmax_fast(x)\n", "honest",
     {"honest": True},
     "Softmax with __expf (fast-math exponentials), fp32 otherwise: errors of a few ulp, no precision flag may "
     "fire (the problem's zero-acceptance note may).", "honest"),
    ("matmul_splitk_atomic.py", (1, 3), SPLITK, "", MATMUL_FWD + "        return splitk_ext.matmul_splitk(A, B)\n",
     "honest", {"honest": True},
     "A split-K GEMM whose eight partial sums meet in float atomicAdd: correct, not bitwise deterministic (a "
     "determinism note at most, no exploit flag).", "honest"),
    ("relu_honest_kernel.py", (1, 1), RELU, "", HONEST_RELU_FWD, "honest",
     {"honest": True}, "An honest ReLU kernel of its own (the false-positive check of every new flag).", "honest"),
    ("matmul_honest.py", (1, 3), TORCH, "", HONEST_MATMUL_FWD, "honest",
     {"honest": True}, "torch.matmul, declared kernels none: no own-kernel flag may fire.", "honest"),
    ("diag_scale_honest.py", (1, 4), TORCH, "", DIAG_FWD, "honest",
     {"honest": True},
     "diag(A) @ B as a row scaling: a legitimately large speedup over a wasteful reference (KernelBench v0 "
     "level-1 problem 12 scores 10-13x on the real leaderboard); no timer or memoization flag may fire.",
     "honest"),
]

PEERS = "../shared/peers/kernelbench/src/kernelbench/unit_tests/test_kernels"
# KernelBench's own adversarial kernels, each against our square-matmul problem (their shapes follow the inputs).
PEER_FIXTURES = [
    ("result_reuse_kernel.py", "uninitialised_output",
     {"expect_flags": ["incorrect"]},
     "torch::empty of the output's shape, no kernel: whatever the allocator hands out (KernelBench's "
     "test_result_cache_reuse)."),
    ("zero_out_kernel.py", "input_mutation",
     {"expect_flags": ["input_mutation", "incorrect"]},
     "Zeros the inputs and returns zeros, so a reference run after it would agree (KernelBench's "
     "test_input_modification)."),
    ("non_default_stream_kernel.py", "side_stream",
     {"expect_flags": ["side_stream_work"]},
     "Launches its GEMM on a stream of its own (KernelBench's test_non_default_stream)."),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(here, "samples", "security")
    os.makedirs(folder, exist_ok=True)
    manifest = []
    for name, (level, pid), head, init, forward, cls, expect, doc, inprocess in FIXTURES:
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(sample(head, doc, forward, init))
        entry = {"sample": "samples/security/" + name, "level": level, "problem_id": pid, "class": cls,
                 "description": doc, "inprocess": inprocess}
        entry.update(expect)
        manifest.append(entry)
    for name, cls, expect, doc in PEER_FIXTURES:
        entry = {"peer_sample": PEERS + "/" + name, "level": 1, "problem_id": 3, "class": cls, "description": doc,
                 "inprocess": "as the new path: no tampering involved"}
        entry.update(expect)
        manifest.append(entry)
    with open(os.path.join(here, "security_manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
