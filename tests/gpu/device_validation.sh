#!/usr/bin/env bash
# The engine's validation run on a GPU machine, in one go (what docs/gpu-validation.md
# reports): every GPU test, both GPU benchmarks, the five fixture problems with their
# expectations (cold and warm compile cache, JSON and table), the problem suite, and the
# PyTorch bridge's fixtures. Run from the repository root:
#
#   tests/gpu/device_validation.sh BUILD_DIR OUT_DIR [STEP...]
#
# BUILD_DIR is a build tree (cmake -DKWB_BUILD_UI=OFF) or a copy of its binaries in the same
# layout (app/kwb/kwb, app/runner/{kwb-runner,libkwb_bridge.so,kwb_torch_bridge.py},
# tests/gpu/tst_gpu_*, bench/bench_*); BUILD_DIR/lib may hold shared libraries the machine
# lacks. STEPs: tests bench fixtures suite bridge (default: all). Writes OUT_DIR/results.tgz
# with every log, the fixtures' results and the suite's records.
set -u
BUILD=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
STEPS=${*:-tests bench fixtures suite bridge}
R=$OUT/r
mkdir -p "$R"
export LD_LIBRARY_PATH=$BUILD/lib:$BUILD/app/runner:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export KWB_TEST_DATA_DIR=$PWD/tests/data PYTHONUNBUFFERED=1
KWB=$BUILD/app/kwb/kwb
RUNNER=$BUILD/app/runner/kwb-runner
PROBLEMS="vector_add relu softmax_rows gemm scale_tiny"
trap 'tar -C "$OUT" -czf "$OUT/results.tgz" r' EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,temperature.gpu,power.draw --format=csv; uname -r; } > "$R/env.txt" 2>&1

for step in $STEPS; do
    echo "== $step $(date -u +%T)"
    case $step in
    tests)
        for t in coverage timer references fault modules inputs metrics bridge_api executor steps; do
            echo "== tst_gpu_$t"; timeout 300 "$BUILD/tests/gpu/tst_gpu_$t"; echo "rc=$?"
        done > "$R/tests.txt" 2>&1
        grep -E "^== |rc=|FAIL|event bracket|less the bracket|without flush" "$R/tests.txt" ;;
    bench)
        timeout 200 "$BUILD/bench/bench_coverage_scan" 1 4 > "$R/bench_scan.txt" 2>&1; grep -v JSON "$R/bench_scan.txt"
        timeout 200 "$BUILD/bench/bench_timing" 10 > "$R/bench_timing.txt" 2>&1; grep -v JSON "$R/bench_timing.txt" ;;
    fixtures)
        # Cold: a fresh compile cache; warm: the same cache again.
        KWB_CACHE_DIR=$(mktemp -d)
        export KWB_CACHE_DIR
        for pass in cold warm; do
            for p in $PROBLEMS; do
                start=$(date +%s%N)
                timeout 120 "$KWB" rerun "tests/data/problems/$p.json" --candidates tests/data/candidates \
                    --runner "$RUNNER" --timeout 10 --check-expectations --format json \
                    > "$R/fx_${pass}_$p.json" 2> "$R/fx_${pass}_$p.err"
                echo "$pass $p exit $? wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            done
        done
        for p in $PROBLEMS; do
            timeout 120 "$KWB" rerun "tests/data/problems/$p.json" --candidates tests/data/candidates \
                --runner "$RUNNER" --timeout 10 --check-expectations > "$R/fx_table_$p.txt" 2>&1
            echo "table $p exit $?"
        done ;;
    suite)
        timeout 240 scripts/evaluate_suite.sh --build-dir "$BUILD" --out "$R/eval" --trials 20 --warmup 3 \
            --correctness-trials 1 --no-zero-check > "$R/suite.txt" 2>&1
        echo "suite exit $?"; tail -2 "$R/suite.txt" ;;
    bridge)
        timeout 280 tests/gpu/bridge_validation.sh "$BUILD" "$R/bridge" > "$R/bridge.txt" 2>&1
        echo "bridge exit $?"; tail -2 "$R/bridge/tst_gpu_bridge.txt" ;;
    *) echo "unknown step '$step'" ;;
    esac
done
