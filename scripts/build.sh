#!/usr/bin/env bash
# Configures and builds into build/ (Release with debug info). Extra arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KWB_BUILD_DIR:-$root/build}"
jobs="${KWB_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build" -j "$jobs"
