#!/usr/bin/env bash
# The window's live re-run on the GPU machine, which has no Qt: kernel-workbench
# runs offscreen on the Qt runtime that scripts/fetch_qt_runtime.sh gathered,
# selects each record, re-runs it through kwb-runner (native candidates) or the
# PyTorch bridge (KernelBench samples), waits for the result and writes a
# screenshot of the records view with the result on its "Live re-run" tab.
# Run from the repository root:
#
#   tests/gpu/gui_rerun_on_device.sh BUILD_DIR QT_RUNTIME OUT_DIR [RECORD_ID...]
#
# BUILD_DIR: a build tree with CUDA and the UI (app/workbench/kernel-workbench,
#   app/runner/{kwb-runner,kwb_torch_bridge.py,libkwb_bridge.so}); BUILD_DIR/lib may
#   hold shared libraries the machine lacks (as for device_validation.sh).
# QT_RUNTIME: the folder fetch_qt_runtime.sh wrote (its root/ or its qt-runtime.tar.xz);
#   fetch it with the workbench as the second argument so simdjson and SQLite come too:
#   scripts/fetch_qt_runtime.sh DIR BUILD_DIR/app/workbench/kernel-workbench
# RECORD_IDs: default: from datasets/evaluations an honest native candidate
#   (kb1_19_relu.simple) and a partial-write exploit (kb1_19_relu.partial_write), and from
#   the bridge fixtures (KWB_KERNELBENCH_SAMPLES, default tests/data/kernelbench_bridge/
#   samples.jsonl, problems from KWB_KERNELBENCH_DIR, default tests/data/kernelbench_bridge)
#   an honest KernelBench sample (relu_honest) and a side-stream exploit (relu_side_stream).
#
# Writes OUT_DIR/<id>.png, OUT_DIR/<id>.txt (the outcome line and stderr) and
# OUT_DIR/results.tgz. Exit status: the number of re-runs that gave no result.
set -u
BUILD=$(cd "$1" && pwd)
QTRT=$(cd "$2" && pwd)
OUT=$(mkdir -p "$3" && cd "$3" && pwd)
shift 3
REPO=$PWD
export KWB_KERNELBENCH_SAMPLES=${KWB_KERNELBENCH_SAMPLES:-$REPO/tests/data/kernelbench_bridge/samples.jsonl}
export KWB_KERNELBENCH_DIR=${KWB_KERNELBENCH_DIR:-$REPO/tests/data/kernelbench_bridge}

# The Qt runtime: unpack the carried archive once if only it came.
if [ ! -d "$QTRT/root" ]; then
    [ -f "$QTRT/qt-runtime.tar.xz" ] || { echo "no root/ or qt-runtime.tar.xz in $QTRT" >&2; exit 2; }
    QTRT_UNPACKED=$(mktemp -d)
    tar -C "$QTRT_UNPACKED" -xJf "$QTRT/qt-runtime.tar.xz"
    QTRT=$QTRT_UNPACKED
fi
R=$QTRT/root

# Fonts from the runtime, and a fontconfig cache of our own (the machine may have neither).
mkdir -p "$OUT/fontconfig-cache"
cat > "$OUT/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>$R/usr/share/fonts</dir>
  <cachedir>$OUT/fontconfig-cache</cachedir>
  <include ignore_missing="yes">$R/etc/fonts/conf.d</include>
</fontconfig>
EOF

CUDA_LIBS=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
BASE_LD=$BUILD/lib:$BUILD/app/runner:$CUDA_LIBS:${LD_LIBRARY_PATH:-}
# kwb-runner and the bridge's Python are started by the window: they get the machine's own
# libraries (Python's torch needs its newer libstdc++ and friends), not the Qt runtime.
WRAP=$OUT/wrappers
mkdir -p "$WRAP"
cat > "$WRAP/kwb-runner" <<EOF
#!/bin/sh
LD_LIBRARY_PATH='$BASE_LD' exec '$BUILD/app/runner/kwb-runner' "\$@"
EOF
PYTHON=${KWB_PYTHON:-$(command -v python3 || echo python3)}
cat > "$WRAP/python" <<EOF
#!/bin/sh
LD_LIBRARY_PATH='$BASE_LD' exec '$PYTHON' "\$@"
EOF
chmod +x "$WRAP/kwb-runner" "$WRAP/python"

export KWB_RUNNER=$WRAP/kwb-runner
export KWB_PYTHON=$WRAP/python
export KWB_TORCH_BRIDGE=$BUILD/app/runner/kwb_torch_bridge.py
export XDG_CONFIG_HOME=$OUT/config
export QT_QPA_PLATFORM=offscreen
export QT_PLUGIN_PATH=$R/usr/lib/x86_64-linux-gnu/qt6/plugins
export FONTCONFIG_FILE=$OUT/fonts.conf
GUI_LD=$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu:$BASE_LD
WB=$BUILD/app/workbench/kernel-workbench

{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1
    echo "== Qt libraries as kernel-workbench resolves them"
    LD_LIBRARY_PATH=$GUI_LD ldd "$WB" | grep -E "Qt6|icu|not found"
} > "$OUT/env.txt" 2>&1

# The project: the shipped evaluations and specs, plus the KernelBench samples when given.
PROJECT=$OUT/rerun.kwbproject.json
RECORDS="\"$REPO/datasets/evaluations\""
[ -f "$KWB_KERNELBENCH_SAMPLES" ] && RECORDS="$RECORDS, \"$(cd "$(dirname "$KWB_KERNELBENCH_SAMPLES")" && pwd)/$(basename "$KWB_KERNELBENCH_SAMPLES")\""
cat > "$PROJECT" <<EOF
{"schema": "kwb.project/1", "name": "GUI re-run on the GPU",
 "files": {"records": [$RECORDS],
           "problems": ["$REPO/datasets/problems", "$REPO/datasets/candidates"]}}
EOF

IDS=("$@")
if [ ${#IDS[@]} -eq 0 ]; then
    IDS=(kb1_19_relu.simple kb1_19_relu.partial_write)
    [ -f "$KWB_KERNELBENCH_SAMPLES" ] && IDS+=(relu_honest relu_side_stream)
fi

failures=0
for id in "${IDS[@]}"; do
    safe=$(printf '%s' "$id" | tr -c 'A-Za-z0-9._-' '_')
    start=$(date +%s)
    LD_LIBRARY_PATH=$GUI_LD timeout 900 "$WB" --project "$PROJECT" --rerun-record "$id" --rerun-timeout 600 \
        --screenshot "$OUT/$safe.png" --size 1600x1000 > "$OUT/$safe.txt" 2> "$OUT/$safe.err"
    rc=$?
    echo "$id exit $rc $(( $(date +%s) - start )) s: $(head -1 "$OUT/$safe.txt")"
    [ $rc -eq 0 ] || { failures=$((failures + 1)); tail -3 "$OUT/$safe.err"; }
done
tar -C "$OUT" -czf "$OUT/results.tgz" --exclude results.tgz --exclude fontconfig-cache --exclude config .
exit $failures
