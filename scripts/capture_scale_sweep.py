#!/usr/bin/env python3
"""Capture the model-scale sweep: PyTorch-profiler (Kineto) traces of realistic models.

    PYTHONUNBUFFERED=1 python3 scripts/capture_scale_sweep.py --out datasets/traces/scale_sweep
    python3 scripts/capture_scale_sweep.py --list
    python3 scripts/capture_scale_sweep.py --device cpu --tiny --only dlrm_infer --out /tmp/sweep

Transformers at realistic scale and precision (bf16 weights for inference, bf16
autocast over fp32 weights with fused AdamW for training; SDPA attention;
batch x sequence as served or trained): GPT-2 124M/355M/774M/1.5B, BERT base
and large, Llama-style ~0.5B/1B/3B (shapes of Qwen2-0.5B and Llama-3.2-1B/3B);
a DLRM with Criteo-like tables and MLPerf DLRM-DCNv2's multi-hot pooling; and
ResNet-50 and ViT-B/16 at a serving batch. All weights are random, built from
configs in code on the GPU (no downloads).

Each workload runs --warmup untimed iterations (their CUDA-event times give
step_ms), then torch.profiler with schedule(wait=1, warmup=1, active=--active),
CPU + CUDA activities, no shapes, stacks or memory, exported as
<name>.json.gz (gzip, mtime 0). manifest.json beside the traces lists, per
workload, model, params, phase, batch, seq, dtype, step_ms and sizes, plus the
software and GPU. Workloads already in the manifest with their file present are
skipped (--force recaptures); one failing workload (OOM, missing package) is
recorded with its reason and the rest go on; --budget stops starting new ones.
"""
import argparse
import gzip
import json
import os
import platform
import shutil
import sys
import time
import traceback

import torch
import torch.nn as nn

# ---------------------------------------------------------------- model definitions

GPT2_SIZES = {"124m": (12, 768, 12), "355m": (24, 1024, 16), "774m": (36, 1280, 20), "1.5b": (48, 1600, 25)}
BERT_SIZES = {"base": (12, 768, 12, 3072), "large": (24, 1024, 16, 4096)}
# hidden, layers, heads, kv heads, intermediate, vocab (Qwen2-0.5B, Llama-3.2-1B, Llama-3.2-3B shapes).
LLAMA_SIZES = {"0.5b": (896, 24, 14, 2, 4864, 151936), "1b": (2048, 16, 32, 8, 8192, 128256),
               "3b": (3072, 28, 24, 8, 8192, 128256)}
# MLPerf DLRM-DCNv2 multi-hot pooling factors of the 26 Criteo features.
DLRM_POOLING = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]
# Criteo-like cardinalities, capped at 4M rows (MLPerf caps at 40M; 4M keeps the tables at 9 GB).
DLRM_ROWS = [4000000, 4000000, 4000000, 1000000, 1000000, 1000000, 1000000, 1000000, 100000, 100000, 100000,
             100000, 100000, 100000, 100000, 100000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000]


def on_device(device):
    """Build modules directly on the device (random init of billions of weights on
    the CPU would take minutes); older PyTorch without device contexts builds on the CPU."""
    import contextlib
    return torch.device(device) if hasattr(torch, "set_default_device") else contextlib.nullcontext()


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def sdpa_kwargs():
    return {"attn_implementation": "sdpa"}


def make_config(cls, **kw):
    try:
        return cls(**kw, **sdpa_kwargs())
    except TypeError:  # older transformers without the argument
        return cls(**kw)


def lm_step(model, vocab, train, dtype, batch, seq, device):
    ids = torch.randint(0, vocab, (batch, seq), device=device)
    if train:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=device.startswith("cuda"))
        model.train()

        def step():
            with torch.autocast(device.split(":")[0], dtype=dtype):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        return step
    model.to(dtype).eval()

    def step():
        with torch.inference_mode():
            model(input_ids=ids)
    return step


def gpt2(size, train, batch, seq, device, tiny):
    import transformers
    layers, hidden, heads = GPT2_SIZES[size]
    if tiny:
        layers = 1
    cfg = make_config(transformers.GPT2Config, n_layer=layers, n_embd=hidden, n_head=heads, n_positions=1024,
                      vocab_size=50257)
    with on_device(device):
        model = transformers.GPT2LMHeadModel(cfg)
    return model, cfg.vocab_size, "GPT2LMHeadModel %s (%d layers, hidden %d)" % (size, layers, hidden)


