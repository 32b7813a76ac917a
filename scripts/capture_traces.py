#!/usr/bin/env python3
"""Capture the PyTorch profiler (Kineto) traces committed under datasets/traces/.

Run on any machine with a CUDA GPU, PyTorch, torchvision and transformers:

    PYTHONUNBUFFERED=1 python3 scripts/capture_traces.py --out datasets/traces

Every model is built from a config with random weights (no downloads). Each
workload runs a few untimed warm-up iterations, then torch.profiler records
CPU + CUDA activity with schedule(wait=1, warmup=1, active=2) and the trace is
written as <name>.json.gz (gzip with mtime 0). A manifest.json beside the
traces records, per workload, the model, batch, dtype and the software and GPU
it was captured with.
"""
import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

import torch
import torch.nn as nn

ACTIVE_STEPS = 2


def profile(name, step_fn, out_dir, warmup_iters=3, meta=None):
    for _ in range(warmup_iters):
        step_fn()
    torch.cuda.synchronize()
    raw = os.path.join(out_dir, name + ".json")
    sched = torch.profiler.schedule(wait=1, warmup=1, active=ACTIVE_STEPS, repeat=1)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts, schedule=sched,
                                on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(2 + ACTIVE_STEPS):
            step_fn()
            torch.cuda.synchronize()
            prof.step()
    gz = raw + ".gz"
    with open(raw, "rb") as src, open(gz, "wb") as dst_file:
        with gzip.GzipFile(filename="", mode="wb", fileobj=dst_file, mtime=0, compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
    raw_size = os.path.getsize(raw)
    os.remove(raw)
    entry = dict(meta or {})
    entry.update(name=name, file=os.path.basename(gz), json_bytes=raw_size, gz_bytes=os.path.getsize(gz),
                 profiled_steps=ACTIVE_STEPS)
    print(f"{name}: {raw_size/1e6:.1f} MB json, {entry['gz_bytes']/1e6:.2f} MB gz", flush=True)
    return entry


def transformer_lm(kind, train, dtype, batch, seq):
    import transformers
    if kind == "gpt2":
        cfg = transformers.GPT2Config(n_layer=6, n_embd=768, n_head=12, n_positions=1024, vocab_size=50257)
        model = transformers.GPT2LMHeadModel(cfg)
    else:
        cfg = transformers.LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                                       num_attention_heads=16, num_key_value_heads=8, vocab_size=32000,
                                       max_position_embeddings=2048)
        model = transformers.LlamaForCausalLM(cfg)
    model = model.cuda()
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    meta = dict(domain="transformer", model=f"{type(model).__name__} ({cfg.num_hidden_layers} layers, "
                f"hidden {cfg.hidden_size}, random weights, default sdpa attention)", batch=batch, seq_len=seq)
    if train:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        model.train()

        def step():
            with torch.autocast("cuda", dtype=dtype):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        meta.update(dtype=f"fp32 weights, {dtype} autocast", mode="train step (forward, backward, fused AdamW)")
    else:
        model = model.to(dtype).eval()

        def step():
            with torch.inference_mode():
                model(input_ids=ids)
        meta.update(dtype=str(dtype).replace("torch.", ""), mode="inference (one forward, full sequence)")
    return step, meta


def bert(train, dtype, batch, seq):
    import transformers
    cfg = transformers.BertConfig(num_hidden_layers=6, hidden_size=768, num_attention_heads=12,
                                  intermediate_size=3072)
    model = transformers.BertForSequenceClassification(cfg).cuda()
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    labels = torch.randint(0, 2, (batch,), device="cuda")
    meta = dict(domain="transformer", model="BertForSequenceClassification (6 layers, hidden 768, random weights)",
                batch=batch, seq_len=seq)
    if train:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        model.train()

        def step():
            with torch.autocast("cuda", dtype=dtype):
                loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        meta.update(dtype=f"fp32 weights, {dtype} autocast", mode="train step (forward, backward, fused AdamW)")
    else:
        model = model.to(dtype).eval()

        def step():
            with torch.inference_mode():
                model(input_ids=ids)
        meta.update(dtype=str(dtype).replace("torch.", ""), mode="inference")
    return step, meta


