#!/usr/bin/env python3
"""Zero acceptance over whole KernelBench levels, from the problems' own references.

For every problem file KernelBench/level{L}/*.py of every version folder given
(default: ../shared/data/kernelbench/problems/{v0,current}) this runs the
reference Model on its own inputs (torch.manual_seed(seed) before
get_init_inputs(), before Model(*init) and before get_inputs(), as KernelBench's
evaluator seeds; fp32, TF32 off) and reports, per problem:

  * the output's max |value| and RMS;
  * whether an all-zeros output passes KernelBench's check
    torch.allclose(reference, candidate, atol=tol, rtol=tol) at tol = 1e-2
    (KernelBench's earlier tolerance, the paper's claim) and at 1e-4 (its
    current fp32 tolerance);
  * the same for a constant output equal to the reference's mean (a second
    trivial answer: the best constant in the L2 sense; not counted for
    single-element outputs, where it is the answer itself).

Work runs in a child worker process that handles problems one after another;
the parent gives each problem a time budget and, on a timeout or a crash
(a CUDA fault ends the context), records the reason, starts a fresh worker and
goes on. Out of memory is recorded as a skip. Level 1 of every version runs
first, then level 2, then level 3, so a cut-short run still has the tables the
paper's claim is about. Rows are appended to the JSONL as they finish; a rerun
with the same --jsonl skips problems already there (--fresh starts over).

    python3 scripts/zero_acceptance_levels.py --out out/zeros            # GPU
    python3 scripts/zero_acceptance_levels.py --device cpu --versions v0 --levels 1 --out /tmp/z

Writes OUT/zero_acceptance_levels.jsonl and OUT/zero_acceptance_levels.md
(per-problem tables and "N of M accept zeros at 1e-2" per level and version).
"""
import argparse
import json
import math
import os
import select
import subprocess
import sys
import time
import traceback

TOLERANCES = (1e-2, 1e-4)
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "kernelbench", "problems"))
JSONL_NAME = "zero_acceptance_levels.jsonl"
MD_NAME = "zero_acceptance_levels.md"


def tol_key(tol):
    return "%g" % tol


# ---------------------------------------------------------------- the checks (pure, unit-tested)

def trivial_answers_pass(ref, tolerances=TOLERANCES):
    """Which trivial answers pass torch.allclose(ref, answer, atol=tol, rtol=tol).

    ref is one reference output tensor. Returns a dict with max_abs, rms, mean,
    numel, dtype, shape and, per tolerance, zeros_pass_<tol> and mean_pass_<tol>.
    Integer and bool outputs are compared as float32 (allclose needs floats).
    """
    import torch
    r = ref.detach()
    if not r.is_floating_point():
        r = r.to(torch.float32)
    out = {"shape": list(r.shape), "dtype": str(ref.dtype).replace("torch.", ""), "numel": r.numel()}
    if r.numel() == 0:
        out.update(max_abs=0.0, rms=0.0, mean=0.0, nonfinite=0)
        for tol in tolerances:
            out["zeros_pass_" + tol_key(tol)] = True
            out["mean_pass_" + tol_key(tol)] = True
        return out
    finite = torch.isfinite(r)
    nonfinite = int(r.numel() - finite.sum().item())
    rf = r.float() if r.dtype in (torch.float16, torch.bfloat16) else r
    out["max_abs"] = float(rf.abs().max().item())
    # vector_norm avoids a squared temporary; double accumulation keeps big outputs honest.
    out["rms"] = float(torch.linalg.vector_norm(rf.double() if rf.numel() < (1 << 26) else rf).item()
                       / math.sqrt(rf.numel()))
    mean = float(rf.double().mean().item() if rf.numel() < (1 << 26) else rf.mean().item())
    out["mean"] = mean
    out["nonfinite"] = nonfinite
    zeros = torch.zeros_like(rf)
    for tol in tolerances:
        # KernelBench: torch.allclose(reference_output, candidate_output, atol, rtol).
        out["zeros_pass_" + tol_key(tol)] = bool(torch.allclose(rf, zeros, atol=tol, rtol=tol))
        const = zeros.fill_(mean) if math.isfinite(mean) else zeros.fill_(0.0)
        # For a single element the mean is the answer itself, not a trivial one.
        out["mean_pass_" + tol_key(tol)] = (None if r.numel() == 1 else
                                            bool(torch.allclose(rf, const, atol=tol, rtol=tol)))
        zeros.zero_()
    return out


