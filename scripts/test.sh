#!/usr/bin/env bash
# Installs, builds and runs every test: the full build (core, ui, gpu labels;
# GPU tests skip with their reason where there is no device), then the core
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${KWB_JOBS:-$(nproc)}"

"$root/scripts/setup.sh"

echo "== build (RelWithDebInfo)"
KWB_BUILD_DIR="$root/build" "$root/scripts/build.sh"
echo "== tests"
(cd "$root/build" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs")

echo "== core tests under ASan + UBSan"
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKWB_SANITIZE=ON \
  -DKWB_BUILD_UI=OFF -DKWB_ENABLE_CUDA=OFF -DKWB_BUILD_BENCH=OFF
cmake --build "$root/build-asan" -j "$jobs"
(cd "$root/build-asan" && ctest --output-on-failure -L core -j "$jobs")
echo "== fuzz harnesses (5 s each, ASan + UBSan; docs/reliability.md)" && "$root/scripts/fuzz.sh" 5
