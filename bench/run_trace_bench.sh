#!/bin/sh
# Trace ingest benchmark, kwb against its Python peer in one run.
#   bench/run_trace_bench.sh [BUILD_DIR] [SIZE_MB] [SOURCE_TRACE]
# Generates a SIZE_MB (default 1100) Kineto trace under /tmp by replicating a
# real trace of datasets/traces (default gpt2_train), then measures
# bench_trace_ingest (kwb, one core) and bench/py_trace_baseline.py on it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
size=${2:-1100}
source=${3:-$root/datasets/traces/gpt2_train.json.gz}
trace=/tmp/kwb_trace_${size}mb.json
if [ ! -f "$trace" ]; then
    "$build/bench/gen_kineto_trace" "$source" "$trace" "$size"
fi
cd "$root"
# One core for kwb, as the target is stated per core; Python is single-threaded anyway.
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c 0"; fi
$pin "$build/bench/bench_trace_ingest" "$trace" --repeat 5 --python "python3 $root/bench/py_trace_baseline.py"
