#!/usr/bin/env python3
"""Runs the KernelBench security fixtures (tests/data/kernelbench_bridge/
security_manifest.json) through a PyTorch bridge over kwb.rerun/1 and writes
one JSON line per fixture: the result's status, message, check members and
wall time. tests/gpu/bridge_security_validation.sh runs it twice, through the
judge (app/runner/kwb_torch_bridge.py) and through the pre-issue-12
in-process bridge (tests/data/kernelbench_bridge/baseline/), to put the
verdicts and the separation's cost side by side; flags come from kwb (the
core derives them), not from here.

    security_driver.py --bridge SCRIPT --data DIR --out FILE [--trials N] [--repeat R] [--records FILE]

--records also writes the fixtures as kwb.record/1 lines (for kwb rerun --record).
Needs python3 with torch only inside the bridge it starts; this script imports no torch.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NAMES = {1: "1_ReLU", 2: "2_Softmax", 3: "3_Square_matrix_multiplication", 4: "4_Matmul_with_diagonal_matrices"}
MEMBERS = ("coverage", "outputs", "inputs", "candidate_timing", "reference_timing", "speedup", "candidate_cupti",
           "checks_run", "fresh_inputs", "post_timing", "host_timing", "per_call_timing", "own_kernels", "adversarial",
           "isolation", "sanitizer")


def fixtures(data):
    with open(os.path.join(data, "security_manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    out = []
    for e in manifest:
        if "sample" in e:
            path = os.path.join(data, e["sample"])
        else:
            path = os.path.normpath(os.path.join(ROOT, e["peer_sample"]))
        problem = os.path.join(data, "KernelBench", "level%d" % e["level"], NAMES[e["problem_id"]] + ".py")
        fid = os.path.splitext(os.path.basename(path))[0]
        out.append((fid, path, problem, e))
    return out


def request(rid, fid, sample_path, problem_path, entry, trials):
    with open(sample_path, encoding="utf-8") as f:
        source = f.read()
    with open(problem_path, encoding="utf-8") as f:
        problem_source = f.read()
    name = os.path.splitext(os.path.basename(problem_path))[0]
    options = {"trials": trials, "warmup": 3, "correctness_trials": 2, "coverage_rows": 32, "coverage_cols": 32,
               "l2_flush": True, "cupti": True, "seed": 42, "sizes": {}, "time_reference": True, "timeout_s": 300.0,
               # Issue 12's checks, all on (the runner's option names; adversarial and per-call are off by default).
               "fresh_inputs": True, "check_every": 5, "post_timing": True, "reset_persisting_l2": True,
               "host_timer": True, "adversarial": True}
    options.update(entry.get("options") or {})
    return {"protocol": "kwb.rerun/1", "type": "rerun", "id": rid,
            "problem": {"schema": "kwb.problem/1", "id": "kernelbench_L1_" + name, "name": name, "level": 1,
                        "suite": "KernelBench", "precision": "fp32", "tolerance": {"policy": "kernelbench"},
                        "reference": {"builtin": "kernelbench_model"}, "inputs": [], "outputs": [], "sizes": {},
                        "seed": {"base": 42, "policy": "per_trial"}},
            "candidate": {"schema": "kwb.candidate/1", "id": fid, "form": "kernelbench_sample", "source": source,
                          "problem": "kernelbench_L1_" + name},
            "kernelbench": {"problem_file": "KernelBench/level1/%s.py" % name, "problem_source": problem_source},
            "options": options}


class Bridge:
    def __init__(self, script, log):
        self.proc = subprocess.Popen([sys.executable, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=log, text=True, bufsize=1)

    def send(self, obj):
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def until(self, rid, kind, forged):
        """The reply of `kind` for `rid`; other result lines (forged ones) are counted."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                return None
            try:
                m = json.loads(line)
            except ValueError:
                forged.append(line[:200])
                continue
            if m.get("type") == kind and m.get("id") == rid:
                if kind == "result" and m.get("status") == "ok" and "wall_ms" not in m:
                    forged.append(line[:200])  # a result line the bridge did not write (it always sets wall_ms)
                    continue
                return m
            if m.get("type") == "result":
                forged.append(line[:200])

    def close(self):
        try:
            self.send({"protocol": "kwb.rerun/1", "type": "shutdown", "id": "bye"})
            self.proc.wait(timeout=60)
        except Exception:
            self.proc.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bridge", required=True)
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "data", "kernelbench_bridge"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--records", default="")
    a = ap.parse_args()
    items = fixtures(a.data)
    if a.only:
        keep = set(a.only.split(","))
        items = [i for i in items if i[0] in keep]
    if a.records:
        with open(a.records, "w", encoding="utf-8") as f:
            for fid, path, problem, e in items:
                with open(path, encoding="utf-8") as src:
                    code = src.read()
                f.write(json.dumps({"schema": "kwb.record/1", "id": fid,
                                    "problem": {"suite": "KernelBench", "level": e["level"], "id": e["problem_id"],
                                                "name": NAMES[e["problem_id"]]},
                                    "model": "kwb-security-fixture", "run": "security-fixtures", "sample": 0,
                                    "status": {"outcome": "unknown"},
                                    "source": {"code": code, "language": "python+cuda"}}) + "\n")
    log = open(a.out + ".stderr", "w")
    bridge = Bridge(a.bridge, log)
    t0 = time.time()
    bridge.send({"protocol": "kwb.rerun/1", "type": "hello", "id": "hello"})
    caps = bridge.until("hello", "capabilities", [])
    with open(a.out, "w", encoding="utf-8") as out:
        out.write(json.dumps({"capabilities": caps, "startup_s": time.time() - t0}) + "\n")
        for rep in range(a.repeat):
            for fid, path, problem, e in items:
                rid = "%s-%d" % (fid, rep)
                forged = []
                t1 = time.time()
                bridge.send(request(rid, fid, path, problem, e, a.trials))
                r = bridge.until(rid, "result", forged)
                row = {"fixture": fid, "repeat": rep, "class": e.get("class"), "expect_flags": e.get("expect_flags", []),
                       "honest": bool(e.get("honest")), "round_trip_s": time.time() - t1,
                       "forged_lines_seen_by_kwb": forged}
                if r is None:
                    row["status"] = "bridge_died"
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    log.flush()
                    bridge = Bridge(a.bridge, log)
                    bridge.send({"protocol": "kwb.rerun/1", "type": "hello", "id": "hello"})
                    bridge.until("hello", "capabilities", [])
                    continue
                row.update({k: r.get(k) for k in ("status", "message", "wall_ms", "overhead_ms", "compile_ms",
                                                  "compile_cache_hit")})
                row.update({k: r[k] for k in MEMBERS if k in r})
                out.write(json.dumps(row) + "\n")
                out.flush()
                print("%-22s %-12s wall %8.0f ms  %s" % (fid, row.get("status"), float(row.get("wall_ms") or 0),
                                                         (row.get("message") or "")[:100]), flush=True)
    bridge.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
