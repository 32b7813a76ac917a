#!/bin/sh
# Rewrites the golden breakdowns of the committed traces (datasets/traces).
# Run after an intended change to the rules, the readers or the breakdown:
#   tests/data/traces/regenerate.sh [path/to/kwb]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kwb=${1:-$here/../../../build/app/kwb/kwb}
kwb=$(cd "$(dirname "$kwb")" && pwd)/$(basename "$kwb")
cd "$here/../../../datasets/traces"
for t in *.json.gz; do
    name=${t%.json.gz}
    "$kwb" breakdown --format json "$t" > "$here/$name.breakdown.json"
done
