#!/usr/bin/env python3
"""Measured, not only projected: a DLRM step with the DLRM-Bench candidates swapped in.

    python3 scripts/measure_substitution.py --records out/dlrm_bench/records.jsonl --out out/substitution.json
    python3 scripts/measure_substitution.py --device cpu --tiny --no-samples   # checks the script's own logic

The workload is the DLRM of datasets/traces/dlrm_train.json.gz (26 EmbeddingBag
tables of 200,000 x 64, sum pooling of 40 lookups per bag, bottom MLP
13-512-256-64, dot interaction, top MLP 1024-512-256-1, batch 8192, fp32, SGD),
run as inference and as a training step. The substituted model replaces, by
module swap with the samples' ModelNew (sharing the original parameters):

  * embedding:   the 26 per-table lookups -> 5_TableBatchedEmbedding (one launch),
                 their backward -> 11_EmbeddingBagBackward (gradient scatter per table);
  * interaction: bmm + tril gather + concat -> 6_DotInteraction (backward stays
                 PyTorch's formula, (G + G^T) t).

An operator is swapped only when its sample's record (--records, from
scripts/evaluate_dlrm_bench.py) is correct and faster than eager, as the
projection assumes of a deployed kernel; without --records every operator is
swapped. The substituted forward is checked against the original (allclose
1e-4) before timing. Each phase is timed with CUDA events (--warmup steps, then
--steps steps, median), original and substituted alternately so clock drift
hits both. The output puts the measured saving 1 - t_sub / t_orig next to the
projection f*w*(1-1/s) and the Amdahl bound 1/((1-f)+f/s), with f from
`kwb project` on the trace (or --f) and w, s from the records.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
SAMPLES = os.path.join(REPO, "datasets", "kernelbench_dlrm", "samples")
OPS = {"embedding": ["5_TableBatchedEmbedding", "11_EmbeddingBagBackward"], "interaction": ["6_DotInteraction"]}


def load_module(path, name):
    import types
    with open(path) as f:
        src = f.read()
    mod = types.ModuleType(name)
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)  # noqa: S102 - the benchmark's own samples
    return mod


class Dlrm(nn.Module):
    """The DLRM of scripts/capture_traces.py, with fixed-length bags as (tables, batch, pooling) indices."""

    def __init__(self, tables, rows, dim, dense_in=13):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense_in, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                    nn.Linear(256, dim), nn.ReLU())
        self.embs = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(dim + n * (n - 1) // 2, 1024), nn.ReLU(), nn.Linear(1024, 512),
                                 nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))
        li, lj = torch.tril_indices(n, n, offset=-1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)
        self.dim = dim
        self.sparse_op = None       # (indices) -> (batch, tables * dim); None: the per-table EmbeddingBags
        self.interaction_op = None  # (x, t) -> cat([x, tril(t t^T)]); None: bmm + gather + cat

    def forward(self, dense, indices):
        x = self.bottom(dense)
        if self.sparse_op is None:
            pooled = torch.cat([e(indices[i]) for i, e in enumerate(self.embs)], dim=1)
        else:
            pooled = self.sparse_op(indices)
        t = pooled.view(x.shape[0], len(self.embs), self.dim)
        if self.interaction_op is None:
            full = torch.cat([x.unsqueeze(1), t], dim=1)
            z = torch.bmm(full, full.transpose(1, 2))
            inter = torch.cat([x, z[:, self.li, self.lj]], dim=1)
        else:
            inter = self.interaction_op(x, t)
        return self.top(inter)


class SparseFn(torch.autograd.Function):
    """Forward: the table-batched sample; backward: the scatter sample, table by table."""

    @staticmethod
    def forward(ctx, tbe, backward, indices, *weights):
        ctx.backward = backward
        ctx.save_for_backward(indices)
        return tbe(indices)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        tables = indices.shape[0]
        dim = grad.shape[1] // tables
        grads = [ctx.backward(indices[t], grad[:, t * dim:(t + 1) * dim].contiguous()) for t in range(tables)]
        return (None, None, None, *grads)


class InteractionFn(torch.autograd.Function):
    """Forward: the dot-interaction sample; backward: PyTorch's formula."""

    @staticmethod
    def forward(ctx, op, li, lj, x, t):
        ctx.save_for_backward(x, t, li, lj)
        return op(x, t.contiguous())

    @staticmethod
    def backward(ctx, grad):
        x, t, li, lj = ctx.saved_tensors
        d = x.shape[1]
        full = torch.cat([x.unsqueeze(1), t], dim=1)
        f = full.shape[1]
        g = torch.zeros(full.shape[0], f, f, dtype=grad.dtype, device=grad.device)
        g[:, li, lj] = grad[:, d:]
        gt = torch.bmm(g + g.transpose(1, 2), full)
        return None, None, None, grad[:, :d] + gt[:, 0], gt[:, 1:]


