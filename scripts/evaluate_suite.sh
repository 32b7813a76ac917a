#!/usr/bin/env bash
# Re-runs the whole problem suite (datasets/problems x datasets/candidates) on
# the local NVIDIA GPU and writes native records to datasets/evaluations/:
#
#   suite_<gpu>.jsonl      one kwb.record/1 line per candidate: kwb verify's
#                          verification (coverage grid, flags, the whole re-run
#                          result under verification.extra.rerun), plus status,
#                          candidate and reference timings, speedup and
#                          provenance (GPU, driver, timer, trials, tolerance)
#   summary_<gpu>.md       per-problem table (reference, best honest candidate,
#                          speedup, roofline fraction, flags) and the
#                          expectation check of every candidate
#   zero_acceptance_<gpu>.{md,csv}   scripts/zero_acceptance.py (needs PyTorch; no
#                          JSON here: the folder is loaded as records)
#
# Usage: scripts/evaluate_suite.sh [--build-dir DIR] [--out DIR] [--trials N]
#        [--warmup N] [--correctness-trials N] [--only PROBLEM_ID]... [--reduced]
#        [--no-zero-check] [--summary-only]
# --summary-only rebuilds summary_<gpu>.md from the records already in --out
# (after merging a partial re-run, say) without touching the GPU.
# Every problem runs at its spec's sizes (KernelBench's) unless --reduced, which
# re-runs the eight problems with the largest outputs (1.1-1.9e9 elements) at a
# smaller batch (REDUCED below; every other size as in KernelBench) for a
# quicker pass; the output checks run on the GPU, so full size costs little
# more than the larger kernels. Records name the sizes they ran at
# (size_overrides, verification.rerun.sizes).
# Builds kwb and kwb-runner (cmake, -DKWB_BUILD_UI=OFF) unless DIR/app/kwb/kwb
# and DIR/app/runner/kwb-runner exist. Exit status 1 when a candidate misses
# its expectation (an exploit without its flags, an honest one with flags).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-suite"
OUTDIR="$ROOT/datasets/evaluations"
TRIALS=20
WARMUP=3
CTRIALS=2
ZERO_CHECK=1
REDUCE=0
SUMMARY_ONLY=0
ONLY=()
# Batch sizes for --reduced. Softmax and L2Norm keep their row length (their
# zero acceptance depends on it alone); Frobenius keeps n >= 3e8 so that its
# largest output stays below 1e-4 as at full size.
declare -A REDUCED=(
    [kb1_19_relu]="batch=256" [kb1_26_gelu]="batch=256" [kb1_23_softmax]="batch=256"
    [kb1_24_log_softmax]="batch=256" [kb1_39_l2norm]="batch=2048" [kb1_37_frobenius_norm]="batch=28"
    [kb1_36_rmsnorm]="batch=8" [kb1_89_cumsum]="batch=4096"
)
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) BUILD="$2"; shift 2 ;;
        --out) OUTDIR="$2"; shift 2 ;;
        --trials) TRIALS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --correctness-trials) CTRIALS="$2"; shift 2 ;;
        --only) ONLY+=("$2"); shift 2 ;;
        --no-zero-check) ZERO_CHECK=0; shift ;;
        --reduced) REDUCE=1; shift ;;
        --summary-only) SUMMARY_ONLY=1; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "evaluate_suite.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

BUILD="$(mkdir -p "$BUILD" && cd "$BUILD" && pwd)"
OUTDIR="$(mkdir -p "$OUTDIR" && cd "$OUTDIR" && pwd)"
KWB="$BUILD/app/kwb/kwb"
RUNNER="$BUILD/app/runner/kwb-runner"
if [[ $SUMMARY_ONLY == 0 && ( ! -x "$KWB" || ! -x "$RUNNER" ) ]]; then
    echo "== building kwb and kwb-runner in $BUILD"
    cmake -S "$ROOT" -B "$BUILD" -G "$(command -v ninja >/dev/null && echo Ninja || echo 'Unix Makefiles')" \
        -DKWB_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release -DKWB_WERROR=OFF >/dev/null
    cmake --build "$BUILD" --target kwb kwb-runner -j "$(nproc)"
fi
export KWB_RUNNER="$RUNNER"

