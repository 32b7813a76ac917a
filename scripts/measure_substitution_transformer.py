#!/usr/bin/env python3
"""Measured, not only projected, for a transformer: GPT-2 bf16 inference with
verified candidate kernels swapped in for the operators they replace.

    python3 scripts/measure_substitution_transformer.py --out out/substitution_gpt2.json \
        [--records out/transformer_bench/records.jsonl] [--size 124m] [--batch 8] [--seq 1024]
    python3 -m unittest tests/bridge_paper/test_transformer_bench.py   # the logic, on a CPU

The workload is the scale sweep's gpt2_*_infer capture (transformers'
GPT2LMHeadModel from a config, random weights, bf16, SDPA attention, batch x
seq tokens, one full-sequence forward). The candidates are the KernelBench-format
samples of datasets/kernelbench_transformer/samples (inline CUDA):

  * layernorm: every nn.LayerNorm (ln_1, ln_2 of each block, ln_f) -> 1_LayerNormBF16
               (one warp per row, fp32 statistics);
  * gelu:      every block's NewGELUActivation (tanh GELU, six bf16 kernels in
               eager PyTorch) -> 2_GeluTanhBF16 (one fused pass).

The swap shares the original parameters (a module swap in a copy whose
parameters are the original's). Before timing, the logits of the original and
the substituted model are compared with an fp32 copy's: the substitution must
not be further from fp32 than bf16 eager is (1.5x margin). Then:

  * f per operator: its share of the original model's GPU kernel time, from
    torch.profiler with a record_function range around each swapped module;
  * s per operator: the original module against the sample on the input the
    model gives it (captured by a forward hook), CUDA events, median of
    --op-trials after an L2 flush; w = 1 when the sample is correct there
    (allclose 1e-2, KernelBench's bf16 tolerance) and faster, else 0;
  * projection sum_i f_i w_i (1 - 1/s_i) and the Amdahl bound
    1 - ((1 - sum f_i) + sum f_i / s_i) (over the winning operators); with
    --records also the same from the samples' KernelBench evaluation
    (scripts/evaluate_dlrm_bench.py --bench datasets/kernelbench_transformer);
  * measured: the whole forward, original and substituted alternately,
    --warmup then --steps steps, CUDA events, median and IQR; saving
    1 - t_sub / t_orig.
"""
import argparse
import copy
import json
import math
import os
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # the projection arithmetic and the tables are testable without torch
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
BENCH = os.path.join(REPO, "datasets", "kernelbench_transformer")
OPS = {"layernorm": "1_LayerNormBF16", "gelu": "2_GeluTanhBF16"}
GELU_CLASSES = ("NewGELUActivation", "GELUTanh", "GELUActivation", "TinyGelu")
SIZES = {"124m": (768, 12, 12), "355m": (1024, 24, 16), "774m": (1280, 36, 20), "1.5b": (1600, 48, 25)}


def projection(ops):
    """ops: {name: (f, w, s)}. Expected saving sum f w (1 - 1/s); Amdahl bound over the winning operators."""
    expected = sum(f * w * (1.0 - 1.0 / s) for f, w, s in ops.values() if s > 0)
    f_win = sum(f for f, w, s in ops.values() if w > 0)
    rest = sum(f / s for f, w, s in ops.values() if w > 0 and s > 0)
    amdahl = 1.0 - ((1.0 - f_win) + rest)
    return {"expected_saving": expected, "amdahl_saving": amdahl, "amdahl_speedup": 1.0 / (1.0 - amdahl) if amdahl < 1 else None,
            "per_op": {k: {"f": f, "w": w, "s": s, "saving": f * w * (1.0 - 1.0 / s) if s > 0 else 0.0}
                       for k, (f, w, s) in ops.items()}}


def op_of(module):
    if torch is not None and isinstance(module, nn.LayerNorm):
        return "layernorm"
    if type(module).__name__ in GELU_CLASSES:
        return "gelu"
    if torch is not None and isinstance(module, nn.GELU) and getattr(module, "approximate", "none") == "tanh":
        return "gelu"
    return None