def bert(size, train, batch, seq, device, tiny):
    import transformers
    layers, hidden, heads, inter = BERT_SIZES[size]
    if tiny:
        layers = 1
    cfg = make_config(transformers.BertConfig, num_hidden_layers=layers, hidden_size=hidden, num_attention_heads=heads,
                      intermediate_size=inter, max_position_embeddings=512)
    with on_device(device):
        model = transformers.BertForMaskedLM(cfg)
    return model, cfg.vocab_size, "BertForMaskedLM %s (%d layers, hidden %d)" % (size, layers, hidden)


def llama(size, train, batch, seq, device, tiny):
    import transformers
    hidden, layers, heads, kv, inter, vocab = LLAMA_SIZES[size]
    if tiny:
        layers = 1
    cfg = make_config(transformers.LlamaConfig, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                      num_key_value_heads=kv, intermediate_size=inter, vocab_size=vocab, max_position_embeddings=4096,
                      tie_word_embeddings=True)  # as Qwen2-0.5B and Llama-3.2-1B/3B do
    with on_device(device):
        model = transformers.LlamaForCausalLM(cfg)
    return model, vocab, "LlamaForCausalLM ~%s (%d layers, hidden %d, %d heads, %d KV, FFN %d)" % (
        size, layers, hidden, heads, kv, inter)


