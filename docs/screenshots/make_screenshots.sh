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
size=1600x1000
for view in records distributions workloads coverage suspicious; do
  "$app" "$here/screenshots.kwbproject.json" --view "$view" --record "$record" --size $size \
    --screenshot "$here/$view.png"
done
"$app" "$here/screenshots.kwbproject.json" --view distributions --chart ecdf --size $size \
  --screenshot "$here/distributions_ecdf.png"
"$app" "$here/screenshots.kwbproject.json" --view distributions --chart box --size $size \
  --screenshot "$here/distributions_box.png"
# The charts, statistics, pivot and projection follow the Records filters: the pivot of the
# leaderboard's records (the search matches their ids), the distributions of level 1.
"$app" "$here/screenshots.kwbproject.json" --view pivot --filter search=leaderboard --size $size \
  --screenshot "$here/pivot.png"
"$app" "$here/screenshots.kwbproject.json" --view distributions --filter level=1 --size $size \
  --screenshot "$here/distributions_filtered.png"
"$app" "$here/screenshots.kwbproject.json" --view workloads --filter search=relu --size $size \
  --screenshot "$here/workloads_filtered.png"
# Two records side by side: the honest ReLU and the one that writes a sliver of its output.
"$app" "$here/screenshots.kwbproject.json" --view records --compare kb1_19_relu.simple,$record --size $size \
  --screenshot "$here/compare.png"
# KernelBench's metadata of an incorrect sample in the details pane.
"$app" "$root/tests/data/kernelbench/runs/level1_metadata_run/eval_results.json" --view records \
  --record level1_metadata_run/L1/19/0 --size $size --screenshot "$here/details_kernelbench.png"
# Claimed against verified: the default project, whose records include the leaderboard's 413
# re-verified on the H200 (datasets/evaluations/leaderboard_h200.jsonl.gz).
"$app" "$root/datasets/default.kwbproject.json" --view claims --size $size --screenshot "$here/claims_h200.png"
# Exported figures (as File → Export Figure writes them), here as PNG.
for view in records suspicious workloads; do
  "$app" "$here/screenshots.kwbproject.json" --view "$view" --export "$here/figure_$view.png"
done
"$app" "$here/screenshots.kwbproject.json" --view pivot --filter search=leaderboard --export "$here/figure_pivot.png"
if [ -x "$build/tests/core/kwb_fake_runner" ]; then
  KWB_RUNNER="$build/tests/core/kwb_fake_runner" "$app" --project "$here/screenshots.kwbproject.json" \
    --rerun-record "$record" --size $size --screenshot "$here/rerun.png"
fi
