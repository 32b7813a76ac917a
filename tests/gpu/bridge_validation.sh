#!/usr/bin/env bash
# The PyTorch bridge's validation run on a GPU machine (what docs/gpu-validation.md
# "PyTorch bridge" reports). Run from the repository root:
#
#   tests/gpu/bridge_validation.sh BUILD_DIR OUT_DIR [KERNELBENCH_DIR LEADERBOARD_JSON IDS SIZES]
#
# BUILD_DIR holds app/runner/{libkwb_bridge.so,kwb_torch_bridge.py} and
# tests/gpu/tst_gpu_bridge. KERNELBENCH_DIR is a KernelBench checkout,
# LEADERBOARD_JSON a leaderboard-format file, IDS a comma-separated list of its
# record ids (file hashes), SIZES "name=value,..." overrides of the problems'
# integer globals for those records (e.g. batch_size=2048).
# Writes environment.txt, prebuild.log, tst_gpu_bridge.txt (+ .stderr: the bridge's),
# bridge_results.jsonl (one JSON outcome per sample), kwb_rerun_record.txt, kwb_verify.txt and
# leaderboard_verified.jsonl to OUT_DIR; scratch files go to $TMPDIR/kwb_bridge_validation.
set -u
BUILD=$(cd "$1" && pwd)
OUT=$2
KB=${3:-}
LB=${4:-}
IDS=${5:-}
SIZES=${6:-}
WORK=${TMPDIR:-/tmp}/kwb_bridge_validation
mkdir -p "$OUT" "$WORK"
BRIDGE=$BUILD/app/runner/kwb_torch_bridge.py
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export KWB_CACHE_DIR=${KWB_CACHE_DIR:-$HOME/.cache/kwb}

{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
    ldd "$BUILD/app/runner/libkwb_bridge.so" | grep -E "cudart|cupti|cublas|nvrtc|not found"
    python3 "$BRIDGE" --check
    echo "check exit status $?"
} > "$OUT/environment.txt" 2>&1

# Cold builds of every distinct extension, in parallel, timed in prebuild.log:
# the runs below then start from the source-hash cache, as a second re-run does.
data=tests/data/kernelbench_bridge
builds=("$data/samples/relu_honest.py" "$data/samples/softmax_honest.py")
if [ -n "$LB" ] && [ -n "$IDS" ]; then
    mkdir -p "$WORK/leaderboard_samples"
    while IFS= read -r f; do builds+=("$f"); done < <(python3 - "$LB" "$IDS" "$WORK/leaderboard_samples" <<'EOF'
import json, os, sys
records, ids, folder = json.load(open(sys.argv[1])), set(sys.argv[2].split(",")), sys.argv[3]
for r in records:
    if r.get("file") in ids:
        path = os.path.join(folder, r["file"] + ".py")
        with open(path, "w") as f:
            f.write(r["code"])
        print(path)
EOF
)
fi
start=$(date +%s)
for f in "${builds[@]}"; do
    timeout 170 python3 "$BRIDGE" --build "$f" >> "$OUT/prebuild.log" 2>&1 &
done
wait
echo "prebuild of ${#builds[@]} samples: $(( $(date +%s) - start )) s wall" >> "$OUT/prebuild.log"

# The fixtures with their expectations (leaderboard records go through kwb below when it is there).
lb_env=()
[ -x "$BUILD/app/kwb/kwb" ] || lb_env=(KWB_LEADERBOARD="$LB" KWB_KERNELBENCH_DIR="$KB" KWB_LEADERBOARD_IDS="$IDS" KWB_BRIDGE_SIZES="$SIZES")
env "${lb_env[@]}" KWB_BRIDGE_VERBOSE=1 KWB_BRIDGE_DATA=$data KWB_BRIDGE_RESULTS=$OUT/bridge_results.jsonl \
    KWB_TORCH_BRIDGE=$BRIDGE "$BUILD/tests/gpu/tst_gpu_bridge" 2> "$OUT/tst_gpu_bridge.stderr" | tee "$OUT/tst_gpu_bridge.txt"
status=${PIPESTATUS[0]}
echo "tst_gpu_bridge exit status $status" | tee -a "$OUT/tst_gpu_bridge.txt"

# The command lines a user runs on leaderboard records: kwb rerun --record FILE#ID for the
# first one, then kwb verify over all chosen records (native records with the verification
# filled in). BUILD_DIR/lib may hold shared libraries kwb needs that the machine lacks.
if [ -x "$BUILD/app/kwb/kwb" ] && [ -n "$LB" ] && [ -n "$IDS" ]; then
    python3 - "$LB" "$IDS" "$WORK/leaderboard_chosen.json" <<'EOF'
import json, sys
ids = set(sys.argv[2].split(","))
json.dump([r for r in json.load(open(sys.argv[1])) if r.get("file") in ids], open(sys.argv[3], "w"))
EOF
    opts=(--kernelbench "$KB" --trials 20 --warmup 3 --correctness-trials 2)
    for kv in ${SIZES//,/ }; do opts+=(--size "$kv"); done
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$BUILD/lib
    "$BUILD/app/kwb/kwb" rerun --record "$WORK/leaderboard_chosen.json#${IDS%%,*}" "${opts[@]}" \
        > "$OUT/kwb_rerun_record.txt" 2>&1
    echo "kwb rerun --record exit status $?" | tee -a "$OUT/kwb_rerun_record.txt"
    "$BUILD/app/kwb/kwb" verify "$WORK/leaderboard_chosen.json" "${opts[@]}" --out "$OUT/leaderboard_verified.jsonl" \
        > "$OUT/kwb_verify.txt" 2>&1
    echo "kwb verify exit status $?" | tee -a "$OUT/kwb_verify.txt"
fi
exit "$status"