def combine_outputs(parts, tolerances=TOLERANCES):
    """A model returning several tensors passes only if every one passes."""
    if len(parts) == 1:
        return parts[0]
    out = {"outputs": parts, "shape": [p["shape"] for p in parts], "dtype": parts[0]["dtype"],
           "numel": sum(p["numel"] for p in parts), "max_abs": max(p["max_abs"] for p in parts),
           "rms": math.sqrt(sum(p["rms"] ** 2 * p["numel"] for p in parts) / max(1, sum(p["numel"] for p in parts))),
           "nonfinite": sum(p["nonfinite"] for p in parts)}
    for tol in tolerances:
        for k in ("zeros_pass_", "mean_pass_"):
            vals = [p[k + tol_key(tol)] for p in parts if p[k + tol_key(tol)] is not None]
            out[k + tol_key(tol)] = all(vals) if vals else None
    return out


def flatten_tensors(value):
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flatten_tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten_tensors(v)]
    return []


def problem_number(fn):
    head = fn.split("_", 1)[0]
    return int(head) if head.isdigit() else 10 ** 6


def list_jobs(root, versions, levels, only=None):
    """Jobs in run order: level by level, each level for every version, problems by number."""
    jobs = []
    for level in levels:
        for version in versions:
            d = os.path.join(root, version, "KernelBench", "level%d" % level)
            if not os.path.isdir(d):
                continue
            for fn in sorted((f for f in os.listdir(d) if f.endswith(".py")), key=lambda f: (problem_number(f), f)):
                if only and not any(s in fn for s in only):
                    continue
                jobs.append({"version": version, "level": level, "problem": fn[:-3], "path": os.path.join(d, fn)})
    return jobs


def job_key(row):
    return (row["version"], row["level"], row["problem"])


# ---------------------------------------------------------------- worker (child process)

def load_problem(path):
    import types
    with open(path) as f:
        src = f.read()
    mod = types.ModuleType("kb_problem")
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)  # noqa: S102 - KernelBench's own reference files
    return mod


def to_device(value, device):
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, list):
        return [to_device(v, device) for v in value]
    if isinstance(value, tuple):
        return tuple(to_device(v, device) for v in value)
    return value


def run_problem(job, device, seed):
    import contextlib
    import torch
    t0 = time.perf_counter()
    mod = load_problem(job["path"])
    # Draw inputs and build the model on the device: KernelBench draws on the CPU and
    # copies, which for the current sizes (GBs) costs far more than the GPU work.
    # Same distributions, other values.
    ctx = torch.device(device) if hasattr(torch, "set_default_device") else contextlib.nullcontext()
    with ctx, torch.no_grad():
        torch.manual_seed(seed)
        init = to_device(list(mod.get_init_inputs()), device)
        torch.manual_seed(seed)
        # No .eval(): KernelBench runs the reference in training mode (BatchNorm on batch statistics).
        model = mod.Model(*init).to(device)
        torch.manual_seed(seed)
        inputs = to_device(list(mod.get_inputs()), device)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t1 = time.perf_counter()
        out = model(*inputs)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t2 = time.perf_counter()
        tensors = flatten_tensors(out)
        if not tensors:
            raise TypeError("forward returned no tensor (%s)" % type(out).__name__)
        row = combine_outputs([trivial_answers_pass(t) for t in tensors])
    row.update(status="ok", setup_s=round(t1 - t0, 3), forward_ms=round((t2 - t1) * 1e3, 3),
               input_bytes=sum(t.numel() * t.element_size() for t in flatten_tensors(inputs)))
    del mod, model, inputs, out, tensors
    return row


def is_oom(exc):
    import torch
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom_type is not None and isinstance(exc, oom_type)) or "out of memory" in str(exc).lower() \
        or isinstance(exc, MemoryError)