def swap_in(model, factories):
    """A copy of `model` (sharing its parameters and buffers) with each LayerNorm and
    GELU module replaced by factories[op](original). Returns (copy, {op: count})."""
    memo = {id(t): t for t in list(model.parameters()) + list(model.buffers())}
    out = copy.deepcopy(model, memo)
    originals = dict(model.named_modules())
    counts = {}
    for name, module in list(out.named_modules()):
        for child_name, child in list(module.named_children()):
            op = op_of(child)
            if op is None or op not in factories:
                continue
            full = (name + "." if name else "") + child_name
            setattr(module, child_name, factories[op](originals[full]))
            counts[op] = counts.get(op, 0) + 1
    return out, counts


if torch is not None:
    class TinyGelu(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    class _TinyBlock(nn.Module):
        def __init__(self, hidden, inner):
            super().__init__()
            self.ln_1 = nn.LayerNorm(hidden)
            self.attn = nn.Linear(hidden, hidden)
            self.ln_2 = nn.LayerNorm(hidden)
            self.fc = nn.Linear(hidden, inner)
            self.act = TinyGelu()
            self.proj = nn.Linear(inner, hidden)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.proj(self.act(self.fc(self.ln_2(x))))

    class TinyGpt(nn.Module):
        """A GPT-2-shaped stack for the CPU test of the swap."""
        def __init__(self, hidden=16, layers=2, inner=32):
            super().__init__()
            self.blocks = nn.ModuleList([_TinyBlock(hidden, inner) for _ in range(layers)])
            self.ln_f = nn.LayerNorm(hidden)

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return self.ln_f(x)

    class LayerNormStandIn(nn.Module):
        def __init__(self, ln):
            super().__init__()
            self.ln = ln

        def forward(self, x):
            return F.layer_norm(x, self.ln.normalized_shape, self.ln.weight, self.ln.bias, self.ln.eps)

    class Labelled(nn.Module):
        """The original module inside a profiler range (for f)."""
        def __init__(self, inner, label):
            super().__init__()
            self.inner = inner
            self.label = label

        def forward(self, x):
            with torch.profiler.record_function(self.label):
                return self.inner(x)


def stand_in_factories():
    return {"layernorm": LayerNormStandIn, "gelu": lambda _orig: TinyGelu()}


def load_sample(stem):
    import types
    path = os.path.join(BENCH, "samples", stem + ".py")
    with open(path) as f:
        src = f.read()
    mod = types.ModuleType("kwb_tsub_" + stem)
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)  # noqa: S102 - the repository's own samples
    return mod


def sample_factories(ops):
    out = {}
    if "layernorm" in ops:
        ln_mod = load_sample(OPS["layernorm"])

        def ln_factory(orig):
            new = ln_mod.ModelNew(orig.normalized_shape[0], orig.eps)
            new.ln = orig  # the original's parameters
            return new
        out["layernorm"] = ln_factory
    if "gelu" in ops:
        gelu_mod = load_sample(OPS["gelu"])
        out["gelu"] = lambda _orig: gelu_mod.ModelNew()
    return out


def cuda_median_ms(fn, warmup, trials, flush=None):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(trials):
        if flush is not None:
            flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times), times


def iqr(values):
    q = statistics.quantiles(values, n=4)
    return q[2] - q[0]


def rel_l2(a, b):
    return float(torch.linalg.vector_norm((a.float() - b.float())) / torch.linalg.vector_norm(b.float()).clamp_min(1e-30))


