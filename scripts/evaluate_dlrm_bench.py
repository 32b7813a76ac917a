#!/usr/bin/env python3
"""Evaluate DLRM-Bench (KernelBench-format problems and ModelNew samples) on a GPU.

    python3 scripts/evaluate_dlrm_bench.py --out out/dlrm_bench/records.jsonl
    python3 scripts/evaluate_dlrm_bench.py --build-only          # warm the extension cache
    python3 scripts/evaluate_dlrm_bench.py --device cpu --check  # references + sample syntax, no CUDA

1. Build: every sample (datasets/kernelbench_dlrm/samples/{N}_{Name}[__variant].py)
   is imported in its own process, all at once (one per CPU core), so every
   load_inline extension is compiled into the shared cache (--cache, the
   TORCH_EXTENSIONS_DIR) before any GPU work; a build failure is that sample's
   compile_error and nothing else. The outcome of each build is kept in the cache
   (dlrm_bench_builds.json), so a later --no-build run does not retry failed
   builds inside its time budget.
2. Evaluate, per problem, in a worker process that is replaced after a crash or a
   timeout: Model and ModelNew are built as KernelBench does (manual_seed(seed)
   before each, get_init_inputs() as arguments); --trials-correct sets of fresh
   inputs (seed + trial, drawn on the GPU) are compared with torch.allclose at
   --atol/--rtol (KernelBench's fp32 tolerance, 1e-4; the pass at 1e-2, the
   tolerance of KernelBench's first release, is recorded too; integer outputs
   must be equal); then both are timed the same way: --warmup calls, then
   --trials calls each after an L2 flush (a write of twice the L2 size) and
   bracketed by CUDA events; the median is the time.
3. Write kwb.record/1 JSONL (speedup over the torch_eager reference), print the
   win rate and the median speedups, and the projection f*w*(1-1/s) at the
   paper's f = 0.582 and at the f that `kwb project` measures on
   datasets/traces/dlrm_train.json.gz (when a kwb binary is found; otherwise the
   command to run is printed).
"""
import argparse
import glob
import json
import math
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
DEFAULT_BENCH = os.path.join(REPO, "datasets", "kernelbench_dlrm")
PAPER_F = 0.582
BUILD_STATUS = "dlrm_bench_builds.json"  # in the cache: what the last --build run built, for --no-build


# ---------------------------------------------------------------- discovery and pure helpers

def problem_number(path):
    head = os.path.basename(path).split("_", 1)[0]
    return int(head) if head.isdigit() else None


def discover(bench_dir, only=None):
    """[(problem_path, [sample_paths])] ordered by problem number."""
    problems = sorted(glob.glob(os.path.join(bench_dir, "problems", "*.py")), key=lambda p: problem_number(p) or 0)
    samples = glob.glob(os.path.join(bench_dir, "samples", "*.py"))
    out = []
    for p in problems:
        n = problem_number(p)
        if n is None or (only and not any(s in os.path.basename(p) for s in only)):
            continue
        stem = os.path.basename(p)[:-3]
        mine = sorted(s for s in samples if os.path.basename(s)[:-3] == stem or os.path.basename(s).startswith(stem + "__"))
        out.append((p, mine))
    return out


def sample_variant(sample_path):
    base = os.path.basename(sample_path)[:-3]
    return base.split("__", 1)[1] if "__" in base else "sample0"


def read_text(path):
    with open(path) as f:
        return f.read()


def load_module(path, name):
    import types
    with open(path) as f:
        src = f.read()
    mod = types.ModuleType(name)
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)  # noqa: S102 - the benchmark's own files
    return mod


def median_speedup(values):
    return statistics.median(values) if values else None


def summarize(records):
    """Win rate (correct and faster, over all samples) and median speedups."""
    n = len(records)
    correct = [r for r in records if r["status"]["correct"] and r.get("speedup")]
    wins = [r for r in correct if r["speedup"] > 1.0]
    return {"samples": n, "correct": len(correct), "wins": len(wins),
            "win_rate": len(wins) / n if n else 0.0,
            "median_speedup_correct": median_speedup([r["speedup"] for r in correct]),
            "median_speedup_wins": median_speedup([r["speedup"] for r in wins]),
            "geomean_speedup_correct": (math.exp(sum(math.log(r["speedup"]) for r in correct) / len(correct))
                                        if correct else None)}


