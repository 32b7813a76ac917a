#!/bin/sh
# Re-verifies the KernelBench leaderboard (413 records, 7 models) on the local GPU against
# the v0 problem files it was written for, with kwb verify's default checks; this is what
# datasets/evaluations/leaderboard_h200.jsonl.gz was made with. From the repository root:
#   scripts/leaderboard_h200.sh BUILD_DIR [OUT_JSONL]   (default OUT: out/leaderboard_h200.jsonl)
# OUT stays plain JSONL (kwb verify appends to it and resumes from it); once a run gets through
# every record (not interrupted), it is also written gzipped to DATASET (default
# datasets/evaluations/leaderboard_h200.jsonl.gz, the committed copy; DATASET= to skip), but only
# when every record ran on an H200.
# BUILD_DIR holds app/kwb/kwb and app/runner/{kwb-runner,libkwb_bridge.so,*.py} (a UI-OFF CUDA build).
# KB_LEADERBOARD: the leaderboard's raw_data.json (default ../shared/data/kernelbench/leaderboard/raw_data.json).
# KB_PROBLEMS: the folder holding v0/KernelBench (default ../shared/data/kernelbench/problems).
# BUILD_JOBS: parallel sample builds (default: cores - 2). TIMING_BUDGET: seconds per timed kernel (3):
# a slow kernel gets fewer trials (at least 10) instead of 100, which is what keeps the batch short.
# Resumable: run it again after an interruption (or a time limit) and finished records are skipped.
# Records a resumed run took from older binaries get today's flags from `kwb reflag OUT --out NEW`
# (no GPU): the committed file went through it once all 413 were in (docs/gpu-validation.md).
# To resume from the committed copy: gunzip -c datasets/evaluations/leaderboard_h200.jsonl.gz > OUT.
set -u
build=${1:?usage: scripts/leaderboard_h200.sh BUILD_DIR [OUT_JSONL]}
out=${2:-out/leaderboard_h200.jsonl}
dataset=${DATASET-datasets/evaluations/leaderboard_h200.jsonl.gz}
raw=${KB_LEADERBOARD:-../shared/data/kernelbench/leaderboard/raw_data.json}
problems=${KB_PROBLEMS:-../shared/data/kernelbench/problems}/v0
n=$(nproc 2>/dev/null || echo 4)
# More workers than kwb verify's default (half the cores): over 400 samples the GPU work
# overlaps the builds either way, and 16 workers built 7% more per minute than 8 (bench/README.md).
jobs=${BUILD_JOBS:-$(( n > 3 ? n - 2 : 1 ))}
kwb="$build/app/kwb/kwb"
[ -x "$kwb" ] || { echo "no $kwb (build the kwb, kwb-runner and kwb_bridge targets)" >&2; exit 2; }
[ -f "$raw" ] || { echo "no leaderboard file $raw (set KB_LEADERBOARD)" >&2; exit 2; }
[ -d "$problems/KernelBench" ] || { echo "no $problems/KernelBench (set KB_PROBLEMS)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
"$kwb" verify "$raw" --kernelbench "$problems" --build-jobs "$jobs" \
    --timing-budget "${TIMING_BUDGET:-3}" --out "$out"
rc=$?
# 0: every record verified; 1: the same, some of them with errors (compile errors, faults).
# The committed file is the H200's: a run (or a resumed part of one) on another GPU leaves it alone.
# Records that never reached a GPU (a sample the build pool could not build) name no device.
others=$(python3 - "$out" <<'PY'
import json, sys
names = set()
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        dev = ((json.loads(line).get("verification") or {}).get("rerun") or {}).get("device") or {}
        names.add(dev.get("name") or "")
print(", ".join(sorted(n for n in names if n and "H200" not in n)))
PY
)
if [ "$rc" -le 1 ] && [ -n "$dataset" ] && [ -n "$others" ]; then
    echo "not writing $dataset: records of $out ran on $others, not an H200" >&2
elif [ "$rc" -le 1 ] && [ -n "$dataset" ]; then
    gzip -9 -n -c "$out" > "$dataset.tmp" && mv "$dataset.tmp" "$dataset" && echo "wrote $dataset"
fi
exit "$rc"
