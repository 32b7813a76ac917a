#!/bin/sh
# Measured substitution for a transformer (issue 16 item 4): evaluate the
# KernelBench-format transformer samples (datasets/kernelbench_transformer: bf16
# LayerNorm and tanh GELU with inline CUDA) at KernelBench's bf16 tolerance, then
# swap them into GPT-2 124M bf16 inference (8 x 1024, SDPA) and measure the saving
# next to f*w*(1-1/s) and the Amdahl bound. From the repository root:
#   scripts/transformer_substitution_device.sh [OUT_DIR]        (default out/transformer_sub)
# Needs PyTorch with CUDA and transformers (as scripts/capture_scale_sweep.py). PYTHON: python3.
set -u
out=${1:-out/transformer_sub}
mkdir -p "$out"
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac
export PYTHONUNBUFFERED=1
export TORCH_EXTENSIONS_DIR="${TORCH_EXTENSIONS_DIR:-$out/torch_ext}"
py=${PYTHON:-python3}
t0=$(date +%s)
$py scripts/evaluate_dlrm_bench.py --bench datasets/kernelbench_transformer --suite Transformer-Bench \
    --run transformer-bench-h200 --atol 1e-2 --rtol 1e-2 --cache "$TORCH_EXTENSIONS_DIR" \
    --trace datasets/scale_sweep/gpt2_124m_infer.json.gz --out "$out/records.jsonl" > "$out/eval.log" 2>&1
echo "samples: rc $? at $(( $(date +%s) - t0 )) s"; tail -12 "$out/eval.log" | cut -c1-300
$py scripts/measure_substitution_transformer.py --records "$out/records.jsonl" --cache "$TORCH_EXTENSIONS_DIR" \
    --out "$out/substitution_gpt2_h200.json" > "$out/substitution.log" 2>&1
rc=$?
echo "substitution: rc $rc at $(( $(date +%s) - t0 )) s"; tail -6 "$out/substitution.log" | cut -c1-400
exit $rc
