"""Torch helpers shared by the judge and the candidate worker: output lists,
sentinel views, CUDA failure classification, the problem's input generation
(both processes draw the same values from the same seed on the same GPU),
fresh contents written into the same buffers, the adversarial value sets,
and tensors over raw device memory (an IPC mapping) without a copy.
Imported only where torch is."""

import traceback

import torch

from kwb_bridge_common import CandidateError

TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "int16": torch.int16,
                "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}
ADVERSARIAL_SETS = ("near_max", "near_zero", "mixed_scale", "all_equal", "signed")


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
    if isinstance(exc, getattr(torch.cuda, "OutOfMemoryError", ())):
        return CandidateError("oom", "%s: out of device memory: %s" % (what, exc))
    if is_cuda_fault(exc) or context_broken():
        return CandidateError("fault", "%s: CUDA fault: %s" % (what, exc), fatal=context_broken())
    tail = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return CandidateError("launch_error", "%s raised %s" % (what, tail))


# ---------------------------------------------------------------- inputs

def strict_fp32():
    """fp32 as the problem states it: PyTorch lets cuDNN convolutions use TF32
    by default (torch.backends.cudnn.allow_tf32), which gives a reference or a
    sample that keeps torch's convolution a 1e-3 relative error and looks like
    a precision downgrade. The judge and the worker both turn TF32 off before
    the problem's Model and the sample exist; a sample that turns it back on
    computes in TF32 and is judged so."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def to_cuda(xs):
    return [x.cuda() if isinstance(x, torch.Tensor) else x for x in xs]


def make_inputs(prob, seed):
    """The problem's get_inputs() under `seed`, on the GPU (same distributions
    as KernelBench's CPU generation, other values: KernelBench's current
    shapes hold gigabytes, which the CPU would take seconds to draw)."""
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    try:
        with torch.device("cuda"):
            return to_cuda(prob.get_inputs())
    except Exception:
        torch.manual_seed(seed)
        return to_cuda(prob.get_inputs())


def tensor_slots(inputs):
    """(argument index, tensor) of the tensor arguments, in order."""
    return [(i, x) for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]


def scalar_ok(v):
    return v is None or isinstance(v, (bool, int, float, str)) or (
        isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float)) for x in v))


def write_into(buffers, fresh, what):
    """Copies fresh input tensors into the same buffers (same shapes and dtypes)."""
    fresh_t = [x for x in fresh if isinstance(x, torch.Tensor)]
    if len(fresh_t) != len(buffers):
        raise CandidateError("unsupported", "%s: get_inputs() returned %d tensors, the buffers hold %d" % (
            what, len(fresh_t), len(buffers)))
    for b, x in zip(buffers, fresh_t):
        if tuple(b.shape) != tuple(x.shape) or b.dtype != x.dtype:
            raise CandidateError("unsupported", "%s: get_inputs() changed a tensor from %s %s to %s %s" % (
                what, tuple(b.shape), b.dtype, tuple(x.shape), x.dtype))
        b.copy_(x)


def adversarial(inputs, which):
    """The problem's own inputs rescaled or shifted into a value set that
    hides bugs from torch.rand-only testing; integer and bool tensors (indices,
    masks) stay as they are. None when the set does not apply (no float input)."""
    out, changed = [], False
    for x in inputs:
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() == 0:
            out.append(x)
            continue
        changed = True
        fi = torch.finfo(x.dtype)
        xf = x.float()
        peak = float(xf.abs().max())
        unit = xf / peak if peak > 0 else torch.ones_like(xf)
        if which == "near_max":       # large magnitudes that products and sums of a few thousand terms still hold
            y = unit * (fi.max ** 0.25)
        elif which == "near_zero":    # small magnitudes, above the subnormals even after a product
            y = unit * (fi.tiny ** 0.25)
        elif which == "mixed_scale":  # neighbours a million apart
            scale = torch.where(torch.arange(x.numel(), device=x.device).reshape(x.shape) % 2 == 0,
                                torch.tensor(1e3, device=x.device), torch.tensor(1e-3, device=x.device))
            y = xf * scale
        elif which == "all_equal":    # softmax of equal values, variance zero, ties everywhere
            y = torch.full_like(xf, float(xf.mean()) if peak > 0 else 0.5)
        elif which == "signed":       # half of the values below zero (ReLU is no longer the identity)
            y = xf - xf.mean()
        else:
            raise ValueError("unknown adversarial set %r" % which)
        out.append(y.to(x.dtype).contiguous())
    return out if changed else None


# ---------------------------------------------------------------- raw memory

class _CudaArray:
    """The __cuda_array_interface__ of `nbytes` bytes at `ptr` (torch.as_tensor keeps it alive)."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes),), "typestr": "|u1", "data": (int(ptr), False),
                                         "version": 3, "strides": None}


def view_at(ptr, nbytes, dtype_name, shape):
    """A tensor of `shape` and `dtype_name` over device memory at `ptr` (no copy)."""
    raw = torch.as_tensor(_CudaArray(ptr, max(int(nbytes), 1)), device="cuda")
    count = 1
    for d in shape:
        count *= d
    width = TORCH_DTYPES[dtype_name].itemsize if hasattr(TORCH_DTYPES[dtype_name], "itemsize") else \
        torch.empty((), dtype=TORCH_DTYPES[dtype_name]).element_size()
    return raw[: count * width].view(TORCH_DTYPES[dtype_name]).view(*shape) if shape else \
        raw[:width].view(TORCH_DTYPES[dtype_name]).view(())