def projection(f, w, s):
    """The paper's expected saving f*w*(1-1/s) and the Amdahl bound 1/((1-f)+f/s)."""
    if s is None or s <= 0:
        return {"f": f, "w": w, "s": s, "expected_saving": None, "amdahl_speedup": None, "amdahl_saving": None}
    amdahl = 1.0 / ((1.0 - f) + f / s)
    return {"f": f, "w": w, "s": s, "expected_saving": f * w * (1.0 - 1.0 / s), "amdahl_speedup": amdahl,
            "amdahl_saving": 1.0 - 1.0 / amdahl}


# Suite name and id/model prefix of the records (--suite): DLRM-Bench, or another
# KernelBench-format folder such as datasets/kernelbench_transformer.
SUITE = {"name": "DLRM-Bench", "prefix": "dlrm-bench"}


def make_record(problem_path, sample_path, run, result, tol):
    stem = os.path.basename(problem_path)[:-3]
    n = problem_number(problem_path)
    variant = sample_variant(sample_path)
    rec = {"schema": "kwb.record/1", "id": "%s/%s/%s" % (SUITE["prefix"].replace("-", "_"), stem, variant),
           "problem": {"suite": SUITE["name"], "level": 1, "id": n, "name": stem},
           "model": "%s/%s" % (SUITE["prefix"], variant), "run": run, "sample": 0,
           # Inline code and problem_file make the record a KernelBench sample that `kwb rerun --record`
           # and `kwb verify` re-run through the bridge (problem_file is relative to the repository root).
           "source": {"path": os.path.relpath(sample_path, REPO), "language": "python", "code": read_text(sample_path)},
           "problem_file": os.path.relpath(problem_path, REPO)}
    outcome = result.get("outcome", "unknown")
    status = {"outcome": outcome, "compiled": outcome not in ("compile_error",), "correct": outcome == "correct"}
    if result.get("error"):
        status["error"] = result["error"]
    rec["status"] = status
    prov = {"gpu": result.get("gpu", ""), "timer": "cuda_event", "trials": result.get("trials", 0), "l2_flush": True,
            "tolerance": {"atol": tol[0], "rtol": tol[1]}, "precision": "fp32",
            "source": "scripts/evaluate_dlrm_bench.py"}
    for key, name in (("candidate_ms", "candidate"), ("reference_ms", "reference")):
        t = result.get(key)
        if t:
            timing = {"mean_ms": statistics.fmean(t), "median_ms": statistics.median(t), "min_ms": min(t), "max_ms": max(t),
                      "std_ms": statistics.pstdev(t), "provenance": prov}
            if name == "candidate":
                rec["candidate"] = timing
            else:
                rec["baselines"] = [dict(timing, name="torch_eager")]
    if rec.get("candidate") and rec.get("baselines") and status["correct"]:
        rec["speedup"] = rec["baselines"][0]["median_ms"] / rec["candidate"]["median_ms"]
        rec["speedup_baseline"] = "torch_eager"
    rec["verification"] = {k: result[k] for k in ("max_abs_error", "ref_rms", "correct_at_1e-2", "trials_passed",
                                                  "correctness_trials", "build_s") if k in result}
    return rec


# ---------------------------------------------------------------- build (one process per sample)

def build_one(sample_path, cache):
    os.environ["TORCH_EXTENSIONS_DIR"] = cache
    os.environ.setdefault("MAX_JOBS", "2")
    t0 = time.time()
    try:
        load_module(sample_path, "kwb_sample_build")
        return sample_path, True, time.time() - t0, ""
    except BaseException as e:  # noqa: BLE001 - a failed build is a result
        lines = [l for l in (str(e) or type(e).__name__).strip().splitlines() if l.strip()]
        return sample_path, False, time.time() - t0, " | ".join(lines[-6:])[-1500:]


