#!/usr/bin/env python3
"""Zero acceptance of the problem suite, checked with PyTorch on a GPU.

For every problem spec in datasets/problems/ this builds the inputs the way
the spec (and KernelBench's get_inputs) draws them -- torch.rand for uniform
[0, 1), torch.randint for indices -- computes the output with the PyTorch op
the problem is taken from, and asks whether an all-zeros output would pass
KernelBench's check, torch.allclose(reference, candidate, atol, rtol), at
KernelBench's earlier tolerance atol = rtol = 1e-2 and at its current fp32
tolerance 1e-4. With the candidate all zeros that check is max|ref| <= atol.
The workbench's own test (|out - ref| <= atol + rtol * |ref|, torch.allclose
with the arguments the other way round) is reported too; the two differ only
when max|ref| lies within a factor 1 / (1 - rtol) above atol.

KernelBench's 94_MSELoss now draws Pareto(0.01, 1.5) inputs, which the spec
format cannot express (the suite uses uniform [0, 1)); it is checked both ways.

Usage: scripts/zero_acceptance.py [--problems DIR] [--json OUT.json] [--csv OUT.csv] [--markdown OUT.md] [--seed N]
Needs PyTorch with CUDA; the largest problem needs about 20 GB of GPU memory.
"""
import argparse
import csv
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

TOLERANCES = (1e-2, 1e-4)
DTYPES = {"float32": torch.float32, "int32": torch.int32, "int64": torch.int64}


def eval_size(expr, sizes):
    """Evaluates a spec size expression (integers, + - * / %, ceil_div/min/max)."""
    if isinstance(expr, int):
        return expr
    env = dict(sizes)
    env.update({"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max})
    # Spec expressions use integer division; Python's // matches for non-negative sizes.
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, env))


def make_input(t, sizes, gen):
    shape = [eval_size(e, sizes) for e in t["shape"]]
    dtype = DTYPES[t.get("dtype", "float32")]
    dist = t.get("distribution", "uniform")
    if dist == "uniform":
        low, high = t.get("low", 0.0), t.get("high", 1.0)
        x = torch.rand(shape, device="cuda", generator=gen)
        if (low, high) != (0, 1):
            x = x * (high - low) + low
        return x
    if dist == "normal":
        return torch.randn(shape, device="cuda", generator=gen) * t.get("std", 1.0) + t.get("mean", 0.0)
    if dist == "randint":
        return torch.randint(int(t.get("low", 0)), int(t.get("high", 10)), shape, device="cuda", generator=gen, dtype=dtype)
    if dist == "constant":
        return torch.full(shape, t.get("value", 0.0), device="cuda", dtype=dtype)
    if dist == "pareto":
        # torch.distributions.Pareto(scale, alpha) by inverse CDF on float32 uniforms.
        u = torch.rand(shape, device="cuda", generator=gen)
        return t.get("scale", 1.0) * (1.0 - u).pow(-1.0 / t.get("alpha", 1.0))
    raise ValueError("unknown distribution " + dist)


def reference(builtin, params, inputs, spec):
    """The PyTorch operation each built-in reference stands for."""
    p = params
    if builtin == "gemm":
        a, b = inputs
        if p.get("trans_a"):
            a = a.t()
        if p.get("trans_b"):
            b = b.t()
        return a @ b
    if builtin == "relu":
        return torch.relu(inputs[0])
    if builtin == "gelu":
        return F.gelu(inputs[0])
    if builtin == "softmax_rows":
        return torch.softmax(inputs[0], dim=-1)
    if builtin == "log_softmax_rows":
        return torch.log_softmax(inputs[0], dim=-1)
    if builtin == "layernorm_wide":
        x = inputs[0]
        return F.layer_norm(x, x.shape[1:], eps=p.get("eps", 1e-5))
    if builtin == "rmsnorm_dim":
        x = inputs[0]
        dim = int(p.get("dim", 1))
        return x / torch.sqrt(torch.mean(x ** 2, dim=dim, keepdim=True) + p.get("eps", 1e-5))
    if builtin == "frobenius_normalize":
        x = inputs[0]
        return x / torch.norm(x, p="fro")
    if builtin == "l2norm_rows":
        x = inputs[0]
        return x / torch.norm(x, p=2, dim=-1, keepdim=True)
    if builtin == "sum_dim":
        return torch.sum(inputs[0], dim=int(p.get("dim", 1)), keepdim=True)
    if builtin == "min_dim":
        return torch.min(inputs[0], dim=int(p.get("dim", 1)))[0]
    if builtin == "cumsum_rows":
        return torch.cumsum(inputs[0], dim=-1)
    if builtin == "mse":
        a, b = inputs
        return torch.mean((a - b) ** 2).reshape(1)
    if builtin == "depthwise_conv2d":
        x, w = inputs
        return F.conv2d(x, w, stride=int(p.get("stride", 1)), padding=int(p.get("padding", 0)), groups=x.shape[1])
    if builtin in ("embedding_bag_sum", "embedding_bag_mean", "embedding_bag_weighted_sum"):
        table, idx = inputs[0], inputs[1].long()
        if builtin == "embedding_bag_weighted_sum":
            return F.embedding_bag(idx, table, mode="sum", per_sample_weights=inputs[2])
        return F.embedding_bag(idx, table, mode="sum" if builtin == "embedding_bag_sum" else "mean")
    if builtin == "embedding_bag_multi_sum":
        weights, idx = inputs
        tables = idx.shape[0]
        rows = weights.shape[0] // tables
        outs = [F.embedding_bag(idx[t].long(), weights[t * rows:(t + 1) * rows], mode="sum") for t in range(tables)]
        return torch.cat(outs, dim=1)
    if builtin == "dot_interaction":
        x = inputs[0]
        f = x.shape[1]
        z = torch.bmm(x, x.transpose(1, 2))
        li, lj = torch.tril_indices(f, f, offset=-1, device=x.device)
        return z[:, li, lj]
    if builtin == "linear_bias_relu":
        x, w, b = inputs
        return torch.relu(F.linear(x, w, b))
    raise ValueError("no PyTorch counterpart for reference " + builtin)


