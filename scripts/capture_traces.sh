#!/bin/sh
# Captures the real profiler traces in datasets/traces on a CUDA machine and
# records the machine next to them. Usage: scripts/capture_traces.sh [OUT_DIR]
set -eu
out=${1:-datasets/traces}
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/capture_traces.py" --out "$out"
