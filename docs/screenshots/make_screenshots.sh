#!/bin/sh
# Regenerates the README screenshots the way users can: kernel-workbench
# --screenshot renders a view of a project offscreen and exits.
#   docs/screenshots/make_screenshots.sh [BUILD_DIR]   (default: build)
# The project lists datasets/ (H200 verification records, traces, problem
# suite) and the public KernelBench leaderboard from ../shared/data when it
# sits beside the checkout (skipped with a note otherwise); KernelBench's
# problem files there name the leaderboard's problems. rerun.png is a live
# re-run from the window against core's stand-in runner (tests/core), when the
# build has it; on a GPU machine tests/gpu/gui_rerun_on_device.sh takes the real one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
app="$build/app/workbench/kernel-workbench"
export QT_QPA_PLATFORM=offscreen
# Settings of a user of this machine (a KernelBench checkout, recent files) stay out of the pictures.
XDG_CONFIG_HOME=$(mktemp -d)
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
kb="$root/../shared/data/kernelbench/problems/v0/KernelBench"
[ -d "$kb" ] && export KWB_KERNELBENCH_DIR="$kb"
# The exploit that writes a sliver of its output: records and coverage show it.
record=kb1_19_relu.partial_write
for view in records distributions workloads coverage suspicious; do
  "$app" "$here/screenshots.kwbproject.json" --view "$view" --record "$record" --size 1280x800 \
    --screenshot "$here/$view.png"
done
"$app" "$here/screenshots.kwbproject.json" --view distributions --chart ecdf --size 1280x800 \
  --screenshot "$here/distributions_ecdf.png"
"$app" "$here/screenshots.kwbproject.json" --view distributions --chart box --size 1280x800 \
  --screenshot "$here/distributions_box.png"
if [ -x "$build/tests/core/kwb_fake_runner" ]; then
  KWB_RUNNER="$build/tests/core/kwb_fake_runner" "$app" --project "$here/screenshots.kwbproject.json" \
    --rerun-record "$record" --size 1280x800 --screenshot "$here/rerun.png"
fi