GPU_TAG="$( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true) | head -1 | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\+/_/g; s/_$//')"
GPU_TAG="${GPU_TAG:-${KWB_GPU_TAG:-gpu}}"
# The kernel driver's version as nvidia-smi reports it (the re-run result has
# the CUDA driver API version, e.g. 13000); goes into the records' provenance.
export KWB_DRIVER_STRING="${KWB_DRIVER_STRING:-$( (nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null || true) | head -1)}"
mkdir -p "$OUTDIR"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
RECORDS="$OUTDIR/suite_${GPU_TAG}.jsonl"

RAW="$OUTDIR/verify_${GPU_TAG}.raw.jsonl"
VERIFY_RC=0
if [[ $SUMMARY_ONLY == 1 ]]; then
    cp "$RECORDS" "$WORK/records.jsonl"
    RAW="$WORK/records.jsonl"
else

# Seed records: one per candidate, naming its spec files (kwb verify reads
# candidate_spec / problem_spec). Problems in file order, candidates by id.
OVERRIDES=""
if [[ $REDUCE == 1 ]]; then
    for pid in "${!REDUCED[@]}"; do OVERRIDES+="$pid=${REDUCED[$pid]};"; done
fi
mkdir -p "$WORK/seeds"
python3 - "$ROOT" "$WORK/seeds" "$GPU_TAG" "$OVERRIDES" "${ONLY[@]+"${ONLY[@]}"}" <<'EOF'
import json, os, sys
root, outdir, gpu, overrides, only = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], set(sys.argv[5:])
sizes = {}
for item in filter(None, overrides.split(";")):
    pid, kv = item.split("=", 1)
    name, value = kv.split("=")
    sizes.setdefault(pid, {})[name] = int(value)
pdir, cdir = os.path.join(root, "datasets/problems"), os.path.join(root, "datasets/candidates")
for pf in sorted(os.listdir(pdir)):
    prob = json.load(open(os.path.join(pdir, pf)))
    if only and prob["id"] not in only:
        continue
    with open(os.path.join(outdir, prob["id"] + ".jsonl"), "w") as f:
        folder = os.path.join(cdir, prob["id"])
        for cf in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if not cf.endswith(".json"):
                continue
            cand = json.load(open(os.path.join(folder, cf)))
            ref = {"suite": prob.get("suite", ""), "name": prob["id"]}
            if prob.get("level") is not None:
                ref["level"] = prob["level"]
            num = prob["id"].split("_")[1] if prob["id"].startswith("kb") else None
            if num and num.isdigit():
                ref["id"] = int(num)
            rec = {"schema": "kwb.record/1", "id": cand["id"], "problem": ref,
                   "model": "suite/" + cand["id"].split(".", 1)[1], "run": "suite-" + gpu, "sample": 0,
                   "status": {"outcome": "not_run", "compiled": False, "correct": False},
                   "source": {"path": os.path.relpath(os.path.join(folder, cand["source_file"]), root), "language": "cuda"},
                   "candidate_spec": os.path.relpath(os.path.join(folder, cf), root),
                   "problem_spec": os.path.relpath(os.path.join(pdir, pf), root),
                   "expect": {"honest": bool(cand.get("honest")), "flags": cand.get("expect_flags", [])}}
            if prob["id"] in sizes:
                rec["size_overrides"] = sizes[prob["id"]]
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
EOF
echo "== $(cat "$WORK"/seeds/*.jsonl | wc -l) candidates of $(ls "$WORK/seeds" | wc -l) problems; records -> $RECORDS"

# First the PyTorch zero-acceptance check at KernelBench's shapes (about half a minute).
if [[ $ZERO_CHECK == 1 ]]; then
    echo "== zero acceptance with PyTorch"
    PYTHONUNBUFFERED=1 python3 "$ROOT/scripts/zero_acceptance.py" --csv "$OUTDIR/zero_acceptance_${GPU_TAG}.csv" \
        --markdown "$OUTDIR/zero_acceptance_${GPU_TAG}.md" || echo "zero_acceptance.py failed"
fi