class Dlrm(nn.Module):
    """DLRM-style recommender: bottom MLP on dense features, EmbeddingBag per
    sparse feature, pairwise dot interaction, top MLP."""

    def __init__(self, tables, rows, dim, dense_in=13):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense_in, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                    nn.Linear(256, dim), nn.ReLU())
        self.embs = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(dim + n * (n - 1) // 2, 1024), nn.ReLU(), nn.Linear(1024, 512),
                                 nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))
        self.tril = torch.tril_indices(n, n, offset=-1)

    def forward(self, dense, indices, offsets):
        x = self.bottom(dense)
        feats = [x] + [emb(idx, off) for emb, idx, off in zip(self.embs, indices, offsets)]
        t = torch.stack(feats, dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        inter = z[:, self.tril[0], self.tril[1]]
        return self.top(torch.cat([x, inter], dim=1))


def dlrm(train, batch, tables=26, rows=200_000, dim=64, pooling=40):
    model = Dlrm(tables, rows, dim).cuda()
    model.tril = model.tril.cuda()
    dense = torch.randn(batch, 13, device="cuda")
    indices = [torch.randint(0, rows, (batch * pooling,), device="cuda") for _ in range(tables)]
    offsets = [torch.arange(0, batch * pooling, pooling, device="cuda") for _ in range(tables)]
    target = torch.rand(batch, 1, device="cuda")
    meta = dict(domain="recommender", model=f"DLRM-style ({tables} EmbeddingBag tables of {rows} x {dim}, sum "
                f"pooling of {pooling} lookups, bottom MLP 13-512-256-{dim}, dot interaction, top MLP "
                "1024-512-256-1, random weights)", batch=batch, dtype="float32")
    if train:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        lossf = nn.BCEWithLogitsLoss()

        def step():
            loss = lossf(model(dense, indices, offsets), target)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        meta.update(mode="train step (forward, backward, SGD)")
    else:
        model.eval()

        def step():
            with torch.inference_mode():
                model(dense, indices, offsets)
        meta.update(mode="inference")
    return step, meta


def vision(kind, train, dtype, batch):
    import torchvision
    model = (torchvision.models.resnet50(weights=None) if kind == "resnet50"
             else torchvision.models.vit_b_16(weights=None)).cuda()
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    meta = dict(domain="vision", model=f"torchvision {kind} (weights=None)", batch=batch, image="3x224x224")
    if kind == "resnet50":
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    if train:
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        labels = torch.randint(0, 1000, (batch,), device="cuda")
        lossf = nn.CrossEntropyLoss()
        model.train()

        def step():
            with torch.autocast("cuda", dtype=dtype):
                loss = lossf(model(x), labels)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        meta.update(dtype=f"fp32 weights, {dtype} autocast", mode="train step (forward, backward, SGD momentum)")
    else:
        model = model.to(dtype).eval()
        x = x.to(dtype)

        def step():
            with torch.inference_mode():
                model(x)
        meta.update(dtype=str(dtype).replace("torch.", ""), mode="inference")
    return step, meta


WORKLOADS = {
    "gpt2_infer": lambda: transformer_lm("gpt2", False, torch.bfloat16, 8, 512),
    "gpt2_train": lambda: transformer_lm("gpt2", True, torch.bfloat16, 8, 512),
    "llama_infer": lambda: transformer_lm("llama", False, torch.bfloat16, 8, 512),
    "bert_infer": lambda: bert(False, torch.float16, 32, 128),
    "bert_train": lambda: bert(True, torch.bfloat16, 32, 128),
    "dlrm_infer": lambda: dlrm(False, 8192),
    "dlrm_train": lambda: dlrm(True, 8192),
    "resnet50_infer": lambda: vision("resnet50", False, torch.bfloat16, 64),
    "resnet50_train": lambda: vision("resnet50", True, torch.bfloat16, 64),
    "vit_infer": lambda: vision("vit_b_16", False, torch.bfloat16, 64),
}


def tool_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        return f"unavailable: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="datasets/traces")
    ap.add_argument("--only", nargs="*", help="workload names (default: all)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    import torchvision
    import transformers
    env = dict(
        gpu=torch.cuda.get_device_name(0),
        capability=".".join(map(str, torch.cuda.get_device_capability(0))),
        torch=torch.__version__, cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
        torchvision=torchvision.__version__, transformers=transformers.__version__,
        python=platform.python_version(),
        driver=tool_output(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]),
        captured=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    print(json.dumps(env), flush=True)
    entries = []
    for name in (args.only or WORKLOADS):
        try:
            t0 = time.time()
            step, meta = WORKLOADS[name]()
            entry = profile(name, step, args.out, meta=meta)
            entry["capture_seconds"] = round(time.time() - t0, 1)
            entries.append(entry)
        except Exception:  # noqa: BLE001 - one failed workload must not lose the others
            print(f"{name}: FAILED", flush=True)
            traceback.print_exc()
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(dict(environment=env, workloads=entries), f, indent=1)
        f.write("\n")
    return 0 if len(entries) == len(args.only or WORKLOADS) else 1


if __name__ == "__main__":
    sys.exit(main())