def swap_in(model, ops, samples_dir):
    """Installs the chosen samples' ModelNew into model, sharing its parameters."""
    tables, rows, dim = len(model.embs), model.embs[0].num_embeddings, model.dim
    if "embedding" in ops:
        tbe_mod = load_module(os.path.join(samples_dir, "5_TableBatchedEmbedding.py"), "kwb_sample_tbe")
        bwd_mod = load_module(os.path.join(samples_dir, "11_EmbeddingBagBackward.py"), "kwb_sample_bwd")
        tbe = tbe_mod.ModelNew(tables, 1, dim)  # a 1-row table each, replaced by the model's own below
        tbe.tables = model.embs
        bwd = bwd_mod.ModelNew(rows)
        model.sparse_op = lambda idx: SparseFn.apply(tbe, bwd, idx, *[e.weight for e in model.embs])
    if "interaction" in ops:
        inter_mod = load_module(os.path.join(samples_dir, "6_DotInteraction.py"), "kwb_sample_inter")
        inter = inter_mod.ModelNew(tables + 1)
        model.interaction_op = lambda x, t: InteractionFn.apply(inter, model.li, model.lj, x, t)


def reference_ops(model):
    """Pure-PyTorch stand-ins with the samples' interfaces (for --no-samples: checks the plumbing)."""
    def tbe(idx):
        return torch.cat([nn.functional.embedding_bag(idx[t], e.weight, mode="sum") for t, e in enumerate(model.embs)], 1)

    def bwd(idx, grad):
        rows = model.embs[0].num_embeddings
        return torch.zeros(rows, grad.shape[1], dtype=grad.dtype, device=grad.device).index_add_(
            0, idx.reshape(-1), grad.repeat_interleave(idx.shape[1], dim=0))

    def inter(x, t):
        full = torch.cat([x.unsqueeze(1), t], dim=1)
        z = torch.bmm(full, full.transpose(1, 2))
        return torch.cat([x, z[:, model.li, model.lj]], dim=1)
    model.sparse_op = lambda idx: SparseFn.apply(tbe, bwd, idx, *[e.weight for e in model.embs])
    model.interaction_op = lambda x, t: InteractionFn.apply(inter, model.li, model.lj, x, t)


def winners(records_path):
    """Sample stems whose record is correct with speedup > 1, and their speedups."""
    out = {}
    with open(records_path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            name = r.get("problem", {}).get("name")
            out[name] = r.get("speedup") if r.get("status", {}).get("correct") else None
    return out


def choose_ops(requested, speedups):
    chosen, why = [], {}
    for op in requested:
        if speedups is None:
            chosen.append(op)
            why[op] = "swapped (no records given)"
            continue
        s = [speedups.get(stem) for stem in OPS[op]]
        if all(v is not None and v > 1.0 for v in s):
            chosen.append(op)
            why[op] = "swapped: " + ", ".join("%s %.3fx" % (stem, v) for stem, v in zip(OPS[op], s))
        else:
            why[op] = "kept: " + ", ".join("%s %s" % (stem, "%.3fx" % v if v else "not correct/absent")
                                           for stem, v in zip(OPS[op], s))
    return chosen, why


def time_steps(steps_fns, warmup, n, device):
    """Alternates the step functions; returns per-function lists of ms."""
    for fn in steps_fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in steps_fns]
    for _ in range(n):
        for k, fn in enumerate(steps_fns):
            if device.startswith("cuda"):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                torch.cuda.synchronize()
                times[k].append(a.elapsed_time(b))
            else:
                t0 = time.perf_counter()
                fn()
                times[k].append((time.perf_counter() - t0) * 1e3)
    return times


