#!/usr/bin/env bash
# What issue 12's default checks cost a `kwb verify` of the whole problem suite,
# measured side by side in one run on the GPU: the suite verified with today's
# checks (--legacy-checks) and with the new defaults (fresh inputs, post-timing
# re-validation, persisting-L2 reset, host timer, own kernels), alternating
# ROUNDS times so clock and thermal drift hit both alike. Budget: default <= 1.5x.
#
#   bench/verify_cost/run.sh BUILD_DIR OUT_DIR [ROUNDS] [evaluate_suite options...]
#
# BUILD_DIR as for scripts/evaluate_suite.sh (kwb, kwb-runner; UI off). The
# default options are the device-validation suite step's (--trials 20 --warmup 3
# --correctness-trials 1 --no-zero-check). Writes OUT_DIR/verify_cost.txt (wall
# seconds of each verify, the sum of the runner's per-result wall_ms per mode,
# and the ratio) and keeps each mode's records under OUT_DIR/<mode>_<round>/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
ROUNDS=${3:-1}
shift $(( $# >= 3 ? 3 : 2 ))
OPTS=("$@")
[[ ${#OPTS[@]} -gt 0 ]] || OPTS=(--trials 20 --warmup 3 --correctness-trials 1 --no-zero-check)
export LD_LIBRARY_PATH=$BUILD/lib:$BUILD/app/runner:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
# One compile cache for both modes, warmed by a first short pass, so neither pays the compiles.
export KWB_CACHE_DIR=${KWB_CACHE_DIR:-$OUT/cache}
KWB_VERIFY_EXTRA="--legacy-checks" "$ROOT/scripts/evaluate_suite.sh" --build-dir "$BUILD" --out "$OUT/warm" \
    --trials 2 --warmup 1 --correctness-trials 1 --no-zero-check > "$OUT/warm.log" 2>&1 || true
: > "$OUT/walls.txt"
for round in $(seq 1 "$ROUNDS"); do
    for mode in legacy default; do
        extra=""; [[ $mode == legacy ]] && extra="--legacy-checks"
        start=$(date +%s%N)
        KWB_VERIFY_EXTRA="$extra" "$ROOT/scripts/evaluate_suite.sh" --build-dir "$BUILD" --out "$OUT/${mode}_$round" \
            "${OPTS[@]}" > "$OUT/${mode}_$round.log" 2>&1 || echo "$mode round $round: evaluate_suite exit $?" >> "$OUT/walls.txt"
        echo "$mode $round $(( ($(date +%s%N) - start) / 1000000 ))" >> "$OUT/walls.txt"
    done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import glob, json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
walls = {"legacy": 0.0, "default": 0.0}
for line in open(f"{out}/walls.txt"):
    parts = line.split()
    if len(parts) == 3 and parts[0] in walls:
        walls[parts[0]] += float(parts[2]) / 1000.0
runner = {}
for mode in walls:
    total = 0.0
    n = 0
    for path in glob.glob(f"{out}/{mode}_*/suite_*.jsonl"):
        for line in open(path):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            v = rec.get("verification") or {}
            res = v.get("rerun") or (v.get("extra") or {}).get("rerun") or {}
            total += res.get("wall_ms", 0.0)
            n += 1
    runner[mode] = (total, n)
lines = [f"rounds: {rounds}",
         f"evaluate_suite wall: legacy {walls['legacy']:.1f} s, default {walls['default']:.1f} s, "
         f"ratio {walls['default'] / walls['legacy']:.3f}" if walls["legacy"] else "no legacy wall",
         f"runner wall (sum of result wall_ms): legacy {runner['legacy'][0] / 1000:.1f} s over {runner['legacy'][1]} results, "
         f"default {runner['default'][0] / 1000:.1f} s over {runner['default'][1]} results, "
         f"ratio {runner['default'][0] / runner['legacy'][0]:.3f} (budget 1.5)" if runner["legacy"][0] else "no legacy results"]
open(f"{out}/verify_cost.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
