#!/bin/sh
# Issue 16's GPU work in one call of about eight minutes on an H200, from the
# repository root:
#   scripts/paper_device_run.sh [OUT_DIR]        (default: out/paper)
# KB_PROBLEMS: the folder holding {v0,current}/KernelBench (default: ../shared/data/kernelbench/problems).
# 1. starts building the DLRM-Bench samples in the background (CPU cores), while
# 2. zero acceptance runs over KernelBench levels 1-3 of v0 and current (GPU, ZEROS_BUDGET s, 190),
# 3. the scale sweep is captured (GPU, SWEEP_BUDGET s, 140),
# 4. DLRM-Bench is evaluated (the builds are waited for first),
# 5. the substitution is measured with the winning samples.
# Every step writes its own log and outputs under OUT_DIR; a failing step does not
# stop the next. Everything is resumable: rerunning skips what is already there.
set -u
out=${1:-out/paper}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac
export TORCH_EXTENSIONS_DIR="${TORCH_EXTENSIONS_DIR:-$out/torch_ext}"
py=${PYTHON:-python3}
nproc_=$(nproc 2>/dev/null || echo 8)
build_procs=$(( nproc_ > 4 ? nproc_ - 4 : 1 ))
{ nvidia-smi; } > "$out/nvidia-smi.txt" 2>&1 || true

t0=$(date +%s)
$py scripts/evaluate_dlrm_bench.py --build-only --cache "$TORCH_EXTENSIONS_DIR" --build-procs "$build_procs" \
    > "$out/dlrm_build.log" 2>&1 &
build_pid=$!

$py scripts/zero_acceptance_levels.py ${KB_PROBLEMS:+--root "$KB_PROBLEMS"} --out "$out/zeros" --budget "${ZEROS_BUDGET:-190}" > "$out/zeros.log" 2>&1
echo "zeros: rc $? at $(( $(date +%s) - t0 )) s"; tail -8 "$out/zeros.log"

$py scripts/capture_scale_sweep.py --out "$out/scale_sweep" --budget "${SWEEP_BUDGET:-140}" > "$out/sweep.log" 2>&1
echo "sweep: rc $? at $(( $(date +%s) - t0 )) s"; grep -E "params|FAILED|skipped|workloads in" "$out/sweep.log" | tail -30

wait "$build_pid"
echo "dlrm build: rc $? at $(( $(date +%s) - t0 )) s"; grep -E "FAILED|built" "$out/dlrm_build.log" | cut -c1-300
$py scripts/evaluate_dlrm_bench.py --no-build --cache "$TORCH_EXTENSIONS_DIR" --out "$out/dlrm_bench/records.jsonl" \
    > "$out/dlrm_eval.log" 2>&1
echo "dlrm eval: rc $? at $(( $(date +%s) - t0 )) s"; tail -18 "$out/dlrm_eval.log" | cut -c1-300

$py scripts/measure_substitution.py --cache "$TORCH_EXTENSIONS_DIR" --records "$out/dlrm_bench/records.jsonl" \
    --out "$out/substitution.json" > "$out/substitution.log" 2>&1
echo "substitution: rc $? at $(( $(date +%s) - t0 )) s"; cat "$out/substitution.log" | cut -c1-300