def projection(f, w, s):
    if f is None or not s:
        return None
    return {"f": f, "w": w, "s": s, "expected_saving": f * w * (1 - 1 / s),
            "amdahl_saving": 1 - ((1 - f) + f / s)}


def kwb_f(kwb, trace, records):
    try:
        p = subprocess.run([kwb, "project", "--trace", trace, "--records", records, "--format", "json"],
                           capture_output=True, text=True, timeout=120)
        w = json.loads(p.stdout)["workloads"][0]
        return w
    except (OSError, ValueError, KeyError, IndexError, subprocess.TimeoutExpired):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", help="DLRM-Bench records (kwb.record/1) from evaluate_dlrm_bench.py")
    ap.add_argument("--out", default="out/substitution.json")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "kwb", "dlrm_bench_ext"),
                    help="TORCH_EXTENSIONS_DIR (evaluate_dlrm_bench.py's, so the samples are built already)")
    ap.add_argument("--ops", nargs="+", default=list(OPS), choices=list(OPS))
    ap.add_argument("--phases", nargs="+", default=["infer", "train"], choices=["infer", "train"])
    ap.add_argument("--tables", type=int, default=26)
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--pooling", type=int, default=40)
    ap.add_argument("--batch", type=int, default=8192)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--tiny", action="store_true", help="small sizes for a CPU check")
    ap.add_argument("--no-samples", action="store_true",
                    help="swap in PyTorch stand-ins instead of the CUDA samples (checks the plumbing on a CPU)")
    ap.add_argument("--trace", default=os.path.join(REPO, "datasets", "traces", "dlrm_train.json.gz"))
    ap.add_argument("--kwb", help="kwb binary for f (default: build*/app/kwb/kwb)")
    ap.add_argument("--f", type=float, help="addressable fraction when kwb is unavailable")
    args = ap.parse_args()
    if args.tiny:
        args.tables, args.rows, args.batch, args.pooling = 4, 1000, 64, 8
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("measure_substitution.py: no CUDA device", file=sys.stderr)
        return 2
    os.environ["TORCH_EXTENSIONS_DIR"] = args.cache
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    speedups = winners(args.records) if args.records else None
    ops, why = choose_ops(args.ops, speedups)
    for op in args.ops:
        print("%-12s %s" % (op, why[op]), flush=True)

    dev = args.device
    torch.manual_seed(0)
    base = Dlrm(args.tables, args.rows, args.dim).to(dev)
    sub = Dlrm(args.tables, args.rows, args.dim).to(dev)
    sub.load_state_dict(base.state_dict())
    if ops:
        if args.no_samples:
            reference_ops(sub)
        else:
            swap_in(sub, ops, SAMPLES)
    g = torch.Generator(device=dev)
    g.manual_seed(1)
    dense = torch.rand(args.batch, 13, device=dev, generator=g)
    indices = torch.randint(0, args.rows, (args.tables, args.batch, args.pooling), device=dev, generator=g)
    target = torch.rand(args.batch, 1, device=dev, generator=g)

    with torch.no_grad():
        ref_out, sub_out = base(dense, indices), sub(dense, indices)
    max_err = float((ref_out - sub_out).abs().max())
    agree = bool(torch.allclose(ref_out, sub_out, atol=1e-4, rtol=1e-4))
    # Gradients of the substituted training step against the original's.
    lossf = nn.BCEWithLogitsLoss()
    for m in (base, sub):
        m.zero_grad(set_to_none=True)
        lossf(m(dense, indices), target).backward()
    grad_err = max(float((a.grad - b.grad).abs().max()) for a, b in zip(base.parameters(), sub.parameters()))
    grad_agree = all(torch.allclose(a.grad, b.grad, atol=1e-4, rtol=1e-3) for a, b in zip(base.parameters(),
                                                                                        sub.parameters()))
    print("substituted forward %s the original (max |diff| %.3g); gradients %s (max |diff| %.3g)"
          % ("matches" if agree else "DIFFERS FROM", max_err, "match" if grad_agree else "DIFFER", grad_err), flush=True)

    results = []
    for phase in args.phases:
        fns = []
        for m in (base, sub):
            if phase == "infer":
                m.eval()
                fns.append(lambda m=m: _infer(m, dense, indices))
            else:
                m.train()
                opt = torch.optim.SGD(m.parameters(), lr=1e-6)  # tiny steps keep both models comparable

                def step(m=m, opt=opt):
                    loss = lossf(m(dense, indices), target)
                    loss.backward()
                    opt.step()
                    opt.zero_grad(set_to_none=True)
                fns.append(step)
        t_base, t_sub = time_steps(fns, args.warmup, args.steps, dev)
        mb, ms = statistics.median(t_base), statistics.median(t_sub)
        results.append({"phase": phase, "original_ms": mb, "substituted_ms": ms, "measured_saving": 1 - ms / mb,
                        "original_iqr_ms": iqr(t_base), "substituted_iqr_ms": iqr(t_sub), "steps": args.steps})
        print("%-6s original %8.3f ms  substituted %8.3f ms  measured saving %6.2f%%" % (phase, mb, ms, 100 * (1 - ms / mb)),
              flush=True)

    proj = {}
    if args.records:
        kwb = args.kwb or next((os.path.join(REPO, d, "app", "kwb", "kwb") for d in sorted(os.listdir(REPO))
                                if d.startswith("build") and os.path.exists(os.path.join(REPO, d, "app", "kwb", "kwb"))), None)
        w = kwb_f(kwb, args.trace, args.records) if kwb and os.path.exists(args.trace) else None
        if w:
            proj["kwb_project"] = {k: w.get(k) for k in ("f", "w", "s", "expected_saving", "amdahl_saving", "matching")}
        elif args.f is not None:
            correct = [v for v in (speedups or {}).values() if v]
            wins = [v for v in correct if v > 1]
            proj["given_f"] = projection(args.f, len(wins) / max(1, len(speedups)), statistics.median(wins) if wins else None)
    for k, p in proj.items():
        if p and p.get("expected_saving") is not None:
            print("projection (%s): f %.3f w %.3f s %.3f -> f*w*(1-1/s) %.2f%%, Amdahl bound %.2f%%"
                  % (k, p["f"], p["w"], p["s"], 100 * p["expected_saving"], 100 * p["amdahl_saving"]))
    doc = {"workload": {"tables": args.tables, "rows": args.rows, "dim": args.dim, "pooling": args.pooling,
                        "batch": args.batch, "dtype": "fp32", "trace": os.path.relpath(args.trace, REPO)},
           "device": torch.cuda.get_device_name(0) if dev.startswith("cuda") else "cpu", "torch": torch.__version__,
           "ops": why, "swapped": ops, "stand_ins": bool(args.no_samples),
           "check": {"forward_allclose_1e-4": agree, "forward_max_abs_diff": max_err, "grad_allclose": grad_agree,
                     "grad_max_abs_diff": grad_err},
           "results": results, "projection": proj,
           "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return 0 if agree and grad_agree else 1


def _infer(m, dense, indices):
    with torch.no_grad():
        return m(dense, indices)


def iqr(values):
    q = statistics.quantiles(values, n=4) if len(values) >= 2 else [values[0]] * 3
    return q[2] - q[0]


if __name__ == "__main__":
    sys.exit(main())
