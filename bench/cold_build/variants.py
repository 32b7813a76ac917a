"""What cuts a KernelBench sample's cold build, measured per sample on a GPU
machine with PyTorch (not a test):

    python3 bench/cold_build/variants.py RAW_DATA.json N_SAMPLES OUT_DIR

For each of N distinct leaderboard samples (one lane per sample, lanes in
parallel): a cold load_inline build in a fresh folder, then the two compile
edges of the build.ninja it wrote, each timed alone under variants:

  cu            the .cu as load_inline compiles it
  cu_types      the same source with <torch/extension.h> replaced by <torch/types.h>
                (the .cu needs tensors, not pybind11 or the C++ frontend)
  cu_host_O1    host optimisation -O1 instead of -O3 (device code unchanged)
  cu_types_O1   both
  main          the pybind binding unit
  main_pch      the binding unit with torch/extension.h precompiled (-include, same flags)

Each variant's device code is compared with the original's (cuobjdump -sass,
with the module's name hash stripped): a variant that changes the SASS is
reported. Prints one JSON line per finding and a summary line.
"""
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe import build_one, distinct_samples, ninja_steps, spread  # noqa: E402

CUOBJDUMP = "/usr/local/cuda/bin/cuobjdump"


def run(cmd, cwd):
    t = time.perf_counter()
    p = subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t, p.returncode, (p.stdout + p.stderr)[-600:]


def sass(obj):
    p = subprocess.run([CUOBJDUMP, "-sass", obj], capture_output=True, text=True)
    text = "\n".join(l for l in p.stdout.splitlines() if not l.strip().startswith(("Fatbin", "code for", "arch", "host",
                                                                                  "compile_size", "identifier")))
    return re.sub(r"_kwb[0-9a-f]+|\s+", " ", text) if p.returncode == 0 else None


def lane(i, code, out_dir):
    d = os.path.join(out_dir, "s%d" % i)
    secs, rc, tail = build_one(code, d)
    res = {"lane": i, "cold_build_s": round(secs, 2), "rc": rc}
    if rc != 0:
        res["tail"] = tail[-300:]
        return res
    steps = ninja_steps(d)
    cu = next(((o, c) for o, c in steps if o.endswith(".cuda.o")), None)
    main = next(((o, c) for o, c in steps if o.endswith("main.o")), None)
    if cu:
        out, cmd = cu
        src = re.search(r"-c (\S+\.cu)", cmd).group(1)
        text = open(os.path.join(d, src)).read()
        types_src = src.replace(".cu", "_types.cu")
        with open(os.path.join(d, types_src), "w") as f:
            f.write(text.replace("#include <torch/extension.h>", "#include <torch/types.h>"))
        host_o1 = re.sub(r"(?<!\S)-O3(?!\S)", "-O1", cmd)
        variants = {
            "cu": cmd,
            "cu_types": cmd.replace(src, types_src).replace(out, "v_types.o"),
            "cu_host_O1": host_o1.replace(out, "v_o1.o"),
            "cu_types_O1": host_o1.replace(src, types_src).replace(out, "v_types_o1.o"),
        }
        objs = {"cu": out, "cu_types": "v_types.o", "cu_host_O1": "v_o1.o", "cu_types_O1": "v_types_o1.o"}
        base_sass = None
        for name, c in variants.items():
            s, r, t = run(c, d)
            res[name + "_s"] = round(s, 2)
            res[name + "_rc"] = r
            if r != 0:
                res[name + "_err"] = t[-300:]
                continue
            ss = sass(os.path.join(d, objs[name]))
            if name == "cu":
                base_sass = ss
            elif base_sass is not None and ss is not None:
                res[name + "_sass_same"] = ss == base_sass
        res["cu_includes_extension_h"] = "#include <torch/extension.h>" in text
    if main:
        out, cmd = main
        s, r, t = run(cmd, d)
        res["main_s"] = round(s, 2)
        pch_dir = os.path.join(d, "pch")
        os.makedirs(pch_dir, exist_ok=True)
        hdr = os.path.join(pch_dir, "kwb_torch_extension.h")
        with open(hdr, "w") as f:
            f.write("#pragma once\n#include <torch/extension.h>\n")
        flags = cmd.split(" -c ")[0]
        s, r, t = run("%s -x c++-header %s -o %s.gch" % (flags, hdr, hdr), d)
        res["pch_build_s"] = round(s, 2)
        res["pch_rc"] = r
        if r == 0:
            c2 = cmd.replace(" -c ", " -include %s -Winvalid-pch -c " % hdr, 1).replace(out, "v_main_pch.o")
            s, r, t = run(c2, d)
            res["main_pch_s"] = round(s, 2)
            res["main_pch_rc"] = r
            if r != 0:
                res["main_pch_err"] = t[-300:]
    return res


def main():
    raw, n, out_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    picked = spread(distinct_samples(raw), n)
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(max_workers=n) as ex:
        futs = [ex.submit(lane, i, r["code"], out_dir) for i, r in enumerate(picked)]
        results = []
        for i, f in enumerate(futs):
            r = f.result()
            r["sample"] = picked[i]["file"]
            r["level"] = picked[i]["level"]
            r["model"] = picked[i]["model"]
            results.append(r)
            print(json.dumps(r), flush=True)

    def med(key):
        v = sorted(r[key] for r in results if key in r and r.get(key.replace("_s", "_rc"), 0) == 0)
        return v[len(v) // 2] if v else None

    print(json.dumps({"summary": True, "lanes": n, "wall_s": round(time.perf_counter() - t0, 1),
                      **{k + "_median": med(k) for k in ("cold_build_s", "cu_s", "cu_types_s", "cu_host_O1_s",
                                                         "cu_types_O1_s", "main_s", "main_pch_s", "pch_build_s")},
                      "types_failed": sum(1 for r in results if r.get("cu_types_rc", 0) != 0),
                      "types_sass_differs": sum(1 for r in results if r.get("cu_types_sass_same") is False)}),
          flush=True)


if __name__ == "__main__":
    main()
