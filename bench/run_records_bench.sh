#!/usr/bin/env bash
# Runs the record-loading benchmark and its Python peer on one core, on the same file.
set -euo pipefail
build="${1:-build}"
file=/tmp/kwb_bench_records.jsonl
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; pinned to core 0"
taskset -c 0 "$build/bench/bench_records_load" --records 100000 --repeat 5 --keep "$file"
taskset -c 0 python3 "$(dirname "$0")/py_records_baseline.py" "$file"
rm -f "$file"
