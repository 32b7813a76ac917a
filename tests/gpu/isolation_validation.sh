#!/usr/bin/env bash
# What separating shared-object candidates from the runner costs and buys, on a GPU
# machine, in one go (docs/security-native.md). Run from the repository root:
#
#   tests/gpu/isolation_validation.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a UI-OFF build tree with kwb, kwb-runner, kwb-candidate-host and
# tests/gpu/tst_gpu_candidate_host built (or a copy in the same layout). Runs:
#  1. tst_gpu_candidate_host (tampering fixtures isolated and in-process, honest
#     shared objects both ways, ISOLATION_COST: ms per re-run cold and warm);
#  2. every candidate of relu (with tests/data/candidates/tamper), softmax_rows and
#     vector_add through kwb rerun: isolated with a cold compile cache, then in-process
#     (KWB_ISOLATION=off, measurement only) and isolated again, compile-warm, with the
#     runner's log (verdicts side by side, ms per re-run from each result's wall_ms);
#  3. a sandbox probe on the machine (tst_sandbox when built) and the CUPTI check
#     with perf_event_open allowed (KWB_SANDBOX_ALLOW_PERF=1) beside the default.
# Writes OUT_DIR/summary.txt (verdicts and ms per re-run side by side) and
# OUT_DIR/results.tgz with every log.
set -u
BUILD=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
R=$OUT/r
mkdir -p "$R"
export LD_LIBRARY_PATH=$BUILD/lib:$BUILD/app/runner:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export KWB_TEST_DATA_DIR=$PWD/tests/data
KWB=$BUILD/app/kwb/kwb
RUNNER=$BUILD/app/runner/kwb-runner
PROBLEMS="relu softmax_rows vector_add"
trap 'tar -C "$OUT" -czf "$OUT/results.tgz" r' EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; uname -r; id; } > "$R/env.txt" 2>&1

echo "== tst_gpu_candidate_host $(date -u +%T)"
timeout 500 "$BUILD/tests/gpu/tst_gpu_candidate_host" > "$R/tst_gpu_candidate_host.txt" 2>&1
echo "rc=$?" >> "$R/tst_gpu_candidate_host.txt"
grep -E "PASS|FAIL|SKIP|check failed|ISOLATION_COST|violation|patched timer|rc=" "$R/tst_gpu_candidate_host.txt"
if [ -x "$BUILD/tests/core/tst_sandbox" ]; then
    "$BUILD/tests/core/tst_sandbox" > "$R/tst_sandbox.txt" 2>&1; echo "tst_sandbox rc=$?"
fi

echo "== fixtures $(date -u +%T)"
# One compile cache: the first pass compiles (its times include nvcc), the two after it
# are compile-warm, so isolated vs in-process differ by the separation alone. Every kwb
# invocation starts a fresh runner, so each candidate's host starts inside its re-run
# (the CLI's cold case); tst_gpu_candidate_host above measures the warm host.
KWB_CACHE_DIR=$(mktemp -d)
export KWB_CACHE_DIR
for run in isolated:compile in_process:warm isolated:warm; do
    mode=${run%%:*}
    pass=${run##*:}
    if [ $mode = in_process ]; then export KWB_ISOLATION=off; else export KWB_ISOLATION=on; fi
    for p in $PROBLEMS; do
        start=$(date +%s%N)
        timeout 300 "$KWB" rerun "tests/data/problems/$p.json" --candidates tests/data/candidates \
            --runner "$RUNNER" --timeout 30 --format json --verbose-runner \
            > "$R/fx_${mode}_${pass}_$p.json" 2> "$R/fx_${mode}_${pass}_$p.log"
        echo "$mode $pass $p exit $? wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))" | tee -a "$R/walls.txt"
    done
done
export KWB_ISOLATION=on

echo "== CUPTI with perf_event_open allowed $(date -u +%T)"
KWB_SANDBOX_ALLOW_PERF=1 timeout 120 "$KWB" rerun tests/data/problems/relu.json --candidates tests/data/candidates/relu \
    --runner "$RUNNER" --timeout 30 --format json --verbose-runner > "$R/fx_perf_allowed_relu.json" 2> "$R/fx_perf_allowed_relu.log"

python3 - "$R" > "$OUT/summary.txt" <<'PY'
import json, os, re, sys
r = sys.argv[1]
rows = {}
def load(path):
    try:
        text = open(path).read()
    except OSError:
        return []
    try:
        j = json.loads(text)
    except ValueError:
        return []
    items = j if isinstance(j, list) else j.get("outcomes", [j])
    return [i for i in items if isinstance(i, dict)]
for name in sorted(os.listdir(r)):
    m = re.match(r"fx_(isolated|in_process)_(compile|warm)_(\w+)\.json$", name)
    if not m:
        continue
    mode, pas, _ = m.groups()
    for item in load(os.path.join(r, name)):
        s = item.get("summary", item)
        res = item.get("result", {})
        key = s.get("candidate_id", "?")
        flags = ",".join(f.get("code", "?") for f in s.get("flags", [])) or "-"
        rows.setdefault(key, {})[(mode, pas)] = (s.get("status"), flags, s.get("speedup"), res.get("wall_ms"))
print("%-44s %-10s %-5s %-12s %-28s %-9s %s" % ("candidate", "mode", "pass", "status", "flags", "speedup", "wall_ms"))
for key in sorted(rows):
    for (mode, pas), (st, fl, sp, wall) in sorted(rows[key].items()):
        print("%-44s %-10s %-5s %-12s %-28s %-9s %s" % (key, mode, pas, st, fl[:28],
              "%.2f" % sp if isinstance(sp, (int, float)) else "-", "%.1f" % wall if isinstance(wall, (int, float)) else "-"))
    v = {k: (x[0], x[1]) for k, x in rows[key].items()}
    if ("isolated", "warm") in v and ("in_process", "warm") in v and v[("isolated", "warm")] != v[("in_process", "warm")]:
        print("   ^ verdict differs isolated vs in-process")
    w = rows[key]
    if ("isolated", "warm") in w and ("in_process", "warm") in w:
        a, b = w[("isolated", "warm")][3], w[("in_process", "warm")][3]
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            print("   separation: %+.1f ms per re-run (isolated %.1f, in-process %.1f)" % (a - b, a, b))
print()
for line in open(os.path.join(r, "tst_gpu_candidate_host.txt"), errors="replace"):
    if line.startswith("ISOLATION_COST") or "patched timer" in line:
        print(line.rstrip())
for name in sorted(os.listdir(r)):
    if name.endswith(".log"):
        for line in open(os.path.join(r, name), errors="replace"):
            if "candidate host" in line and "sandbox" in line:
                print("%s: %s" % (name, line.strip()))
                break
PY
cat "$OUT/summary.txt"
