#!/bin/sh
# Rewrites the golden breakdowns of the scale-sweep traces (datasets/scale_sweep).
# Run after an intended change to the rules, the readers or the breakdown:
#   tests/data/scale_sweep/regenerate.sh [path/to/kwb]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kwb=${1:-$here/../../../build/app/kwb/kwb}
kwb=$(cd "$(dirname "$kwb")" && pwd)/$(basename "$kwb")
cd "$here/../../../datasets/scale_sweep"
for t in *.json.gz; do
    name=${t%.json.gz}
    "$kwb" breakdown --format json "$t" > "$here/$name.breakdown.json"
done