def worker_main(device, seed):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if device.startswith("cuda") and not torch.cuda.is_available():
        print(json.dumps({"fatal": "no CUDA device (use --device cpu)"}), flush=True)
        return 2
    print(json.dumps({"ready": True, "torch": torch.__version__, "cuda": torch.version.cuda,
                      "device": torch.cuda.get_device_name(0) if device.startswith("cuda") else "cpu"}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        row = dict(job)
        row.pop("path", None)
        fatal = False
        try:
            row.update(run_problem(job, device, seed))
        except Exception as e:  # noqa: BLE001 - every failure becomes a row
            row["status"] = "oom" if is_oom(e) else "error"
            row["reason"] = ("%s: %s" % (type(e).__name__, e)).strip().splitlines()[0][:300]
            if row["status"] == "error":
                row["traceback"] = traceback.format_exc().strip().splitlines()[-3:]
            if device.startswith("cuda"):
                try:
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001 - a sticky CUDA error: this context is done
                    fatal = True
        if device.startswith("cuda"):
            try:
                torch.cuda.empty_cache()
            except Exception:  # noqa: BLE001
                fatal = True
        print(json.dumps(row), flush=True)
        if fatal:
            return 4
    return 0


# ---------------------------------------------------------------- parent

class Worker:
    """The child that runs problems. Its stdout carries one JSON line per result (other lines,
    e.g. a problem's prints, are skipped); its stderr goes to a log file, not a pipe, so
    warnings can never fill a pipe and stall it."""

    def __init__(self, args, stderr_path):
        cmd = [sys.executable, "-u", os.path.abspath(__file__), "--worker", "--device", args.device,
               "--seed", str(args.seed)]
        self.stderr_path = stderr_path
        self.err = open(stderr_path, "ab")
        self.err_start = self.err.tell()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err)
        self.buf = b""
        self.hello = self.read_line(args.start_timeout)
        if self.hello is None or "ready" not in self.hello:
            reason = (self.hello or {}).get("fatal") or "worker did not start: " + self.stderr_tail()
            self.kill()
            raise RuntimeError(reason)

    def read_line(self, timeout):
        """The next JSON object from the child, {"eof": True} when it exited, None on timeout."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                line = line.strip()
                if line.startswith(b"{"):
                    try:
                        return json.loads(line)
                    except ValueError:
                        continue
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return {"eof": True}
            self.buf += chunk

    def stderr_tail(self):
        try:
            self.proc.kill()
            self.proc.wait(10)
            self.err.flush()
            with open(self.stderr_path, "rb") as f:
                f.seek(self.err_start)
                err = f.read().decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            err = ""
        lines = [l for l in err.strip().splitlines() if l.strip()]
        return " | ".join(lines[-3:])[:400] or "no message"

    def run(self, job, timeout):
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        self.proc.stdin.flush()
        return self.read_line(timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.err.close()


def load_done(path):
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        row = json.loads(line)
                        done[job_key(row)] = row
                    except (ValueError, KeyError):
                        pass
    return done


def summarize(rows):
    """Per (version, level): counts of problems run and of trivial answers accepted."""
    groups = {}
    for r in rows:
        g = groups.setdefault((r["version"], r["level"]), {"version": r["version"], "level": r["level"],
                                                           "problems": 0, "ran": 0, "skipped": 0})
        g["problems"] += 1
        if r.get("status") != "ok":
            g["skipped"] += 1
            continue
        g["ran"] += 1
        for tol in TOLERANCES:
            for k in ("zeros_pass_", "mean_pass_"):
                key = k + tol_key(tol)
                g[key] = g.get(key, 0) + (1 if r.get(key) else 0)
    return [groups[k] for k in sorted(groups, key=lambda k: (k[1], k[0]))]


def suite_comparison(rows, suite_rows):
    """Our problem suite's zero-acceptance rows (datasets/evaluations/zero_acceptance_h200.csv:
    problem kb1_NN_name, zeros_pass_kernelbench_0.01, max_abs_ref) beside the level-1 problem NN
    of each version. Returns [(suite problem, suite max, suite pass, {version: row or None})]."""
    by_number = {}
    for r in rows:
        if r["level"] == 1:
            by_number.setdefault(problem_number(r["problem"]), {})[r["version"]] = r
    out = []
    for s in suite_rows:
        name = s.get("problem", "")
        parts = name.split("_")
        if len(parts) < 2 or not parts[0] == "kb1" or not parts[1].isdigit() or "(" in name:
            continue
        out.append((name, float(s["max_abs_ref"]), s["zeros_pass_kernelbench_0.01"] == "True",
                    by_number.get(int(parts[1]), {})))
    return out


def read_suite_csv(path):
    import csv
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fmt(x):
    return "%.3g" % x if isinstance(x, (int, float)) else ""


def render_markdown(rows, meta, suite_rows=()):
    yes = lambda v: "n/a" if v is None else ("**yes**" if v else "no")
    lines = ["# Zero acceptance over KernelBench levels", "",
             "Would a trivial output pass KernelBench's `torch.allclose(reference, output, atol=tol, rtol=tol)`? "
             "Zeros, and a constant equal to the reference's mean. %s, PyTorch %s, CUDA %s, seed %s, %s."
             % (meta.get("device", "?"), meta.get("torch", "?"), meta.get("cuda", "?"), meta.get("seed", "?"),
                meta.get("date_utc", "?")), "",
             "## Summary", "",
             "| version | level | problems | ran | zeros pass 1e-2 | zeros pass 1e-4 | mean pass 1e-2 | mean pass 1e-4 | skipped |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for g in summarize(rows):
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d |" % (
            g["version"], g["level"], g["problems"], g["ran"], g.get("zeros_pass_0.01", 0), g.get("zeros_pass_0.0001", 0),
            g.get("mean_pass_0.01", 0), g.get("mean_pass_0.0001", 0), g["skipped"]))
    lines.append("")
    for g in summarize(rows):
        lines.append("- %s level %d: %d of %d accept zeros at 1e-2 (%d at 1e-4); %d accept the mean at 1e-2."
                     % (g["version"], g["level"], g.get("zeros_pass_0.01", 0), g["ran"], g.get("zeros_pass_0.0001", 0),
                        g.get("mean_pass_0.01", 0)))
    comparison = suite_comparison(rows, suite_rows)
    if comparison:
        versions = sorted({r["version"] for r in rows}, key=lambda v: (v != "v0", v))
        lines += ["", "## Against the workbench's problem suite",
                  "", "The suite's spec problems (`datasets/evaluations/zero_acceptance_h200.csv`, all inputs "
                  "`torch.rand`) beside the level-1 file of the same number: max abs of the output, and whether zeros "
                  "pass at 1e-2.", "",
                  "| suite problem | suite | " + " | ".join("%s file" % v for v in versions) + " |",
                  "|---|---|" + "---|" * len(versions)]
        for name, smax, spass, per in comparison:
            cells = []
            for v in versions:
                r = per.get(v)
                if r is None:
                    cells.append("")
                elif r.get("status") != "ok":
                    cells.append("%s: %s" % (r["problem"], r.get("status")))
                else:
                    cells.append("%s: %s, %s" % (r["problem"], fmt(r["max_abs"]), yes(r["zeros_pass_0.01"])))
            lines.append("| %s | %s, %s | %s |" % (name, fmt(smax), yes(spass), " | ".join(cells)))
    for version, level in [(g["version"], g["level"]) for g in summarize(rows)]:
        lines += ["", "## %s level %d" % (version, level), "",
                  "| problem | shape | max abs | RMS | zeros 1e-2 | zeros 1e-4 | mean 1e-2 | mean 1e-4 | forward ms | note |",
                  "|---|---|---:|---:|:---:|:---:|:---:|:---:|---:|---|"]
        for r in sorted((r for r in rows if r["version"] == version and r["level"] == level),
                        key=lambda r: (problem_number(r["problem"]), r["problem"])):
            if r.get("status") != "ok":
                lines.append("| %s | | | | | | | | | %s: %s |" % (r["problem"], r.get("status"),
                                                                 r.get("reason", "").replace("|", "/")[:120]))
                continue
            shape = r["shape"] if isinstance(r["shape"][0] if r["shape"] else 0, int) else "%d outputs" % len(r["shape"])
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["problem"], "x".join(map(str, shape)) if isinstance(shape, list) else shape,
                fmt(r["max_abs"]), fmt(r["rms"]), yes(r["zeros_pass_0.01"]), yes(r["zeros_pass_0.0001"]),
                yes(r["mean_pass_0.01"]), yes(r["mean_pass_0.0001"]), fmt(r.get("forward_ms")),
                ("%d non-finite" % r["nonfinite"]) if r.get("nonfinite") else ""))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=DEFAULT_ROOT, help="folder holding VERSION/KernelBench/levelL (default: %(default)s)")
    ap.add_argument("--versions", nargs="+", default=["v0", "current"])
    ap.add_argument("--levels", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--only", nargs="*", help="problem file names containing any of these")
    ap.add_argument("--out", default="out/zero_acceptance")
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per problem (default %(default)s)")
    ap.add_argument("--level3-timeout", type=float, default=45.0)
    ap.add_argument("--budget", type=float, default=0, help="total seconds; later problems are skipped (0: none)")
    ap.add_argument("--start-timeout", type=float, default=120.0)
    ap.add_argument("--fresh", action="store_true", help="ignore rows already in the JSONL")
    ap.add_argument("--suite-csv", default=os.path.join(HERE, "..", "datasets", "evaluations", "zero_acceptance_h200.csv"),
                    help="the problem suite's table, compared in the Markdown (default: %(default)s)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker_main(args.device, args.seed)

    os.makedirs(args.out, exist_ok=True)
    jsonl = os.path.join(args.out, JSONL_NAME)
    if args.fresh and os.path.exists(jsonl):
        os.remove(jsonl)
    done = load_done(jsonl)
    # Rows from a previous run that were skipped for the total budget are retried.
    done = {k: v for k, v in done.items() if v.get("status") != "budget"}
    jobs = list_jobs(args.root, args.versions, args.levels, args.only)
    if not jobs:
        print("zero_acceptance_levels.py: no problem files under %s" % args.root, file=sys.stderr)
        return 2
    start = time.monotonic()
    meta = {"seed": args.seed, "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "device": args.device}
    worker = None
    rows = {}
    with open(jsonl, "a") as sink:
        for i, job in enumerate(jobs):
            key = job_key(job)
            if key in done:
                rows[key] = done[key]
                continue
            row = {k: job[k] for k in ("version", "level", "problem")}
            if args.budget and time.monotonic() - start > args.budget:
                row.update(status="budget", reason="total budget of %g s spent" % args.budget)
                rows[key] = row
                continue
            if worker is None:
                try:
                    worker = Worker(args, os.path.join(args.out, "worker.stderr.log"))
                    meta.update({k: worker.hello.get(k) for k in ("torch", "cuda", "device")})
                except RuntimeError as e:
                    print("zero_acceptance_levels.py: %s" % e, file=sys.stderr)
                    return 2
            timeout = args.level3_timeout if job["level"] == 3 else args.timeout
            t0 = time.monotonic()
            res = worker.run(job, timeout)
            if res is None:
                row.update(status="timeout", reason="no result within %g s" % timeout)
                worker.kill()
                worker = None
            elif res.get("eof"):
                row.update(status="crash", reason="worker died: " + worker.stderr_tail())
                worker.kill()
                worker = None
            else:
                row = res
                if worker.proc.poll() is not None:  # exited after a fatal CUDA error
                    worker.kill()
                    worker = None
            row["wall_s"] = round(time.monotonic() - t0, 3)
            rows[key] = row
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            mark = ("zeros@1e-2 %-5s zeros@1e-4 %-5s mean@1e-2 %-5s" % (row["zeros_pass_0.01"], row["zeros_pass_0.0001"],
                    row["mean_pass_0.01"])) if row.get("status") == "ok" else "%s: %s" % (row["status"], row.get("reason", ""))
            print("[%3d/%d] %-7s L%d %-48s %s (%.1f s)" % (i + 1, len(jobs), job["version"], job["level"],
                                                           job["problem"][:48], mark[:110], row["wall_s"]), flush=True)
    if worker is not None:
        worker.proc.stdin.close()  # the worker ends at EOF on stdin
        try:
            worker.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        worker.kill()
    ordered = [rows[job_key(j)] for j in jobs if job_key(j) in rows]
    meta_path = os.path.join(args.out, "zero_acceptance_levels.meta.json")
    if "torch" not in meta and os.path.exists(meta_path):  # everything came from a previous run
        with open(meta_path) as f:
            meta = json.load(f)
    else:
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
    with open(os.path.join(args.out, MD_NAME), "w") as f:
        f.write(render_markdown(ordered, meta, read_suite_csv(args.suite_csv)))
    print("\nsummary (%s, %.0f s):" % (meta.get("device"), time.monotonic() - start))
    for g in summarize(ordered):
        print("  %-7s level %d: %3d of %3d accept zeros at 1e-2, %3d at 1e-4; mean accepted at 1e-2: %3d; skipped %d"
              % (g["version"], g["level"], g.get("zeros_pass_0.01", 0), g["ran"], g.get("zeros_pass_0.0001", 0),
                 g.get("mean_pass_0.01", 0), g["skipped"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
