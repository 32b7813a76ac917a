#!/usr/bin/env bash
# Issue 12's KernelBench security run on a GPU machine (what docs/gpu-validation.md
# "Bridge security" reports). Run from the repository root, in one call:
#
#   tests/gpu/bridge_security_validation.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a UI-OFF build with the targets kwb_bridge (app/runner/libkwb_bridge.so
# and the bridge's .py modules beside it) and, for the flags, kwb (app/kwb/kwb).
# Every fixture of tests/data/kernelbench_bridge/security_manifest.json (and
# KernelBench's own adversarial kernels from ../shared/peers/kernelbench) runs
#   1. through the judge (app/runner/kwb_torch_bridge.py: reference in the judge,
#      sample in a sandboxed worker, the new checks on)          -> judge.jsonl
#   2. through the pre-issue-12 in-process bridge (baseline)     -> inprocess.jsonl
#   3. through kwb rerun --record (flags derived by the core)    -> kwb/ID.json
# then the honest fixtures again, 3 times each on both bridges, for the cost of the
# separation per re-run (cost.jsonl pairs). summary.txt is the table: per fixture
# the expected flags, the flags kwb derived, whether they meet the expectation,
# status / correctness / tampering seen in each design, wall ms in each.
# Each part has its own timeout so the whole stays inside one 10-minute call;
# KWB_SECURITY_NO_KWB=1 skips part 3 (the slowest: one bridge start per fixture).
# Environment: KWB_SECURITY_TRIALS (timed trials, default 20), KWB_SECURITY_ONLY
# (comma-separated fixture ids), KWB_SECURITY_KWB_OPTS (kwb rerun's issue-12 options; default
# "--per-call --adversarial --check-every 5", every check on, as the driver's requests have them).
set -u
BUILD=$(cd "$1" && pwd)
OUT=$2
mkdir -p "$OUT/kwb"
OUT=$(cd "$OUT" && pwd)
DATA=tests/data/kernelbench_bridge
JUDGE=$BUILD/app/runner/kwb_torch_bridge.py
BASELINE=$DATA/baseline/kwb_torch_bridge_inprocess.py
TRIALS=${KWB_SECURITY_TRIALS:-20}
ONLY=${KWB_SECURITY_ONLY:-}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export KWB_CACHE_DIR=${KWB_CACHE_DIR:-$HOME/.cache/kwb}
export KWB_BRIDGE_LIB=$BUILD/app/runner/libkwb_bridge.so

{
    date -u
    id
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
    python3 - "$KWB_BRIDGE_LIB" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print("libkwb_bridge ABI", lib.kwb_bridge_abi_version())
for name in ("kwb_bridge_session_time_ex", "kwb_bridge_session_set_own_kernels", "kwb_bridge_session_check",
             "kwb_bridge_session_set_member", "kwb_bridge_sandbox_enter"):
    print("  %-38s %s" % (name, "present" if hasattr(lib, name) else "ABSENT"))
EOF
    echo "lsm: $(cat /sys/kernel/security/lsm 2>/dev/null)"
    echo "yama ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)"
    echo "seccomp: $(grep -c seccomp /proc/self/status) status lines; kernel $(uname -r)"
    ls "$BUILD/app/runner/"*.py
    python3 "$JUDGE" --check
    echo "check exit status $?"
} > "$OUT/environment.txt" 2>&1

