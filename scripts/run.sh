#!/usr/bin/env bash
# Installs, builds and runs the main job on the embedded default project
# (datasets/default.kwbproject.json): the workbench window where there is a
# display, otherwise the standard figure set rendered to out/figures/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
KWB_BUILD_DIR="$root/build" "$root/scripts/build.sh"
project="$root/datasets/default.kwbproject.json"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$root/build/app/workbench/kernel-workbench" "$project" "$@"
fi
out="${KWB_FIGURES_OUT:-$root/out/figures}"
QT_QPA_PLATFORM=offscreen "$root/build/app/kwb/kwb" figures --out "$out" "$project" "$@"
echo "figures written to $out"
