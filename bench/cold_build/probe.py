"""Where a KernelBench sample's cold load_inline build spends its time, and
what cuts it. Run on a GPU machine with PyTorch (not a test):

    python3 bench/cold_build/probe.py RAW_DATA.json N_SAMPLES OUT_DIR

For the first sample: a cold build through load_inline (a fresh build
folder), then each step of the build.ninja it wrote timed alone (the pybind
binding unit main.cpp, the .cu unit, the link), then the binding unit again
with a precompiled torch/extension.h (same flags), to see what a PCH saves.
For N samples: all built at once, one process each (what kwb verify's build
pool does), wall time and per-sample times. Prints one JSON line per finding.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


def build_one(code, build_dir, env_extra=None):
    """Imports the sample in a child with load_inline routed to build_dir."""
    script = r'''
import sys, time, torch.utils.cpp_extension as c
orig = c.load_inline
def routed(*a, **k):
    k["build_directory"] = sys.argv[1]
    k["verbose"] = False
    return orig(*a, **k)
c.load_inline = routed
src = open(sys.argv[2]).read()
t = time.perf_counter()
exec(compile(src, "sample.py", "exec"), {"__name__": "sample"})
print("BUILT %.2f" % (time.perf_counter() - t))
'''
    os.makedirs(build_dir, exist_ok=True)
    sample = os.path.join(build_dir, "sample_src.py")
    with open(sample, "w") as f:
        f.write(code)
    env = dict(os.environ)
    env.update(env_extra or {})
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", script, build_dir, sample], capture_output=True, text=True, env=env)
    return time.perf_counter() - t, p.returncode, (p.stdout + p.stderr)[-1500:]


def distinct_samples(raw):
    """The leaderboard's distinct load_inline samples, in file order."""
    seen, samples = set(), []
    for r in json.load(open(raw)):
        if r["code"] not in seen and "load_inline" in r["code"]:
            seen.add(r["code"])
            samples.append(r)
    return samples


def spread(samples, n):
    """N of them spread over levels and models: every k-th, a fixed choice."""
    return samples[::max(1, len(samples) // n)][:n]


def ninja_steps(build_dir):
    """(name, command) of each build edge in build.ninja, variables expanded."""
    text = open(os.path.join(build_dir, "build.ninja")).read()
    text = text.replace("$\n", " ")
    var = {}
    rules = {}
    edges = []
    cur_rule = None
    for line in text.splitlines():
        if line.startswith("rule "):
            cur_rule = line.split()[1]
            rules[cur_rule] = {}
        elif line.startswith("  ") and cur_rule and "=" in line:
            k, v = line.strip().split("=", 1)
            rules[cur_rule][k.strip()] = v.strip()
        elif line.startswith("build "):
            cur_rule = None
            m = re.match(r"build (.+?): (\S+) (.*)", line)
            if m:
                edges.append((m.group(1).strip(), m.group(2), m.group(3).strip()))
        elif "=" in line and not line.startswith(" "):
            k, v = line.split("=", 1)
            var[k.strip()] = v.strip()
            cur_rule = None

    def expand(s, local):
        for _ in range(5):
            s = re.sub(r"\$(\w+)", lambda m: local.get(m.group(1), var.get(m.group(1), "")), s)
        return s

    out = []
    for outs, rule, ins in edges:
        cmd = rules.get(rule, {}).get("command")
        if not cmd:
            continue
        out.append((outs, expand(cmd, {"out": outs, "in": ins})))
    return out


def main():
    raw, n, out_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    samples = distinct_samples(raw)
    os.makedirs(out_dir, exist_ok=True)
    first = samples[0]
    bdir = os.path.join(out_dir, "one")
    secs, rc, tail = build_one(first["code"], bdir)
    print(json.dumps({"cold_build_s": round(secs, 2), "rc": rc, "sample": first["file"], "tail": tail[-300:]}), flush=True)
    if rc == 0:
        for outs, cmd in ninja_steps(bdir):
            t = time.perf_counter()
            p = subprocess.run(cmd, shell=True, cwd=bdir, capture_output=True, text=True)
            print(json.dumps({"step": outs, "s": round(time.perf_counter() - t, 2), "rc": p.returncode,
                              "cmd": cmd[:160]}), flush=True)
            if outs.endswith("main.o") and p.returncode == 0:
                # The same unit with torch/extension.h precompiled under the same flags.
                pch_dir = os.path.join(bdir, "pch", "torch")
                os.makedirs(pch_dir, exist_ok=True)
                flags = cmd.split(" -c ")[0]
                t = time.perf_counter()
                hdr = subprocess.run("echo '#include <torch/extension.h>' | %s -x c++-header -o %s -" % (
                    flags, os.path.join(pch_dir, "extension.h.gch")), shell=True, cwd=bdir, capture_output=True, text=True)
                pch_s = time.perf_counter() - t
                cmd2 = cmd.replace(" -c ", " -I%s -Winvalid-pch -c " % os.path.join(bdir, "pch"), 1)
                t = time.perf_counter()
                p2 = subprocess.run(cmd2, shell=True, cwd=bdir, capture_output=True, text=True)
                print(json.dumps({"step": "main.o with PCH", "pch_build_s": round(pch_s, 2), "pch_rc": hdr.returncode,
                                  "s": round(time.perf_counter() - t, 2), "rc": p2.returncode,
                                  "err": (hdr.stderr + p2.stderr)[-400:]}), flush=True)
    # N samples at once, one process each.
    batch = samples[1:1 + n]
    t0 = time.perf_counter()
    procs = []
    for i, r in enumerate(batch):
        d = os.path.join(out_dir, "pool", str(i))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "s.py"), "w") as f:
            f.write(r["code"])
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(max_workers=len(batch)) as ex:
        futs = [ex.submit(build_one, r["code"], os.path.join(out_dir, "pool", str(i))) for i, r in enumerate(batch)]
        res = [f.result() for f in futs]
    wall = time.perf_counter() - t0
    times = sorted(s for s, rc, _ in res)
    print(json.dumps({"parallel_samples": len(batch), "wall_s": round(wall, 1), "ok": sum(rc == 0 for _, rc, _ in res),
                      "median_s": round(times[len(times) // 2], 1), "max_s": round(times[-1], 1),
                      "samples_per_min": round(60 * len(batch) / wall, 1), "cpus": os.cpu_count()}), flush=True)


if __name__ == "__main__":
    main()