def measure_f(model, ids, ops, steps=3):
    """Share of GPU kernel time in each operator's modules, by profiler ranges."""
    labelled, _ = swap_in(model, {op: (lambda orig, op=op: Labelled(orig, "kwb_sub::" + op)) for op in ops})
    with torch.no_grad():
        for _ in range(2):
            labelled(ids)
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                labelled(ids)
            torch.cuda.synchronize()
    # Kernels hang off the CPU op that launched them; a range's share is its subtree's kernels.
    # (Only CPU events: the GPU-side copies of the ranges would count their span twice.)
    def subtree_us(e):
        return sum(k.duration for k in getattr(e, "kernels", [])) + sum(subtree_us(c) for c in e.cpu_children)
    cpu = [e for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CPU")]
    total = sum(sum(k.duration for k in getattr(e, "kernels", [])) for e in cpu)
    per = {op: sum(subtree_us(e) for e in cpu if e.name == "kwb_sub::" + op) for op in ops}
    if total <= 0:
        return None, 0.0
    return {op: per[op] / total for op in ops}, total / steps


def isolated_speedups(model, substituted, ids, ops, warmup, trials, flush):
    """Per operator: the original module against the sample on the input the model gives it."""
    captured = {}

    def hook(op):
        def f(_m, inputs, _out):
            captured.setdefault(op, (_m, inputs[0].detach().clone()))
        return f
    handles = [m.register_forward_hook(hook(op_of(m))) for m in model.modules() if op_of(m) in ops]
    with torch.no_grad():
        model(ids)
    for h in handles:
        h.remove()
    subs = {}
    for _, m in substituted.named_modules():
        for op in ops:
            stem = OPS[op]
            if type(m).__name__ == "ModelNew" and getattr(m, "__module__", "").endswith(stem):
                subs.setdefault(op, m)
    out = {}
    with torch.no_grad():
        for op in ops:
            orig, x = captured[op]
            new = subs[op]
            ref = orig(x)
            got = new(x)
            correct = bool(torch.allclose(ref.float(), got.float(), atol=1e-2, rtol=1e-2))
            t_orig, _ = cuda_median_ms(lambda: orig(x), warmup, trials, flush)
            t_new, _ = cuda_median_ms(lambda: new(x), warmup, trials, flush)
            out[op] = {"shape": list(x.shape), "original_ms": t_orig, "sample_ms": t_new, "speedup": t_orig / t_new,
                       "correct_1e-2": correct, "max_abs_diff": float((ref.float() - got.float()).abs().max())}
    return out


def records_ws(path):
    """{op: (w, s)} from the samples' evaluation records (kwb.record/1)."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            name = (r.get("problem") or {}).get("name", "")
            for op, stem in OPS.items():
                if name == stem:
                    correct = (r.get("status") or {}).get("outcome") == "correct"
                    s = r.get("speedup") or 0.0
                    out[op] = (1.0 if correct and s > 1 else 0.0, s if s else 1.0)
    return out


def build_gpt2(size, seq, device):
    from transformers import GPT2Config, GPT2LMHeadModel
    hidden, layers, heads = SIZES[size]
    cfg = GPT2Config(n_embd=hidden, n_layer=layers, n_head=heads, n_positions=max(1024, seq), vocab_size=50257)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device(device):
        model = GPT2LMHeadModel(cfg)
    return model.eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="out/substitution_gpt2.json")
    ap.add_argument("--records", help="the samples' evaluation (evaluate_dlrm_bench.py --bench datasets/kernelbench_transformer)")
    ap.add_argument("--size", default="124m", choices=sorted(SIZES))
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--ops", nargs="+", default=sorted(OPS), choices=sorted(OPS))
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--op-trials", type=int, default=50)
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "kwb", "transformer_bench_ext"),
                    help="TORCH_EXTENSIONS_DIR for the samples' builds")
    args = ap.parse_args()
    if torch is None or not torch.cuda.is_available():
        print("measure_substitution_transformer: needs PyTorch with a CUDA device", file=sys.stderr)
        return 3
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", args.cache)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % torch.cuda.get_device_capability(0))
    torch.backends.cuda.matmul.allow_tf32 = False
    device = "cuda"
    t0 = time.time()
    model = build_gpt2(args.size, args.seq, device)
    params = sum(p.numel() for p in model.parameters())
    model_fp32 = copy.deepcopy(model).float()
    model = model.to(torch.bfloat16)
    print("GPT-2 %s: %d parameters, batch %d x %d, bf16, sdpa (%.1f s)" % (args.size, params, args.batch, args.seq,
                                                                           time.time() - t0), file=sys.stderr)
    substituted, counts = swap_in(model, sample_factories(args.ops))
    print("swapped: %s" % counts, file=sys.stderr)
    missing = [op for op in args.ops if not counts.get(op)]
    if missing:
        print("no module of %s found in this model (module classes: %s)" % (
            missing, sorted({type(m).__name__ for m in model.modules()})), file=sys.stderr)
        return 1
    torch.manual_seed(1)
    ids = torch.randint(0, 50257, (args.batch, args.seq), device=device)

    with torch.no_grad():
        ref32 = model_fp32(ids).logits.float()
        del model_fp32
        torch.cuda.empty_cache()
        lo = model(ids).logits
        ls = substituted(ids).logits
    check = {"orig_vs_fp32_rel_l2": rel_l2(lo, ref32), "sub_vs_fp32_rel_l2": rel_l2(ls, ref32),
             "sub_vs_orig_rel_l2": rel_l2(ls, lo), "sub_vs_orig_max_abs": float((ls.float() - lo.float()).abs().max()),
             "top1_agreement": float((ls.argmax(-1) == lo.argmax(-1)).float().mean())}
    check["ok"] = check["sub_vs_fp32_rel_l2"] <= 1.5 * check["orig_vs_fp32_rel_l2"] + 1e-6
    del ref32, lo, ls
    print("check: %s" % json.dumps(check), file=sys.stderr)

    flush = torch.empty(int(2 * getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20) // 4),
                        dtype=torch.float32, device=device)
    f, kernel_us = measure_f(model, ids, args.ops)
    iso = isolated_speedups(model, substituted, ids, args.ops, 10, args.op_trials, flush)
    f_basis = "profiler: kernels under each swapped module's record_function range / all kernels"
    if f is None:  # this PyTorch's profiler gives no kernels per op: estimate from the isolated times
        with torch.no_grad():
            t_fwd, _ = cuda_median_ms(lambda: model(ids), 3, 10)
        f = {op: counts.get(op, 0) * iso[op]["original_ms"] / t_fwd for op in args.ops}
        f_basis = "modules x isolated time / forward time (the profiler gave no kernels per op)"
    ops_iso = {op: (f[op], 1.0 if iso[op]["correct_1e-2"] and iso[op]["speedup"] > 1 else 0.0, iso[op]["speedup"])
               for op in args.ops}
    proj = {"isolated": projection(ops_iso)}
    if args.records:
        ws = records_ws(args.records)
        missing = [op for op in args.ops if op not in ws]
        if missing:
            print("no record for %s in %s" % (missing, args.records), file=sys.stderr)
        proj["records"] = projection({op: (f[op],) + ws[op] for op in args.ops if op in ws})
        proj["records"]["source"] = os.path.relpath(os.path.abspath(args.records), REPO)

    # The whole forward, alternately, so clock drift hits both.
    orig_t, sub_t = [], []
    with torch.no_grad():
        for _ in range(args.warmup):
            model(ids)
            substituted(ids)
        for _ in range(args.steps):
            for fn, acc in ((model, orig_t), (substituted, sub_t)):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn(ids)
                b.record()
                b.synchronize()
                acc.append(a.elapsed_time(b))
    t_o, t_s = statistics.median(orig_t), statistics.median(sub_t)
    result = {
        "workload": {"model": "GPT2LMHeadModel %s (random weights from a config)" % args.size, "params": params,
                     "batch": args.batch, "seq": args.seq, "dtype": "bf16", "attention": "sdpa", "phase": "infer",
                     "trace": "datasets/scale_sweep/gpt2_%s_infer.json.gz" % args.size},
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "ops": {op: {"sample": "datasets/kernelbench_transformer/samples/%s.py" % OPS[op], "modules_swapped": counts.get(op, 0),
                     "f": f[op], "isolated": iso[op]} for op in args.ops},
        "kernel_us_per_forward": kernel_us,
        "f_basis": f_basis,
        "check": check,
        "results": [{"phase": "infer", "original_ms": t_o, "substituted_ms": t_s, "measured_saving": 1.0 - t_s / t_o,
                     "original_iqr_ms": iqr(orig_t), "substituted_iqr_ms": iqr(sub_t), "steps": args.steps}],
        "projection": proj,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fo:
        json.dump(result, fo, indent=1)
        fo.write("\n")
    p = proj["isolated"]
    print("GPT-2 %s inference: %.3f -> %.3f ms, measured saving %.2f%%; projected f*w*(1-1/s) %.2f%%, Amdahl bound %.2f%% "
          "(f: %s; s: %s)" % (args.size, t_o, t_s, 100 * (1 - t_s / t_o), 100 * p["expected_saving"], 100 * p["amdahl_saving"],
                              ", ".join("%s %.3f" % (k, v) for k, v in f.items()),
                              ", ".join("%s %.2fx" % (k, v["speedup"]) for k, v in iso.items())))
    return 0 if check["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