def build_all(samples, cache, procs, timeout):
    ctx = mp.get_context("spawn")
    results = {}
    with ctx.Pool(processes=max(1, min(procs, len(samples)))) as pool:
        pending = {s: pool.apply_async(build_one, (s, cache)) for s in samples}
        deadline = time.time() + timeout
        for s, res in pending.items():
            try:
                results[s] = res.get(timeout=max(1.0, deadline - time.time()))
            except mp.TimeoutError:
                results[s] = (s, False, timeout, "build did not finish within %g s" % timeout)
            print("build %-40s %s (%.0f s)%s" % (os.path.basename(s), "ok" if results[s][1] else "FAILED",
                                                 results[s][2], "" if results[s][1] else ": " + results[s][3][-300:]),
                  flush=True)
    return results


# ---------------------------------------------------------------- evaluation (worker process)

def flatten(value):
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flatten(v)]
    return []


def to_device(value, device):
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def compare(ref, out, atol, rtol):
    """(passed, max_abs_error, ref_rms) over every output tensor; integers must be equal."""
    import torch
    refs, outs = flatten(ref), flatten(out)
    if len(refs) != len(outs):
        return False, float("inf"), 0.0, "returned %d tensors, the reference %d" % (len(outs), len(refs))
    ok, err, rms = True, 0.0, 0.0
    for r, o in zip(refs, outs):
        if r.shape != o.shape:
            return False, float("inf"), 0.0, "output shape %s, expected %s" % (list(o.shape), list(r.shape))
        if not r.is_floating_point():
            ok = ok and bool(torch.equal(r, o.to(r.dtype)))
            err = max(err, float((r.double() - o.double()).abs().max().item()) if r.numel() else 0.0)
            continue
        o = o.to(r.dtype)
        ok = ok and bool(torch.allclose(r, o, atol=atol, rtol=rtol))
        if r.numel():
            err = max(err, float((r.float() - o.float()).abs().max().item()))
            rms = max(rms, float(r.float().pow(2).mean().sqrt().item()))
    return ok, err, rms, ""


