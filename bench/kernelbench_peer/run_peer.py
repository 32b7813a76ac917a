"""KernelBench's own pipeline on N leaderboard samples, as its batch driver
runs it locally (scripts/eval_from_generations.py: a CPU process pool that
builds every sample with kernelbench.compile / eval.build_compile_cache, then
one GPU process calling eval.eval_kernel_against_ref per sample with its
defaults: 5 correctness trials, 100 timed trials, CUDA events). Run on the GPU
machine, not a test:

    python3 bench/kernelbench_peer/run_peer.py PEER_SRC RAW_DATA PROBLEMS N OUT_DIR [WORKERS]

PEER_SRC is KernelBench's src/ folder (../shared/peers/kernelbench/src);
PROBLEMS the v0 problem files (PROBLEMS/KernelBench/level{L}/{id+1}_*.py).
Writes OUT_DIR/samples.json (the N leaderboard records, in the leaderboard's
own format, for `kwb verify` to take the same samples) and prints one JSON
line per phase. Modules the GPU machine lacks that KernelBench imports only
for querying language models (openai, litellm, dotenv, ...) are replaced by
empty stand-ins, and named in the output.
"""
import glob
import json
import multiprocessing as mp
import os
import sys
import time
import types

STUBBABLE = ("openai", "litellm", "dotenv", "requests", "tqdm", "pydra", "modal", "datasets", "together",
             "anthropic", "google", "google.generativeai", "tomli", "toml")


def install_stubs():
    """Empty stand-ins for modules KernelBench imports but never calls here."""
    stubbed = []
    for name in STUBBABLE:
        try:
            __import__(name)
        except Exception:
            m = types.ModuleType(name)
            m.__path__ = []
            if name == "dotenv":
                m.load_dotenv = lambda *a, **k: None
            if name == "openai":
                m.OpenAI = object
            if name == "litellm":
                m.completion = None
            if name == "tqdm":
                class _T:
                    def __init__(self, it=None, **k):
                        self.it = it

                    def __iter__(self):
                        return iter(self.it or [])

                    def update(self, *a):
                        pass

                    def __enter__(self):
                        return self

                    def __exit__(self, *a):
                        return False
                m.tqdm = _T
            sys.modules[name] = m
            stubbed.append(name)
    return stubbed


def pick_samples(raw, n):
    """N distinct samples spread over the leaderboard (every k-th), a fixed choice."""
    data = json.load(open(raw))
    seen, samples = set(), []
    for r in data:
        if r["code"] not in seen and "load_inline" in r["code"]:
            seen.add(r["code"])
            samples.append(r)
    step = max(1, len(samples) // n)
    return samples[::step][:n]


def problem_file(problems, level, problem_id):
    hits = glob.glob(os.path.join(problems, "KernelBench", "level%s" % level, "%d_*.py" % (int(problem_id) + 1)))
    return hits[0] if len(hits) == 1 else None


def build_one(args):
    peer_src, src, build_dir = args
    sys.path.insert(0, peer_src)
    install_stubs()
    from kernelbench.eval import build_compile_cache
    t = time.perf_counter()
    ok, _out, err = build_compile_cache(custom_model_src=src, verbose=False, build_dir=build_dir)
    return ok, time.perf_counter() - t, (err or "")[-300:]


def main():
    peer_src, raw, problems, n, out_dir = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    workers = int(sys.argv[6]) if len(sys.argv) > 6 else os.cpu_count()
    os.makedirs(out_dir, exist_ok=True)
    samples = pick_samples(raw, n)
    with open(os.path.join(out_dir, "samples.json"), "w") as f:
        json.dump(samples, f)
    sys.path.insert(0, peer_src)
    stubbed = install_stubs()
    print(json.dumps({"samples": len(samples), "workers": workers, "stubbed_modules": stubbed}), flush=True)

    t0 = time.perf_counter()
    ctx = mp.get_context("spawn")
    work = [(peer_src, s["code"], os.path.join(out_dir, "peer_build", str(i))) for i, s in enumerate(samples)]
    with ctx.Pool(workers) as pool:
        built = pool.map(build_one, work, chunksize=1)
    build_wall = time.perf_counter() - t0
    times = sorted(t for _ok, t, _e in built)
    print(json.dumps({"phase": "build", "wall_s": round(build_wall, 1), "ok": sum(1 for ok, _t, _e in built if ok),
                      "median_build_s": round(times[len(times) // 2], 1), "max_build_s": round(times[-1], 1),
                      "failed": [e for ok, _t, e in built if not ok][:3]}), flush=True)

    import torch
    from kernelbench.eval import eval_kernel_against_ref
    device = torch.device("cuda:0")
    t1 = time.perf_counter()
    rows = []
    for i, s in enumerate(samples):
        pf = problem_file(problems, s["level"], s["problem_id"])
        row = {"file": s["file"], "level": s["level"], "problem_id": s["problem_id"], "model": s["model"]}
        if not pf:
            row["error"] = "no problem file"
            rows.append(row)
            continue
        ts = time.perf_counter()
        try:
            r = eval_kernel_against_ref(open(pf).read(), s["code"], seed_num=42, num_correct_trials=5,
                                        num_perf_trials=100, measure_performance=True, build_dir=work[i][2],
                                        device=device)
            row.update({"compiled": bool(getattr(r, "compiled", False)), "correctness": bool(getattr(r, "correctness", False)),
                        "runtime_ms": getattr(r, "runtime", None)})
        except Exception as exc:  # KernelBench lets some failures raise
            row["error"] = ("%s: %s" % (type(exc).__name__, exc))[-300:]
        row["eval_s"] = round(time.perf_counter() - ts, 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    eval_wall = time.perf_counter() - t1
    total = time.perf_counter() - t0
    print(json.dumps({"phase": "eval", "wall_s": round(eval_wall, 1),
                      "correct": sum(1 for r in rows if r.get("correctness")), "errors": sum(1 for r in rows if "error" in r)}),
          flush=True)
    print(json.dumps({"summary": "kernelbench", "samples": len(samples), "total_s": round(total, 1),
                      "samples_per_min": round(60 * len(samples) / total, 2), "build_wall_s": round(build_wall, 1),
                      "eval_wall_s": round(eval_wall, 1), "median_build_s": round(times[len(times) // 2], 1)}), flush=True)


if __name__ == "__main__":
    main()