def check(name, ref):
    ref = ref.float()
    zeros = torch.zeros_like(ref)
    max_abs = ref.abs().max().item()
    row = {"problem": name, "max_abs_ref": max_abs, "ref_rms": ref.pow(2).mean().sqrt().item()}
    for tol in TOLERANCES:
        key = "%g" % tol
        # KernelBench: torch.allclose(reference_output, candidate_output, atol, rtol).
        row["zeros_pass_kernelbench_" + key] = bool(torch.allclose(ref, zeros, atol=tol, rtol=tol))
        # The workbench: |out - ref| <= atol + rtol * |ref|.
        row["zeros_pass_workbench_" + key] = bool(torch.allclose(zeros, ref, atol=tol, rtol=tol))
    return row


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", default=os.path.join(here, "..", "datasets", "problems"))
    ap.add_argument("--json")
    ap.add_argument("--csv", help="one row per problem (no JSON, so record loaders scanning a folder skip it)")
    ap.add_argument("--markdown")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    if not torch.cuda.is_available():
        print("zero_acceptance.py: no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    specs = []
    for fn in sorted(os.listdir(args.problems)):
        if fn.endswith(".json"):
            with open(os.path.join(args.problems, fn)) as f:
                specs.append(json.load(f))
    specs.sort(key=lambda s: (s.get("suite") != "KernelBench", s.get("level") or 0, s["id"]))

    rows = []
    gen = torch.Generator(device="cuda")
    for spec in specs:
        t0 = time.time()
        gen.manual_seed(args.seed)
        with torch.no_grad():
            inputs = [make_input(t, spec["sizes"], gen) for t in spec["inputs"]]
            ref = reference(spec["reference"]["builtin"], spec["reference"].get("params", {}), inputs, spec)
        row = check(spec["id"], ref)
        row["suite"] = spec.get("suite", "")
        row["seconds"] = round(time.time() - t0, 3)
        rows.append(row)
        del inputs, ref
        torch.cuda.empty_cache()
        if spec["id"] == "kb1_94_mse_loss":
            # KernelBench's own inputs for 94_MSELoss: Pareto(scale 0.01, alpha 1.5).
            gen.manual_seed(args.seed)
            shape = [eval_size(e, spec["sizes"]) for e in spec["inputs"][0]["shape"]]
            with torch.no_grad():
                u1 = torch.rand(shape, device="cuda", generator=gen)
                u2 = torch.rand(shape, device="cuda", generator=gen)
                # Inverse CDF: scale * U^(-1/alpha), U in (0, 1].
                a = 0.01 * (1.0 - u1).pow(-1.0 / 1.5)
                b = 0.01 * (1.0 - u2).pow(-1.0 / 1.5)
                ref = torch.mean((a - b) ** 2).reshape(1)
            extra = check("kb1_94_mse_loss (Pareto inputs, as KernelBench)", ref)
            extra["suite"] = "KernelBench"
            rows.append(extra)
            del u1, u2, a, b, ref
            torch.cuda.empty_cache()
        print("%-52s max|ref| %-10.3g 1e-2: %-5s 1e-4: %-5s (%.1f s)" % (row["problem"], row["max_abs_ref"],
              row["zeros_pass_kernelbench_0.01"], row["zeros_pass_kernelbench_0.0001"], row["seconds"]), flush=True)

    device = torch.cuda.get_device_name(0)
    meta = {"device": device, "torch": torch.__version__, "cuda": torch.version.cuda, "seed": args.seed,
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
            f.write("\n")
    if args.csv:
        cols = ["problem", "suite", "max_abs_ref", "ref_rms", "zeros_pass_kernelbench_0.01", "zeros_pass_kernelbench_0.0001",
                "zeros_pass_workbench_0.01", "zeros_pass_workbench_0.0001", "seconds"]
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow([r.get(c, "") for c in cols])
    lines = ["Zero acceptance (would an all-zeros output pass torch.allclose?) on %s, PyTorch %s, CUDA %s, seed %d, %s."
             % (device, meta["torch"], meta["cuda"], args.seed, meta["date_utc"]), "",
             "| problem | max abs(ref) | zeros pass at 1e-2 | zeros pass at 1e-4 |", "|---|---:|:---:|:---:|"]
    for r in rows:
        mark = lambda k: "**yes**" if r[k] else "no"
        note = "" if r["zeros_pass_kernelbench_0.01"] == r["zeros_pass_workbench_0.01"] and \
            r["zeros_pass_kernelbench_0.0001"] == r["zeros_pass_workbench_0.0001"] else " (workbench order differs)"
        lines.append("| %s | %.3g | %s | %s |%s" % (r["problem"], r["max_abs_ref"], mark("zeros_pass_kernelbench_0.01"),
                                                 mark("zeros_pass_kernelbench_0.0001"), note))
    text = "\n".join(lines) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
