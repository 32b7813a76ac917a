#!/usr/bin/env bash
# CTest `slurm_array` (label slurm): `kwb slurm` against a REAL Slurm cluster
# that this script stands up on 127.0.0.1 (munged, slurmctld, two slurmd as two
# fake nodes with fake GPUs) and tears down, even on failure.
#
# The fixture records (tests/data/candidates, through the stand-in runner) are
# verified once locally, then as an 8-task job array (one shard per task,
# --gres=gpu:1). One task is made to fail on purpose (its part file is a
# folder, so its kwb verify cannot write), `status --follow` must name it with
# its log, `resubmit` must send only it, and the merge must be byte for byte
# the local file.
#
#   slurm_array_test.sh KWB FAKE_RUNNER TEST_DATA_DIR
# Exit 77 (skipped) with the reason when Slurm, munge or root is missing, or
# when kwb was built without GPU support (kwb verify then refuses to run).
set -u
kwb=$(readlink -f "$1") fake_runner=$(readlink -f "$2") data=$(readlink -f "$3")
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIP: $*"; exit 77; }
for b in slurmctld slurmd sbatch squeue sinfo munged python3; do
  command -v "$b" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$b" >/dev/null 2>&1 \
    || skip "$b is not installed (Debian 12: slurmctld slurmd slurm-client munge; scripts/setup.sh installs them)"
done
export PATH=$PATH:/usr/sbin
[ "$(id -u)" -eq 0 ] || skip "a loopback Slurm cluster needs root (slurmd runs jobs as their user)"
"$kwb" verify /dev/null --out /dev/null >/dev/null 2>&1
[ $? -eq 3 ] && skip "this kwb has no GPU support (KWB_ENABLE_CUDA=OFF), so kwb verify refuses to run"

T=$(mktemp -d /tmp/kwb-slurm-test.XXXXXX)
. "$here/loopback_cluster.sh"
failed=0
cleanup() {
  kwb_cluster_stop
  if [ "$failed" -ne 0 ]; then
    kwb_cluster_logs
    for f in "$T"/merged.jsonl.slurm/task-*.log "$T"/hang/out.jsonl.slurm/task-*.log; do [ -f "$f" ] && { echo "---- $f"; tail -n 8 "$f"; }; done
  fi
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "FAIL: $*"; failed=1; exit 1; }
t0=$(date +%s)

kwb_cluster_start "$T/cluster" 2 4 || { failed=1; fail "the loopback cluster did not come up"; }
echo "cluster up: $(sinfo -h -N -o '%N %t %G' | tr '\n' ' ')($(( $(date +%s) - t0 )) s)"

# The fixture records: every candidate spec of tests/data, two samples each.
python3 - "$data" "$T/records.jsonl" <<'PY'
import glob, json, sys
data, out = sys.argv[1], sys.argv[2]
with open(out, "w") as f:
    for sample in (0, 1):
        for spec in sorted(glob.glob(data + "/candidates/*/*.json")):
            cid = json.load(open(spec))["id"]
            f.write(json.dumps({"schema": "kwb.record/1", "id": f"fx-{cid}-{sample}", "model": "fixtures",
                                "sample": sample, "source": {"path": spec}}) + "\n")
PY
records=$(wc -l < "$T/records.jsonl")
export KWB_RUNNER=$fake_runner

"$kwb" verify "$T/records.jsonl" --out "$T/local.jsonl" --quiet > "$T/local.out" 2>&1 \
  || { cat "$T/local.out"; fail "the local kwb verify failed"; }
[ "$(wc -l < "$T/local.jsonl")" -eq "$records" ] || fail "the local run wrote $(wc -l < "$T/local.jsonl") of $records records"

job="$T/merged.jsonl.slurm"
mkdir -p "$job/part-3.jsonl"   # task 3 cannot write its output: it fails on purpose
"$kwb" slurm submit "$T/records.jsonl" --out "$T/merged.jsonl" --shards 8 --sbatch=--time=5 -- --quiet > "$T/submit.out" 2>&1 \
  || { cat "$T/submit.out"; fail "kwb slurm submit failed"; }
cat "$T/submit.out"
first=$(sed -n 's/^submitted array job \([0-9]*\).*/\1/p' "$T/submit.out")
[ -n "$first" ] || fail "no array job id in the submit output"
grep -q "\"job_id\": \"$first\"" "$job/job.json" || fail "the array job id is not kept in $job/job.json"

"$kwb" slurm status "$job" --follow --interval 0.3 --timeout 60 > "$T/status1.out" 2>&1
rc=$?
cat "$T/status1.out"
[ $rc -eq 1 ] || fail "status --follow should exit 1 with a failed task (got $rc)"
grep -q "7 done, 1 failed" "$T/status1.out" || fail "status should count 7 done and 1 failed"
grep -q "task 3 .*failed.*kwb verify exited with status 1; log: $job/task-3.log" "$T/status1.out" \
  || fail "status should name failed task 3 with its log"