# Cold builds of the fixtures' extensions (one ReLU extension serves all the ReLU fixtures).
start=$(date +%s)
timeout 300 python3 "$JUDGE" --build "$DATA/samples/security/relu_honest_kernel.py" > "$OUT/prebuild.log" 2>&1
for f in ../shared/peers/kernelbench/src/kernelbench/unit_tests/test_kernels/*.py; do
    timeout 300 python3 "$JUDGE" --build "$f" >> "$OUT/prebuild.log" 2>&1 &
done
wait
echo "prebuild: $(( $(date +%s) - start )) s wall" >> "$OUT/prebuild.log"

only=()
[ -n "$ONLY" ] && only=(--only "$ONLY")
# 1 and 2: every fixture through both designs.
timeout 240 python3 tests/bridge/security_driver.py --bridge "$JUDGE" --data "$DATA" --out "$OUT/judge.jsonl" \
    --trials "$TRIALS" --records "$OUT/security_samples.jsonl" "${only[@]}" | tee "$OUT/judge.txt"
echo "judge driver exit status ${PIPESTATUS[0]}" >> "$OUT/judge.txt"
timeout 180 python3 tests/bridge/security_driver.py --bridge "$BASELINE" --data "$DATA" --out "$OUT/inprocess.jsonl" \
    --trials "$TRIALS" "${only[@]}" | tee "$OUT/inprocess.txt"
echo "in-process driver exit status ${PIPESTATUS[0]}" >> "$OUT/inprocess.txt"

# 3: the flags, derived by the core, through the command line a user runs.
if [ -x "$BUILD/app/kwb/kwb" ] && [ "${KWB_SECURITY_NO_KWB:-0}" != 1 ]; then
    for id in $(python3 -c 'import json,sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1])]' "$OUT/security_samples.jsonl"); do
        KWB_TORCH_BRIDGE=$JUDGE timeout 60 "$BUILD/app/kwb/kwb" rerun --record "$OUT/security_samples.jsonl#$id" \
            --kernelbench "$DATA" --format json --trials "$TRIALS" --warmup 3 --correctness-trials 2 --quiet \
            ${KWB_SECURITY_KWB_OPTS---per-call --adversarial --check-every 5} > "$OUT/kwb/$id.json" 2> "$OUT/kwb/$id.stderr"
        echo "$id exit $?" >> "$OUT/kwb/exit_status.txt"
    done
fi

# The separation's cost: the honest fixtures, 3 re-runs each, judge and in-process, alternating.
honest=$(python3 -c 'import json; print(",".join(e["sample"].split("/")[-1][:-3] for e in json.load(open("'$DATA'/security_manifest.json")) if e.get("honest") and "sample" in e))')
for design in judge inprocess; do
    bridge=$JUDGE
    [ $design = inprocess ] && bridge=$BASELINE
    timeout 120 python3 tests/bridge/security_driver.py --bridge "$bridge" --data "$DATA" --out "$OUT/cost_$design.jsonl" \
        --trials "$TRIALS" --repeat 3 --only "$honest" > "$OUT/cost_$design.txt" 2>&1
done

python3 - "$OUT" "$DATA/security_manifest.json" <<'EOF' | tee "$OUT/summary.txt"
import json, os, statistics, sys
out, manifest = sys.argv[1], json.load(open(sys.argv[2]))
def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return {}
    got = {}
    for line in open(path):
        r = json.loads(line)
        if "fixture" in r:
            got.setdefault(r["fixture"], []).append(r)
    return got
judge, old = rows("judge.jsonl"), rows("inprocess.jsonl")
def flags(fid):
    p = os.path.join(out, "kwb", fid + ".json")
    if not os.path.exists(p) or not os.path.getsize(p):
        return None
    try:
        j = json.load(open(p))
    except ValueError:
        return None
    # kwb rerun --format json: {"outcomes": [{"summary": {"flags": [{"code": ...}]}}]}
    codes = set()
    def walk(v):
        if isinstance(v, dict):
            for f in v.get("flags") or [] if isinstance(v.get("flags"), list) else []:
                codes.add(f.get("code") if isinstance(f, dict) else f)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(j.get("outcomes", j) if isinstance(j, dict) else j)
    return codes
def brief(r):
    if not r:
        return "-"
    r = r[0]
    outs = r.get("outputs") or []
    correct = all(o.get("passed", o.get("correct", False)) for o in outs) if outs else False
    iso = r.get("isolation") or {}
    return "%s correct=%s sandbox=%s violations=%d forged=%d" % (
        r.get("status"), correct, iso.get("sandbox", "-"), len(iso.get("violations") or []),
        len(r.get("forged_lines_seen_by_kwb") or []))
EXPLOIT_OK = {"zero_acceptance", "library_dominated", "nondeterministic"}
print("%-24s %-34s %-40s %-5s" % ("fixture", "expected", "kwb flags", "met"))
for e in manifest:
    fid = os.path.splitext(os.path.basename(e.get("sample") or e.get("peer_sample")))[0]
    want = set(e.get("expect_flags", []))
    got = flags(fid)
    if got is None:
        met = "?"
    elif e.get("honest"):
        met = "yes" if not (got - EXPLOIT_OK) else "NO"
    else:
        met = "yes" if want <= got else "NO"
    print("%-24s %-34s %-40s %-5s" % (fid, ",".join(sorted(want)) or "(honest)",
                                      "-" if got is None else ",".join(sorted(got)) or "(none)", met))
    print("    judge:      %s" % brief(judge.get(fid)))
    print("    in-process: %s" % brief(old.get(fid)))
    for r in (judge.get(fid) or [])[:1]:
        for v in ((r.get("isolation") or {}).get("violations") or [])[:4]:
            print("      violation: %s" % v)
        print("      checks_run: %s" % ",".join(r.get("checks_run") or []))
print()
print("separation cost per re-run (wall_ms, median of 3 re-runs; judge vs in-process):")
cj, co = rows("cost_judge.jsonl"), rows("cost_inprocess.jsonl")
ratios = []
for fid in sorted(cj):
    a = [float(r.get("wall_ms") or 0) for r in cj[fid] if r.get("repeat", 0) > 0] or [float(r.get("wall_ms") or 0) for r in cj[fid]]
    b = [float(r.get("wall_ms") or 0) for r in co.get(fid, []) if r.get("repeat", 0) > 0] or [float(r.get("wall_ms") or 0) for r in co.get(fid, [])]
    if a and b:
        ma, mb = statistics.median(a), statistics.median(b)
        ratios.append(ma / mb if mb else float("nan"))
        print("  %-24s judge %8.0f ms   in-process %8.0f ms   +%7.0f ms  x%.2f" % (fid, ma, mb, ma - mb, ratios[-1]))
if ratios:
    print("  median ratio x%.2f" % statistics.median(ratios))
EOF
echo "OUT: $OUT"
