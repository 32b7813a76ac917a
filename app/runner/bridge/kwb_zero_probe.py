"""Zero acceptance through the PyTorch bridge (`kwb zeros`): run one KernelBench
problem's reference on its own get_inputs() and hand each output tensor to
libkwb_bridge.so's kwb_zero_probe_output, where core decides whether all zeros
and the constant mean pass allclose at 1e-2 and 1e-4. This module only runs the
model and moves tensors; it decides nothing.

Request (one JSON line, protocol kwb.rerun/1):
  {"type": "zero_probe", "id": ..., "problem_file": PATH, "problem_source": TEXT, "seed": 42}
Reply: {"type": "zero_probe_result", "id": ..., "status": "ok" | "error" | "oom" | "no_device",
        "message": ..., "outputs": [STATS, ...], "setup_s", "forward_ms", "input_bytes"}
with STATS as core's zeroOutputStatsJson writes them.

Seeding as KernelBench's evaluator: torch.manual_seed(seed) before
get_init_inputs(), before Model(*init), before get_inputs(). fp32, TF32 off;
the model stays in training mode as KernelBench leaves it. Inputs are drawn on
the GPU (same distributions, other values than KernelBench's CPU draws).
"""
import ctypes
import json
import time
import traceback

try:
    import torch
except Exception:  # the bridge reports a missing torch itself
    torch = None

REPLY = "zero_probe_result"


def _bind(lib):
    fn = getattr(lib, "kwb_zero_probe_output", None)
    if fn is None:
        return None
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64]
    return fn


def flatten_tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flatten_tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten_tensors(v)]
    return []


def to_cuda(values):
    return [v.cuda() if isinstance(v, torch.Tensor) else v for v in values]


def output_stats(fn, t, stream):
    """Core's statistics of one output tensor (a dict)."""
    dtype = str(t.dtype).replace("torch.", "")
    f = t.detach()
    if f.is_complex():
        raise TypeError("complex output (%s): allclose of a trivial answer is not defined here" % dtype)
    f = f.to(torch.float32).contiguous()
    shape = (ctypes.c_int64 * max(1, f.dim()))(*list(f.shape))
    buf = ctypes.create_string_buffer(4096)
    rc = fn(ctypes.c_void_p(f.data_ptr() if f.numel() else 0), f.numel(), shape, f.dim(), dtype.encode(),
            ctypes.c_void_p(stream.cuda_stream), buf, len(buf))
    text = buf.value.decode("utf-8", "replace")
    if rc < 0:
        raise RuntimeError("kwb_zero_probe_output: %s" % text)
    return json.loads(text)


def probe(bridge, msg, load_module):
    """Answers one zero_probe request; `bridge` is the bridge's Bridge (its lib and device)."""
    rid = msg.get("id", "")
    r = {"protocol": msg.get("protocol"), "type": REPLY, "id": rid, "problem_file": msg.get("problem_file", ""),
         "status": "error", "message": "", "outputs": []}
    if not bridge.usable:
        r.update(status="no_device", message=bridge.reason)
        return r
    fn = _bind(bridge.lib.lib)
    if fn is None:
        r["message"] = "libkwb_bridge.so has no kwb_zero_probe_output (rebuild the kwb_bridge target)"
        return r
    seed = int(msg.get("seed", 42))
    label = msg.get("problem_file") or "<problem>"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        t0 = time.perf_counter()
        mod = load_module("kwb_zero_problem", msg.get("problem_source", ""), label)
        for part in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(mod, part):
                raise TypeError("%s defines no %s" % (label, part))
        with torch.device("cuda"), torch.no_grad():
            torch.manual_seed(seed)
            init = to_cuda(list(mod.get_init_inputs()))
            torch.manual_seed(seed)
            model = mod.Model(*init).cuda()
            torch.manual_seed(seed)
            inputs = to_cuda(list(mod.get_inputs()))
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            out = model(*inputs)
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            tensors = flatten_tensors(out)
            if not tensors:
                raise TypeError("forward returned no tensor (%s)" % type(out).__name__)
            stream = torch.cuda.current_stream()
            r["outputs"] = [output_stats(fn, t, stream) for t in tensors]
        r.update(status="ok", setup_s=round(t1 - t0, 3), forward_ms=round((t2 - t1) * 1e3, 3),
                 input_bytes=sum(t.numel() * t.element_size() for t in flatten_tensors(inputs)))
        del mod, model, inputs, out, tensors
    except Exception as exc:
        oom = getattr(torch.cuda, "OutOfMemoryError", ())
        r["status"] = "oom" if isinstance(exc, oom) or "out of memory" in str(exc) else "error"
        r["message"] = traceback.format_exception_only(type(exc), exc)[-1].strip()[-2000:]
        r["outputs"] = []
    finally:
        torch.cuda.empty_cache()
    return r
