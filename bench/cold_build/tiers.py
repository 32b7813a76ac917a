"""How fast a KernelBench sample's .cu compiles under each header tier of
kwb_fast_build, and whether its device code stays the same. Run on a GPU
machine with PyTorch (not a test):

    python3 bench/cold_build/tiers.py RAW_DATA.json N_SAMPLES LANES OUT_DIR

For N distinct leaderboard samples, load_inline writes its build folder as it
would (main.cpp, cuda.cu, build.ninja; nothing is built), then the .cu's
compile edge runs, LANES samples at a time, under:

  types   the source with <torch/extension.h> replaced by <torch/types.h>
          (kwb_fast_build's middle tier)
  light   the same, with <torch/types.h> resolved to the sample's light
          prelude (kwb_fast_build.light_prelude: per-operator headers)
  min     the light prelude without the autograd factories, operators and
          dispatch macros: a lower bound, not a tier

Each variant's SASS is compared with the types build's (cuobjdump -sass, the
module's name hash stripped). One JSON line per sample, then a summary line.
Also writes OUT/phases_*.csv (nvcc --time) for the first sample.
"""
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "app", "runner", "bridge"))
import kwb_fast_build as fb  # noqa: E402
from probe import distinct_samples, ninja_steps, spread  # noqa: E402
from variants import run, sass  # noqa: E402


class Written(Exception):
    pass


def write_build_folders(samples, out_dir):
    """load_inline writes each sample's folder; its ninja run is cut off."""
    import torch.utils.cpp_extension as c
    original = c.load_inline

    def stop(*a, **k):
        raise Written()
    c._run_ninja_build = stop
    folders = []
    for i, r in enumerate(samples):
        d = os.path.join(out_dir, "s%d" % i)
        os.makedirs(d, exist_ok=True)
        captured = {}

        def routed(*a, **k):
            k["build_directory"] = d
            k["verbose"] = False
            k["name"] = "kwb_tier_%d" % i
            captured["cuda_sources"] = k.get("cuda_sources", a[2] if len(a) > 2 else None)
            return original(*a, **k)
        c.load_inline = routed
        try:
            exec(compile(r["code"], "sample.py", "exec"), {"__name__": "sample"})
        except Written:
            folders.append((i, d, captured.get("cuda_sources")))
        except BaseException as e:  # noqa: BLE001 - a sample that fails before its build is skipped
            print(json.dumps({"lane": i, "skipped": repr(e)[:200]}), flush=True)
    c.load_inline = original
    return folders


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:240]
    return text.strip()[-240:]


def lane(i, d, cuda_sources, torch_include, phases_dir):
    steps = ninja_steps(d)
    cu = next(((o, c) for o, c in steps if o.endswith(".cuda.o")), None)
    res = {"lane": i}
    if cu is None:
        res["no_cu"] = True
        return res
    out, cmd = cu
    src = re.search(r"-c (\S+\.cu)", cmd).group(1)
    text = open(os.path.join(d, src)).read()
    types_text = re.sub(r"#include\s*<torch/extension\.h>", "#include <torch/types.h>", text)
    with open(os.path.join(d, "v_types.cu"), "w") as f:
        f.write(types_text)
    prelude = fb.light_prelude(cuda_sources, torch_include)
    res["prelude_lines"] = prelude.count("\n") if prelude else None
    minimal = "\n".join(l for l in (prelude or "").splitlines()
                        if not any(h in l for h in fb.PRELUDE_HEADERS[1:] + fb.FACTORY_HEADERS + (fb.DISPATCH_HEADER,)))
    minimal = minimal if prelude else None
    variants = {"types": ("", "v_types.o")}
    for name, body in (("light", prelude), ("min", minimal)):
        if body is None:
            continue
        shadow = os.path.join(d, "shadow_" + name)
        os.makedirs(os.path.join(shadow, "torch"), exist_ok=True)
        with open(os.path.join(shadow, "torch", "types.h"), "w") as f:
            f.write(body)
        variants[name] = ("-I%s" % shadow, "v_%s.o" % name)
    base = None
    for name, (flag, obj) in variants.items():
        c = cmd.replace(src, "v_types.cu").replace(out, obj)
        if flag:
            c = c.replace(" -c ", " %s -c " % flag, 1)
        if phases_dir and i == 0:
            c = c.replace(" -c ", " --time %s -c " % os.path.join(phases_dir, "phases_%s.csv" % name), 1)
        s, rc, tail = run(c, d)
        res[name + "_s"] = round(s, 2)
        res[name + "_rc"] = rc
        if rc != 0:
            res[name + "_err"] = first_error(tail)
            continue
        ss = sass(os.path.join(d, obj))
        if name == "types":
            base = ss
        elif base is not None and ss is not None:
            res[name + "_sass_same"] = ss == base
    return res


def main():
    raw, n, lanes, out_dir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    import torch
    import torch.utils.cpp_extension as c
    torch_include = c.include_paths()
    samples = distinct_samples(raw)
    picked = spread(samples, n)
    os.makedirs(out_dir, exist_ok=True)
    print(json.dumps({"torch": torch.__version__, "include": torch_include, "distinct": len(samples)}), flush=True)
    folders = write_build_folders(picked, out_dir)
    t0 = time.perf_counter()
    results = []
    with cf.ThreadPoolExecutor(max_workers=lanes) as ex:
        futs = {ex.submit(lane, i, d, cs, torch_include, out_dir): i for i, d, cs in folders}
        for f in cf.as_completed(futs):
            r = f.result()
            r["sample"] = picked[r["lane"]]["file"]
            r["level"] = picked[r["lane"]]["level"]
            results.append(r)
            print(json.dumps(r), flush=True)

    def med(key):
        v = sorted(r[key] for r in results if r.get(key.replace("_s", "_rc"), 1) == 0)
        return v[len(v) // 2] if v else None

    summary = {"summary": True, "samples": len(results), "lanes": lanes, "wall_s": round(time.perf_counter() - t0, 1)}
    for v in ("types", "light", "min"):
        summary[v + "_median_s"] = med(v + "_s")
        summary[v + "_failed"] = sum(1 for r in results if r.get(v + "_rc", 0) != 0)
        summary[v + "_sass_differs"] = sum(1 for r in results if r.get(v + "_sass_same") is False)
    # Paired: the light tier's time over the types tier's, on samples both built.
    ratios = sorted(r["light_s"] / r["types_s"] for r in results if r.get("light_rc") == 0 and r.get("types_rc") == 0)
    summary["light_over_types_median"] = round(ratios[len(ratios) // 2], 3) if ratios else None
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
