#!/bin/sh
# Zero acceptance over KernelBench levels 1-3 of v0 and current through `kwb zeros`
# (the bridge's zero_probe request; core decides every verdict), then the comparison
# with the committed tables (computed by scripts/zero_acceptance_levels.py's own harness).
# From the repository root, with a UI-OFF build tree (targets kwb and kwb_bridge):
#   scripts/zero_acceptance_device.sh BUILD_DIR [OUT_DIR]      (default OUT_DIR: out/zeros_kwb)
# KB_PROBLEMS: the folder holding {v0,current}/KernelBench (default ../shared/data/kernelbench/problems).
# PYTHON / KWB_PYTHON: Python with torch (default python3). ZEROS_TIMEOUT: seconds per problem (60).
# Writes OUT_DIR/zero_acceptance_levels.jsonl (+ .meta.json) and OUT_DIR/compare.txt; the
# exit status is kwb zeros' (3: no GPU, with the reason).
set -u
build=${1:?usage: scripts/zero_acceptance_device.sh BUILD_DIR [OUT_DIR]}
out=${2:-out/zeros_kwb}
problems=${KB_PROBLEMS:-../shared/data/kernelbench/problems}
kwb="$build/app/kwb/kwb"
[ -x "$kwb" ] || { echo "no $kwb (build the kwb and kwb_bridge targets)" >&2; exit 2; }
[ -f "$build/app/runner/libkwb_bridge.so" ] || { echo "no $build/app/runner/libkwb_bridge.so (build kwb_bridge)" >&2; exit 2; }
mkdir -p "$out"
export KWB_PYTHON="${KWB_PYTHON:-${PYTHON:-python3}}"
export PYTHONUNBUFFERED=1
t0=$(date +%s)
"$kwb" zeros --out "$out/zero_acceptance_levels.jsonl" --timeout "${ZEROS_TIMEOUT:-60}" \
    "$problems/v0/KernelBench" "$problems/current/KernelBench" 2> "$out/zeros.log"
rc=$?
echo "kwb zeros: rc $rc in $(( $(date +%s) - t0 )) s ($(wc -l < "$out/zero_acceptance_levels.jsonl" 2>/dev/null || echo 0) rows)"
tail -3 "$out/zeros.log"
if [ -s "$out/zero_acceptance_levels.jsonl" ]; then
    "$kwb" zeros --show --level 1 --compare datasets/zero_acceptance/zero_acceptance_levels.jsonl \
        "$out/zero_acceptance_levels.jsonl" > "$out/compare.txt"
    sed -n '1,20p' "$out/compare.txt"
    sed -n '/^Against/,$p' "$out/compare.txt"
fi
exit $rc
