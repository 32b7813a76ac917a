#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan) and runs
# each for SECONDS (default 10), one after the other, one job each.
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# New inputs go to BUILD/fuzz-corpus/NAME (the committed seeds in
# tests/fuzz/corpus/NAME are read, never written); a crash leaves its input in
# BUILD/fuzz-artifacts/ and fails the script: add it to tests/fuzz/corpus/NAME
# (and, for a reader, to tests/data/malformed with its expected outcome).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
secs="${1:-10}"
shift || true
build="${KWB_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${KWB_JOBS:-2}"
all=(kineto nsys native_records kernelbench leaderboard problem_spec candidate_spec size_expression protocol)
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${all[@]}"); fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKWB_FUZZ=ON -DKWB_WERROR=OFF -DKWB_BUILD_UI=OFF -DKWB_ENABLE_CUDA=OFF \
    -DKWB_BUILD_BENCH=OFF -DKWB_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

dict_of() {
  case "$1" in
    kineto) echo kineto ;;
    native_records|kernelbench|leaderboard) echo records ;;
    problem_spec|candidate_spec|protocol) echo specs ;;
    size_expression) echo size_expression ;;
    *) echo "" ;;
  esac
}

mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
status=0
for h in "${harnesses[@]}"; do
  work="$build/fuzz-corpus/$h"
  mkdir -p "$work"
  args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536
        -artifact_prefix="$build/fuzz-artifacts/$h-" -print_final_stats=1)
  d="$(dict_of "$h")"
  [ -n "$d" ] && args+=(-dict="$root/tests/fuzz/dict/$d.dict")
  echo "== fuzz_$h for ${secs}s"
  log="$build/fuzz-logs/$h.log"
  # ASan's own memory must not reach -rss_limit_mb in an hour: its quarantine, freed
  # memory kept from the OS, and a stack depot that keeps every distinct allocation
  # stack (a recursive-descent parser makes new ones at every depth). With the defaults
  # fuzz_size_expression grew from 44 MB to 1.4 GB in 35 minutes (one input repeated:
  # 350 MB flat). Allocation stacks in reports are cut to 3 frames; the faulting access's
  # own stack stays whole.
  if ! (cd "$build" && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16:allocator_release_to_os_interval_ms=1000:malloc_context_size=3} "$build/tests/fuzz/fuzz_$h" "${args[@]}" "$work" "$root/tests/fuzz/corpus/$h") >"$log" 2>&1; then
    echo "fuzz_$h FAILED: see $log and $build/fuzz-artifacts/"
    grep -E "ERROR|SUMMARY|invariant" "$log" | head -5 || true
    status=1
  fi
  grep -E "^#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb" "$log" | tail -3 || true
done
exit $status
