#!/usr/bin/env bash
# Side by side on one GPU machine, same N leaderboard samples, both from a cold
# cache: KernelBench's pipeline (run_peer.py: its parallel build, then its
# evaluation) and `kwb verify` with the build pool. Not a test.
#
#   bench/kernelbench_peer/compare.sh BIN PEER_SRC RAW_DATA PROBLEMS N OUT [WORKERS]
#
# BIN holds kwb and the runner files in a build tree's layout (app/kwb/kwb,
# app/runner/{kwb-runner,libkwb_bridge.so}); the bridge script is this
# checkout's. Writes OUT/peer.jsonl, OUT/kwb.jsonl (verified records),
# OUT/kwb.err and prints the throughput of both.
set -u
BIN=$(cd "$1" && pwd); PEER=$2; RAW=$3; PROBLEMS=$4; N=$5; OUT=$6; W=${7:-$(nproc)}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$BIN/lib:$BIN/app/runner:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export KWB_RUNNER=$BIN/app/runner/kwb-runner KWB_BRIDGE_LIB=$BIN/app/runner/libkwb_bridge.so
export KWB_TORCH_BRIDGE=$root/app/runner/bridge/kwb_torch_bridge.py PYTHONUNBUFFERED=1

python3 "$root/bench/kernelbench_peer/run_peer.py" "$PEER" "$RAW" "$PROBLEMS" "$N" "$OUT/peer" "$W" \
    > "$OUT/peer.jsonl" 2> "$OUT/peer.err"
echo "peer exit $?"; grep -E '"phase"|"summary"|stubbed' "$OUT/peer.jsonl"

export KWB_CACHE_DIR=$OUT/kwb_cache
rm -rf "$KWB_CACHE_DIR"
start=$(date +%s.%N)
"$BIN/app/kwb/kwb" verify "$OUT/peer/samples.json" --kernelbench "$PROBLEMS" --build-jobs "$W" \
    --out "$OUT/kwb.jsonl" > "$OUT/kwb.out" 2> "$OUT/kwb.err"
rc=$?
end=$(date +%s.%N)
grep -E "built|building samples: $N/" "$OUT/kwb.err" | tail -3
python3 - "$OUT/kwb.jsonl" "$N" "$start" "$end" "$rc" <<'PY'
import json, sys
path, n, start, end, rc = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
recs = [json.loads(l) for l in open(path) if l.strip()]
ok = sum(1 for r in recs if (r.get("outcome") or {}).get("correct"))
total = end - start
print(json.dumps({"summary": "kwb", "exit": rc, "records": len(recs), "correct": ok, "total_s": round(total, 1),
                  "samples_per_min": round(60 * n / total, 2)}))
PY