def time_calls(fn, args, warmup, trials, flush_buf):
    import torch
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(trials)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(trials)]
    for i in range(trials):
        flush_buf.zero_()  # evicts the inputs from L2 so every call reads them from DRAM
        starts[i].record()
        fn(*args)
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def evaluate_problem(job):
    import contextlib
    import torch
    device = job["device"]
    res = {"outcome": "unknown", "correctness_trials": job["trials_correct"]}
    on_gpu = device.startswith("cuda")
    if on_gpu:
        res["gpu"] = torch.cuda.get_device_name(0)
    prob = load_module(job["problem"], "kwb_problem")
    try:
        os.environ["TORCH_EXTENSIONS_DIR"] = job["cache"]
        t0 = time.time()
        sample = load_module(job["sample"], "kwb_sample")
        res["build_s"] = round(time.time() - t0, 2)
    except BaseException as e:  # noqa: BLE001
        res.update(outcome="compile_error", error=str(e).strip().splitlines()[-1][:500] if str(e).strip() else type(e).__name__)
        return res
    if not hasattr(sample, "ModelNew"):
        res.update(outcome="compile_error", error="the sample defines no ModelNew")
        return res
    ctx = torch.device(device) if hasattr(torch, "set_default_device") else contextlib.nullcontext()
    atol, rtol = job["atol"], job["rtol"]
    with ctx, torch.no_grad():
        seed = job["seed"]
        torch.manual_seed(seed)
        init = to_device(list(prob.get_init_inputs()), device)
        torch.manual_seed(seed)
        model = prob.Model(*init).to(device)  # training mode, as KernelBench leaves it
        torch.manual_seed(seed)
        try:
            new = sample.ModelNew(*init).to(device)
        except Exception as e:  # noqa: BLE001
            res.update(outcome="runtime_error", error="ModelNew(): %s: %s" % (type(e).__name__, e))
            return res
        passed, passed_loose, max_err, rms = 0, 0, 0.0, 0.0
        inputs = None
        for trial in range(job["trials_correct"]):
            torch.manual_seed(seed + trial)
            inputs = to_device(list(prob.get_inputs()), device)
            ref = model(*inputs)
            try:
                out = new(*inputs)
                if on_gpu:
                    torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                res.update(outcome="runtime_error", error="%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:400]))
                return res
            ok, err, r, why = compare(ref, out, atol, rtol)
            ok_loose = compare(ref, out, 1e-2, 1e-2)[0]
            passed += ok
            passed_loose += ok_loose
            max_err, rms = max(max_err, err), max(rms, r)
            if why:
                res["error"] = why
            del ref, out
        res.update(max_abs_error=max_err, ref_rms=rms, trials_passed=passed, **{"correct_at_1e-2": passed_loose ==
                                                                                   job["trials_correct"]})
        res["outcome"] = "correct" if passed == job["trials_correct"] else "incorrect"
        if not on_gpu or job["trials"] <= 0:
            return res
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
        flush_buf = torch.empty(max(2 * l2, 64 << 20) // 4, dtype=torch.float32, device=device)
        res["reference_ms"] = time_calls(model, inputs, job["warmup"], job["trials"], flush_buf)
        res["candidate_ms"] = time_calls(new, inputs, job["warmup"], job["trials"], flush_buf)
        res["trials"] = job["trials"]
    return res


def worker_loop(conn):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    while True:
        job = conn.recv()
        if job is None:
            return
        try:
            res = evaluate_problem(job)
        except BaseException as e:  # noqa: BLE001
            oom = "out of memory" in str(e).lower()
            res = {"outcome": "runtime_error", "error": ("out of memory: " if oom else "") + "%s: %s" % (
                type(e).__name__, str(e).strip().splitlines()[0][:400] if str(e).strip() else ""),
                "traceback": traceback.format_exc().strip().splitlines()[-3:]}
        fatal = False
        if job["device"].startswith("cuda"):
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception:  # noqa: BLE001 - a sticky CUDA error ends this worker
                fatal = True
        conn.send(res)
        if fatal:
            return


class Worker:
    def __init__(self):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_loop, args=(child,), daemon=True)
        self.proc.start()

    def run(self, job, timeout):
        self.conn.send(job)
        if not self.conn.poll(timeout):
            return None
        try:
            return self.conn.recv()
        except EOFError:
            return {"eof": True}

    def close(self, kill=False):
        if kill or not self.proc.is_alive():
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


# ---------------------------------------------------------------- projection through kwb

def find_kwb(explicit):
    cands = [explicit] if explicit else [os.path.join(REPO, d, "app", "kwb", "kwb") for d in sorted(os.listdir(REPO))
                                         if d.startswith("build")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def kwb_projection(kwb, trace, records_path):
    """f, w, s and the saving as `kwb project` computes them, or None with the reason."""
    try:
        p = subprocess.run([kwb, "project", "--trace", trace, "--records", records_path, "--format", "json"],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            return None, (p.stderr or p.stdout).strip()[-300:]
        doc = json.loads(p.stdout)
        return doc["workloads"][0], ""
    except (OSError, ValueError, KeyError, IndexError, subprocess.TimeoutExpired) as e:
        return None, str(e)


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=DEFAULT_BENCH, help="folder with problems/ and samples/ (default: %(default)s)")
    ap.add_argument("--out", default="out/dlrm_bench/records.jsonl", help="kwb.record/1 JSONL to write")
    ap.add_argument("--run", default="dlrm-bench-h200", help="run name in the records")
    ap.add_argument("--suite", help="suite name of the records (default DLRM-Bench; ids and models use it lower-cased)")
    ap.add_argument("--only", nargs="*", help="problem file names containing any of these")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "kwb", "dlrm_bench_ext"),
                    help="TORCH_EXTENSIONS_DIR for the samples' builds (default: %(default)s)")
    ap.add_argument("--build-procs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--build-timeout", type=float, default=300.0, help="seconds for all builds together")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--no-build", action="store_true", help="skip the parallel build (the cache is warm)")
    ap.add_argument("--check", action="store_true",
                    help="no CUDA: run every reference once and parse every sample (syntax, ModelNew present)")
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--trials-correct", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--timeout", type=float, default=150.0,
                    help="seconds per sample's evaluation, a build on a cold cache included (default %(default)s)")
    ap.add_argument("--trace", default=os.path.join(REPO, "datasets", "traces", "dlrm_train.json.gz"))
    ap.add_argument("--kwb", help="kwb binary for the projection (default: build*/app/kwb/kwb)")
    ap.add_argument("--f-measured", type=float, help="addressable fraction to use when kwb is unavailable")
    args = ap.parse_args()
    if args.suite:
        SUITE["name"] = args.suite
        SUITE["prefix"] = args.suite.lower()

    work = discover(args.bench, args.only)
    if not work:
        print("evaluate_dlrm_bench.py: no problems under %s/problems" % args.bench, file=sys.stderr)
        return 2
    samples = [s for _, ss in work for s in ss]
    if args.check:
        return check_only(work, args)

    os.makedirs(args.cache, exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = args.cache
    if args.device.startswith("cuda") and "TORCH_CUDA_ARCH_LIST" not in os.environ:
        # Build for this GPU only (ask in a child so this process keeps no CUDA context for the forked builds).
        cap = subprocess.run([sys.executable, "-c", "import torch;print('%d.%d'%torch.cuda.get_device_capability(0))"],
                             capture_output=True, text=True).stdout.strip()
        if cap:
            os.environ["TORCH_CUDA_ARCH_LIST"] = cap
    builds = {}
    status_path = os.path.join(args.cache, BUILD_STATUS)
    if not args.no_build:
        t0 = time.time()
        builds = build_all(samples, args.cache, args.build_procs, args.build_timeout)
        print("built %d of %d samples in %.0f s" % (sum(1 for b in builds.values() if b[1]), len(samples), time.time() - t0),
              flush=True)
        with open(status_path, "w") as f:
            json.dump({os.path.abspath(k): list(v) for k, v in builds.items()}, f, indent=1)
    elif os.path.exists(status_path):
        # A sample whose build already failed is not rebuilt inside the timed evaluation.
        with open(status_path) as f:
            recorded = json.load(f)
        builds = {s: tuple(recorded[os.path.abspath(s)]) for s in samples
                  if os.path.abspath(s) in recorded and not recorded[os.path.abspath(s)][1]}
    if args.build_only:
        return 0 if all(b[1] for b in builds.values()) else 1

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    records = []
    worker = None
    t_start = time.time()
    for problem, ss in work:
        if not ss:
            print("%-34s no sample" % os.path.basename(problem), flush=True)
        for s in ss:
            b = builds.get(s)
            if b is not None and not b[1]:
                result = {"outcome": "compile_error", "error": b[3]}
            else:
                job = {"problem": problem, "sample": s, "device": args.device, "cache": args.cache, "seed": args.seed,
                       "atol": args.atol, "rtol": args.rtol, "trials_correct": args.trials_correct,
                       "warmup": args.warmup, "trials": args.trials}
                if worker is None:
                    worker = Worker()
                t0 = time.time()
                result = worker.run(job, args.timeout)
                if result is None:
                    result = {"outcome": "timeout", "error": "no result within %g s" % args.timeout}
                    worker.close(kill=True)
                    worker = None
                elif result.get("eof"):
                    result = {"outcome": "runtime_error", "error": "the worker died (crash or CUDA fault)"}
                    worker.close(kill=True)
                    worker = None
                elif not worker.proc.is_alive():
                    worker.close()
                    worker = None
                result["wall_s"] = round(time.time() - t0, 2)
            rec = make_record(problem, s, args.run, result, (args.atol, args.rtol))
            records.append(rec)
            ref = rec.get("baselines", [{}])[0].get("median_ms")
            cand = rec.get("candidate", {}).get("median_ms")
            print("%-34s %-14s ref %8s ms  cand %8s ms  speedup %6s%s" % (
                os.path.basename(s)[:34], rec["status"]["outcome"], "%.4f" % ref if ref else "-",
                "%.4f" % cand if cand else "-", "%.3f" % rec["speedup"] if rec.get("speedup") else "-",
                ("  " + rec["status"].get("error", "")[:100]) if rec["status"].get("error") else ""), flush=True)
    if worker is not None:
        worker.close()
    with open(args.out, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    summary = summarize(records)
    print("\nDLRM-Bench: %d samples, %d correct, %d faster than eager: win rate %.1f%%, median speedup %s (correct), "
          "%s (wins); %.0f s" % (summary["samples"], summary["correct"], summary["wins"], 100 * summary["win_rate"],
                                 fmt_x(summary["median_speedup_correct"]), fmt_x(summary["median_speedup_wins"]),
                                 time.time() - t_start))
    proj = {"paper_f": projection(PAPER_F, summary["win_rate"], summary["median_speedup_wins"])}
    kwb = find_kwb(args.kwb)
    if kwb and os.path.exists(args.trace):
        w, why = kwb_projection(kwb, args.trace, args.out)
        if w:
            proj["kwb_project"] = w
            proj["measured_f"] = projection(w["f"], summary["win_rate"], summary["median_speedup_wins"])
        else:
            print("kwb project failed: " + why)
    elif args.f_measured is not None:
        proj["measured_f"] = projection(args.f_measured, summary["win_rate"], summary["median_speedup_wins"])
    labels = {"paper_f": "paper's f, w and s over all samples",
              "measured_f": "f of %s, w and s over all samples" % os.path.basename(args.trace),
              "kwb_project": "kwb project: f of the trace, w and s of the records its families match (%s)"
                             % proj.get("kwb_project", {}).get("matching")}
    for key, p in proj.items():
        if p.get("expected_saving") is None:
            continue
        print("projection, %s: f %.3f, w %.3f, s %.3f -> f*w*(1-1/s) = %.2f%%, Amdahl bound %.3fx (%.2f%%)"
              % (labels[key], p["f"], p["w"], p["s"], 100 * p["expected_saving"], p["amdahl_speedup"],
                 100 * p["amdahl_saving"]))
    if "measured_f" not in proj:
        print("measured f: run  kwb project --trace %s --records %s" % (os.path.relpath(args.trace, REPO), args.out))
    with open(os.path.splitext(args.out)[0] + ".summary.json", "w") as f:
        json.dump({"summary": summary, "projection": proj, "tolerance": {"atol": args.atol, "rtol": args.rtol},
                   "trials": args.trials, "warmup": args.warmup}, f, indent=1)
        f.write("\n")
    return 0


def fmt_x(v):
    return "%.3fx" % v if v else "-"


def check_only(work, args):
    """CPU check: every reference runs on its own inputs; every sample parses and defines ModelNew."""
    import ast
    import torch
    bad = 0
    for problem, ss in work:
        t0 = time.time()
        try:
            prob = load_module(problem, "kwb_problem")
            torch.manual_seed(args.seed)
            init = list(prob.get_init_inputs())
            torch.manual_seed(args.seed)
            model = prob.Model(*init).eval()
            torch.manual_seed(args.seed)
            inputs = list(prob.get_inputs())
            with torch.no_grad():
                out = model(*inputs)
            shapes = [list(t.shape) for t in flatten(out)]
            print("%-34s reference ok, output %s (%.1f s)" % (os.path.basename(problem), shapes, time.time() - t0), flush=True)
            del prob, model, inputs, out
        except Exception as e:  # noqa: BLE001
            bad += 1
            print("%-34s reference FAILED: %s: %s" % (os.path.basename(problem), type(e).__name__, e), flush=True)
        for s in ss:
            with open(s) as f:
                src = f.read()
            try:
                tree = ast.parse(src, s)
                names = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
                if "ModelNew" not in names:
                    raise SyntaxError("no class ModelNew")
                print("%-34s sample parses, defines ModelNew" % os.path.basename(s))
            except SyntaxError as e:
                bad += 1
                print("%-34s sample FAILED: %s" % (os.path.basename(s), e))
        if not ss:
            bad += 1
            print("%-34s has no sample" % os.path.basename(problem))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