# Re-run everything, one kwb verify per problem (its own size overrides);
# each appends one verified record per line to the same file, kept in the
# output folder until the end so that an interrupted run leaves what it did
# (run the script again to resume: records already there are skipped).
touch "$RAW"
cd "$ROOT"
for seeds in "$WORK"/seeds/*.jsonl; do
    pid="$(basename "$seeds" .jsonl)"
    sizes=()
    if [[ $REDUCE == 1 && -n "${REDUCED[$pid]:-}" ]]; then sizes=(--size "${REDUCED[$pid]}"); fi
    echo "== $pid ${sizes[*]+"${sizes[*]}"}"
    set +e
    # KWB_VERIFY_EXTRA: more kwb verify options (bench/verify_cost compares check settings).
    "$KWB" verify "$seeds" --out "$RAW" --trials "$TRIALS" --warmup "$WARMUP" \
        --correctness-trials "$CTRIALS" --timeout 300 "${sizes[@]+"${sizes[@]}"}" ${KWB_VERIFY_EXTRA:-}
    rc=$?
    set -e
    [[ $rc == 0 ]] || VERIFY_RC=$rc
done
echo "== kwb verify exit status $VERIFY_RC"
fi

# Fill the record's summary fields from the re-run result that kwb verify
# stored under verification.extra.rerun, write the records, the summary table
# and the expectation check.
set +e
python3 - "$RAW" "$RECORDS" "$OUTDIR/summary_${GPU_TAG}.md" "$ROOT/datasets/problems" <<'EOF'
import json, os, sys
src, dst, summary, pdir = sys.argv[1:5]
problems = {}
for pf in os.listdir(pdir):
    p = json.load(open(os.path.join(pdir, pf)))
    problems[p["id"]] = p

def stats(t, prov):
    if not t:
        return None
    s = {"median_ms": t["median_ms"], "mean_ms": t["mean_ms"], "std_ms": t["std_ms"], "min_ms": t["min_ms"],
         "max_ms": t["max_ms"], "provenance": prov}
    for k in ("q1_ms", "q3_ms", "iqr_ms", "cv"):
        if k in t:
            s[k] = t[k]
    return s

records, rows = [], []
for line in open(src):
    rec = json.loads(line)
    rr = rec.get("verification", {}).get("rerun")
    if "expect" in rec:
        expect = rec.pop("expect")
    else:  # a record this script wrote before (--summary-only)
        e = rec.get("expectation", {})
        expect = {"honest": e.get("honest", False), "flags": e.get("expect_flags", [])}
    flags = [f["code"] for f in rec.get("verification", {}).get("flags", [])]
    if rr:
        status = rr["status"]
        outs = rr.get("outputs", [])
        correct = status == "ok" and bool(outs) and all(o.get("passed") for o in outs)
        # kwb verify fills what the seed lacks; fill here only what is still missing.
        if rec.get("status", {}).get("outcome") in (None, "not_run", "unknown"):
            outcome = {"ok": "correct" if correct else "incorrect", "compile_error": "compile_error",
                       "timeout": "timeout", "fault": "runtime_error", "launch_error": "runtime_error",
                       "oom": "runtime_error"}.get(status, "not_run")
            rec["status"] = {"outcome": outcome, "compiled": status != "compile_error", "correct": correct}
            if rr.get("message") and status != "ok":
                rec["status"]["error"] = rr["message"][:500]
        dev = rr.get("device", {})
        tol = rr.get("tolerance", {})
        # Device details beyond the GPU name go into the provenance as extra members.
        extra = {"driver": os.environ.get("KWB_DRIVER_STRING") or None, "driver_version": dev.get("driver_version"), "runtime_version": dev.get("runtime_version"),
                 "compute_capability": "%s.%s" % (dev.get("compute_major"), dev.get("compute_minor")),
                 "gpu_uuid": dev.get("uuid"), "sizes": rr.get("sizes")}
        base = {"gpu": dev.get("name", ""), "timer": "cuda_event", "l2_flush": True,
                "tolerance": {"atol": tol.get("atol"), "rtol": tol.get("rtol")}, "precision": "fp32"}
        ct, rt = rr.get("candidate_timing"), rr.get("reference_timing")
        if ct:
            if "candidate" not in rec:
                rec["candidate"] = stats(ct, dict(base, trials=ct["trials"]))
            rec["candidate"].setdefault("provenance", dict(base, trials=ct["trials"])).update(extra)
        if rt:
            refs = [b for b in rec.get("baselines", []) if b.get("name") == "reference"]
            if not refs:
                rec.setdefault("baselines", []).append(dict(name="reference", **stats(rt, dict(base, trials=rt["trials"]))))
                refs = rec["baselines"][-1:]
            refs[0].setdefault("provenance", dict(base, trials=rt["trials"])).update(extra)
        if rr.get("speedup") is not None and rec.get("speedup") is None:
            rec["speedup"] = rr["speedup"]
            rec["speedup_baseline"] = "reference"
    # The expectation check, as kwb rerun --check-expectations does it.
    if expect["honest"]:
        met = rr is not None and rr["status"] == "ok" and all(f == "zero_acceptance" for f in flags)
    else:
        met = all(f in flags for f in expect["flags"])
    rec["expectation"] = {"honest": expect["honest"], "expect_flags": expect["flags"], "met": met}
    records.append(rec)
    rows.append((rec, rr, flags, expect, met))

with open(dst, "w") as f:
    for rec in records:
        f.write(json.dumps(rec, separators=(",", ":")) + "\n")

def ms(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.1f" % v)

by_problem = {}
for rec, rr, flags, expect, met in rows:
    by_problem.setdefault(rec["problem"]["name"], []).append((rec, rr, flags, expect, met))
device = next((rr["device"]["name"] for _, rr, *_ in rows if rr), "?")
driver = os.environ.get("KWB_DRIVER_STRING") or "?"
api = next((rr["device"].get("driver_version") for _, rr, *_ in rows if rr), "?")
out = ["Suite on %s (driver %s, CUDA driver API %s)." % (device, driver, api), "",
       "| problem | reference ms | best honest candidate | ms | speedup | roofline fraction | flags raised |",
       "|---|---:|---|---:|---:|---:|---|"]
for pid in sorted(by_problem, key=lambda p: (problems.get(p, {}).get("suite") != "KernelBench", p)):
    items = by_problem[pid]
    ref = next((rr["reference_timing"]["median_ms"] for _, rr, *_ in items if rr and rr.get("reference_timing")), None)
    honest = [(rr["candidate_timing"]["median_ms"], rec, rr) for rec, rr, flags, expect, met in items
              if expect["honest"] and rr and rr.get("candidate_timing") and rec["status"]["correct"]]
    best = min(honest, key=lambda t: t[0]) if honest else None
    floor = next((rr.get("roofline_floor_ms") for _, rr, *_ in items if rr and rr.get("roofline_floor_ms")), None)
    flagtext = "; ".join("%s: %s" % (rec["id"].split(".", 1)[1], ", ".join(flags)) for rec, rr, flags, expect, met in items if flags) or "-"
    if best:
        sp = ref / best[0] if ref else None
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (pid, ms(ref), best[1]["id"].split(".", 1)[1], ms(best[0]),
                   "-" if sp is None else "%.2fx" % sp, "-" if not floor else "%.2f" % (floor / best[0]), flagtext))
    else:
        out.append("| %s | %s | (none correct) | - | - | - | %s |" % (pid, ms(ref), flagtext))
reduced = sorted({rec["problem"]["name"]: ", ".join("%s=%d" % kv for kv in rec["size_overrides"].items())
                  for rec, *_ in rows if rec.get("size_overrides")}.items())
if reduced:
    out += ["", "Re-run at a smaller batch (all other sizes KernelBench's): " +
            "; ".join("%s %s" % (pid, sz) for pid, sz in reduced) + "."]
out += ["", "Roofline fraction = roofline floor / best honest median (1.0 = at the device's theoretical peak).", "",
        "| candidate | kind | status | median ms | speedup | flags | expectation |", "|---|---|---|---:|---:|---|---|"]
failed = 0
for rec, rr, flags, expect, met in rows:
    failed += not met
    kind = "honest" if expect["honest"] else "exploit (" + ", ".join(expect["flags"]) + ")"
    ct = rr.get("candidate_timing") if rr else None
    out.append("| %s | %s | %s | %s | %s | %s | %s |" % (rec["id"], kind, rec["status"]["outcome"],
               ms(ct["median_ms"]) if ct else "-", "%.2fx" % rec["speedup"] if rec.get("speedup") else "-",
               ", ".join(flags) or "-", "met" if met else "**not met**"))
out.append("")
out.append("%d of %d candidates met their expectation." % (len(rows) - failed, len(rows)))
text = "\n".join(out) + "\n"
open(summary, "w").write(text)
print(text)
sys.exit(1 if failed else 0)
EOF
SUMMARY_RC=$?
set -e
[[ $VERIFY_RC == 0 ]] && rm -f "$RAW"

[[ $VERIFY_RC == 0 && $SUMMARY_RC == 0 ]]