class Dlrm(nn.Module):
    """DLRM: bottom MLP 13-512-256-128, one sum EmbeddingBag per sparse feature
    (jagged bags, MLPerf multi-hot pooling), pairwise dot interaction, top MLP
    1024-1024-512-256-1."""

    def __init__(self, rows, dim=128, sparse=False):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(13, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, dim),
                                    nn.ReLU())
        self.embs = nn.ModuleList(nn.EmbeddingBag(r, dim, mode="sum", sparse=sparse) for r in rows)
        n = len(rows) + 1
        self.top = nn.Sequential(nn.Linear(dim + n * (n - 1) // 2, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                                 nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))
        li, lj = torch.tril_indices(n, n, offset=-1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)

    def forward(self, dense, indices, offsets):
        x = self.bottom(dense)
        t = torch.stack([x] + [e(i, o) for e, i, o in zip(self.embs, indices, offsets)], dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        return self.top(torch.cat([x, z[:, self.li, self.lj]], dim=1))


def dlrm_inputs(rows, batch, device, gen_seed=0):
    g = torch.Generator(device=device)
    g.manual_seed(gen_seed)
    indices, offsets = [], []
    for r, pool in zip(rows, DLRM_POOLING):
        # Multi-hot bags of 1 .. 2*pool-1 lookups (mean pool), as jagged indices + offsets.
        lengths = torch.randint(1, 2 * pool, (batch,), device=device, generator=g) if pool > 1 else \
            torch.ones(batch, dtype=torch.int64, device=device)
        off = torch.zeros(batch, dtype=torch.int64, device=device)
        off[1:] = torch.cumsum(lengths, 0)[:-1]
        indices.append(torch.randint(0, r, (int(lengths.sum().item()),), device=device, generator=g))
        offsets.append(off)
    return torch.rand(batch, 13, device=device, generator=g), indices, offsets


def dlrm_workload(train, batch, device, tiny):
    rows = [min(r, 1000) for r in DLRM_ROWS] if tiny else DLRM_ROWS
    with on_device(device):
        model = Dlrm(rows, sparse=train)
    dense, indices, offsets = dlrm_inputs(rows, batch, device)
    target = torch.rand(batch, 1, device=device)
    desc = ("DLRM (26 EmbeddingBag tables, %d rows in all, dim 128, MLPerf DCNv2 multi-hot pooling; bottom 13-512-256-128, "
            "dot interaction, top 1024-1024-512-256-1)" % sum(rows))
    if train:
        # Sparse embedding gradients with SGD, as plain PyTorch trains large tables.
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        lossf = nn.BCEWithLogitsLoss()

        def step():
            loss = lossf(model(dense, indices, offsets), target)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    else:
        model.eval()

        def step():
            with torch.inference_mode():
                model(dense, indices, offsets)
    model.to(device)
    return step, model, desc


def vision_workload(kind, batch, dtype, device):
    import torchvision
    with on_device(device):
        model = torchvision.models.resnet50(weights=None) if kind == "resnet50" else torchvision.models.vit_b_16(weights=None)
    x = torch.randn(batch, 3, 224, 224, device=device)
    if kind == "resnet50":
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    model = model.to(dtype).eval()
    x = x.to(dtype)

    def step():
        with torch.inference_mode():
            model(x)
    return step, model, "torchvision %s (weights=None)" % kind


# ---------------------------------------------------------------- the sweep

def workloads():
    """name -> (family, size, phase, batch, seq), in capture order: the cheap non-transformer
    workloads first, then the transformer families by size, smallest first, so a run cut short by
    --budget loses the largest models only."""
    w = {"dlrm_infer": ("dlrm", None, "infer", 16384, None), "dlrm_train": ("dlrm", None, "train", 16384, None),
         "resnet50_infer": ("resnet50", None, "infer", 32, None), "vit_b16_infer": ("vit_b_16", None, "infer", 32, None)}
    # Training batches of the Llama family shrink with size so weights, AdamW state, activations
    # and logits fit 141 GB.
    llama_train_batch = {"0.5b": 8, "1b": 4, "3b": 2}
    tiers = [("gpt2", "124m"), ("bert", "base"), ("llama", "0.5b"), ("gpt2", "355m"), ("bert", "large"),
             ("llama", "1b"), ("gpt2", "774m"), ("llama", "3b"), ("gpt2", "1.5b")]
    for family, size in tiers:
        for phase in ("infer", "train"):
            if family == "gpt2":
                spec = (family, size, phase, 8, 1024)
            elif family == "bert":
                spec = (family, size, phase, 32, 512)
            else:
                spec = (family, size, phase, llama_train_batch[size] if phase == "train" else 8, 2048)
            w["%s_%s_%s" % (family, size, phase)] = spec
    return w


def build(name, spec, device, tiny):
    family, size, phase, batch, seq = spec
    train = phase == "train"
    if tiny:
        batch, seq = min(batch, 2), (min(seq, 64) if seq else None)
    dtype = torch.bfloat16
    meta = {"phase": phase, "batch": batch, "seq": seq}
    if family in ("gpt2", "bert", "llama"):
        model, vocab, desc = {"gpt2": gpt2, "bert": bert, "llama": llama}[family](size, train, batch, seq, device, tiny)
        meta.update(domain="transformer", params=n_params(model), model=desc + ", random weights, SDPA attention",
                    dtype="fp32 weights, bf16 autocast, fused AdamW" if train else "bf16")
        step = lm_step(model, vocab, train, dtype, batch, seq, device)
    elif family == "dlrm":
        step, model, desc = dlrm_workload(train, batch, device, tiny)
        meta.update(domain="recommender", params=n_params(model), model=desc + ", random weights", dtype="fp32",
                    optimizer="SGD, sparse embedding gradients" if train else None)
    else:
        step, model, desc = vision_workload(family, batch, dtype, device)
        meta.update(domain="vision", params=n_params(model), model=desc, dtype="bf16", image="3x224x224")
    return step, {k: v for k, v in meta.items() if v is not None}


def sync(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed_warmup(step, iters, device):
    times = []
    for _ in range(iters):
        if device.startswith("cuda"):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            step()
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
        else:
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def profile(name, step, out_dir, device, active, warmup):
    times = timed_warmup(step, warmup, device)
    raw = os.path.join(out_dir, name + ".json")
    acts = [torch.profiler.ProfilerActivity.CPU]
    if device.startswith("cuda"):
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    sched = torch.profiler.schedule(wait=1, warmup=1, active=active, repeat=1)
    with torch.profiler.profile(activities=acts, schedule=sched, record_shapes=False, with_stack=False,
                                profile_memory=False, on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(2 + active):
            step()
            sync(device)
            prof.step()
    gz = raw + ".gz"
    with open(raw, "rb") as src, open(gz, "wb") as dst_file:
        with gzip.GzipFile(filename="", mode="wb", fileobj=dst_file, mtime=0, compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
    raw_size = os.path.getsize(raw)
    os.remove(raw)
    # The last warm-up steps are the settled ones (the first pays for autotuning and allocation).
    settled = sorted(times[1:] or times)
    return {"file": os.path.basename(gz), "json_bytes": raw_size, "gz_bytes": os.path.getsize(gz),
            "profiled_steps": active, "step_ms": round(settled[len(settled) // 2], 3) if settled else None}


def environment(device):
    env = {"torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
           "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "device": device}
    if device.startswith("cuda"):
        env.update(gpu=torch.cuda.get_device_name(0),
                   capability=".".join(map(str, torch.cuda.get_device_capability(0))),
                   cudnn=torch.backends.cudnn.version())
    for mod in ("transformers", "torchvision"):
        try:
            env[mod] = __import__(mod).__version__
        except ImportError:
            env[mod] = None
    return env


def load_manifest(path):
    if os.path.exists(path):
        try:
            with open(path) as f:
                return json.load(f)
        except ValueError:
            pass
    return {"environment": {}, "workloads": []}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="datasets/traces/scale_sweep")
    ap.add_argument("--only", nargs="*", help="workload names or prefixes (default: all)")
    ap.add_argument("--list", action="store_true", help="print the workloads and exit")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tiny", action="store_true", help="one layer, batch 2: a CPU check of the script itself")
    ap.add_argument("--active", type=int, default=1, help="profiled steps per workload (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=3, help="timed warm-up steps before profiling")
    ap.add_argument("--budget", type=float, default=0, help="total seconds; later workloads are skipped (0: none)")
    ap.add_argument("--force", action="store_true", help="recapture workloads already in the manifest")
    args = ap.parse_args()
    table = workloads()
    names = [n for n in table if not args.only or any(n == o or n.startswith(o) for o in args.only)]
    if args.list:
        for n in names:
            print(n, table[n])
        return 0
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("capture_scale_sweep.py: no CUDA device (use --device cpu --tiny to check the script)", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = load_manifest(manifest_path)
    have = {w["name"]: w for w in manifest.get("workloads", [])
            if w.get("file") and os.path.exists(os.path.join(args.out, w["file"]))}
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    env = environment(args.device)
    print(json.dumps(env), flush=True)
    start = time.monotonic()
    failures = 0
    for name in names:
        if name in have and not args.force:
            print("%-18s already captured" % name, flush=True)
            continue
        entry = {"name": name}
        if args.budget and time.monotonic() - start > args.budget:
            entry.update(status="skipped", reason="total budget of %g s spent" % args.budget)
            print("%-18s skipped: budget" % name, flush=True)
            have[name] = entry
            continue
        t0 = time.monotonic()
        step = None
        try:
            step, meta = build(name, table[name], args.device, args.tiny)
            entry.update(meta)
            entry.update(profile(name, step, args.out, args.device, args.active, args.warmup))
            entry["status"] = "ok"
            print("%-18s %6.0fM params  step %8.2f ms  %5.2f MB gz  (%.1f s)" % (
                name, entry["params"] / 1e6, entry["step_ms"] or 0, entry["gz_bytes"] / 1e6, time.monotonic() - t0),
                flush=True)
        except Exception as e:  # noqa: BLE001 - one failing workload must not lose the others
            failures += 1
            oom = "out of memory" in str(e).lower()
            entry.update(status="oom" if oom else "failed", reason=("%s: %s" % (type(e).__name__, e)).splitlines()[0][:300])
            print("%-18s FAILED: %s" % (name, entry["reason"]), flush=True)
            if not oom:
                traceback.print_exc(limit=3)
        entry["capture_seconds"] = round(time.monotonic() - t0, 1)
        if args.tiny:
            entry["tiny"] = True
        have[name] = entry
        del step
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
        order = list(table)
        manifest = {"environment": env, "workloads": sorted(have.values(), key=lambda w: order.index(w["name"])
                                                           if w["name"] in order else len(order))}
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
    total = sum(w.get("gz_bytes", 0) for w in have.values())
    print("%d workloads in %s, %.1f MB gz, %d failed, %.0f s" % (len(have), args.out, total / 1e6, failures,
                                                                 time.monotonic() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