grep -q "part-3.jsonl: I/O error: is a directory" "$job/task-3.log" || fail "task 3's log should say why it failed"
grep -q "CUDA_VISIBLE_DEVICES=[0-9]" "$job/task-0.log" || fail "a task should run with a GPU of its own (--gres=gpu:1)"
nodes=$(cat "$job"/task-*.state | awk '{print $4}' | sort -u | wc -l)
[ "$nodes" -eq 2 ] || fail "the tasks should have run on both nodes (ran on $nodes)"
"$kwb" slurm merge "$job" > "$T/merge0.out" 2>&1 && fail "merge should refuse while shard 3 is missing"
grep -q "part-3.jsonl" "$T/merge0.out" || { cat "$T/merge0.out"; fail "merge should name the missing part"; }

rmdir "$job/part-3.jsonl"
"$kwb" slurm resubmit "$job" > "$T/resubmit.out" 2>&1 || { cat "$T/resubmit.out"; fail "resubmit failed"; }
cat "$T/resubmit.out"
grep -q "^resubmitted tasks 3 as array job " "$T/resubmit.out" || fail "resubmit should send task 3 only"
"$kwb" slurm status "$job" --follow --interval 0.3 --timeout 60 > "$T/status2.out" 2>&1 \
  || { cat "$T/status2.out"; fail "status --follow after the resubmit should exit 0"; }
cat "$T/status2.out"
grep -q "8 tasks: 8 done; $records/$records records" "$T/status2.out" || fail "every task and record should be done"
"$kwb" slurm resubmit "$job" | grep -q "nothing to resubmit" || fail "a second resubmit should find nothing to do"

"$kwb" slurm merge "$job" > "$T/merge.out" 2>&1 || { cat "$T/merge.out"; fail "merge failed"; }
cat "$T/merge.out"
cmp "$T/merged.jsonl" "$T/local.jsonl" || fail "the merged array output differs from the local run"
# A task killed while it runs (scancel): no exit status on file, so status calls it failed.
mkdir -p "$T/hang/problems" "$T/hang/candidates/tiny"
cat > "$T/hang/problems/tiny.json" <<'J'
{"schema": "kwb.problem/1", "id": "tiny", "sizes": {"N": 4096}, "inputs": [{"name": "x", "shape": ["N"]}],
 "outputs": [{"name": "out", "shape": ["N"]}], "reference": {"builtin": "relu"}, "flops": "N", "bytes": "8 * N"}
J
cat > "$T/hang/candidates/tiny/hang.json" <<'J'
{"schema": "kwb.candidate/1", "id": "tiny_hang_forever", "problem": "tiny", "form": "nvrtc",
 "source": "extern \"C\" __global__ void k(float* o) {}",
 "launches": [{"entry": "k", "grid": "ceil_div(N, 256)", "block": 256, "args": ["out"]}]}
J
echo "{\"schema\": \"kwb.record/1\", \"id\": \"hangs\", \"source\": {\"path\": \"$T/hang/candidates/tiny/hang.json\"}}" > "$T/hang/records.jsonl"
"$kwb" slurm submit "$T/hang/records.jsonl" --out "$T/hang/out.jsonl" --shards 1 -- --timeout=60 > "$T/hang.out" 2>&1 \
  || { cat "$T/hang.out"; fail "submitting the hanging batch failed"; }
hang_job=$(sed -n 's/^submitted array job \([0-9]*\).*/\1/p' "$T/hang.out")
kwb_wait_for "grep -q '^running' '$T/hang/out.jsonl.slurm/task-0.state' && grep -q 'hangs: compile' '$T/hang/out.jsonl.slurm/task-0.log'" 200 \
  || fail "the hanging task did not start"
"$kwb" slurm status "$T/hang/out.jsonl.slurm" | grep -q "1 task: 0 done, 1 running" || fail "status should show the task running"
scancel "$hang_job" || fail "scancel $hang_job failed"
"$kwb" slurm status "$T/hang/out.jsonl.slurm" --follow --interval 0.3 --timeout 30 > "$T/hang-status.out" 2>&1
rc=$?
cat "$T/hang-status.out"
[ $rc -eq 1 ] || fail "status --follow should exit 1 after the task was killed (got $rc)"
grep -q "task 0 .*failed.*log: $T/hang/out.jsonl.slurm/task-0.log" "$T/hang-status.out" || fail "status should name the killed task with its log"

echo "PASS: $records records in 8 shards on 2 nodes, task 3 failed and resubmitted, merge == local run, a killed task reported ($(( $(date +%s) - t0 )) s)"
