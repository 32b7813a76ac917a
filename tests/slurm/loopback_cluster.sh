# Sourced by the Slurm tests: stands up a real Slurm cluster on 127.0.0.1 under
# a temporary folder (munged with its own key and socket, slurmctld, and one
# slurmd per fake node, each with fake GPUs: gres.conf File= entries that are
# symlinks to /dev/null) and tears it down. Nothing is written outside $KWB_SLURM_DIR.
#
#   kwb_cluster_start DIR NODES GPUS_PER_NODE   # exports SLURM_CONF; returns non-zero with the logs quoted
#   kwb_cluster_stop                            # kills what start started (by pid), idempotent
#
# Slurm 22.05 (Debian 12). Runs as root: slurmd must run tasks as the submitting user.

kwb_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

kwb_cluster_pids=()

kwb_cluster_stop() {
  local pid
  # Jobs first (their slurmstepd outlive slurmd): cancel everything in this cluster, wait for the queue to drain.
  if [ -n "${SLURM_CONF:-}" ] && [ "${#kwb_cluster_pids[@]}" -gt 0 ]; then
    scancel --full -u "$(id -un)" >/dev/null 2>&1 || true
    kwb_wait_for "[ -z \"\$(squeue -h -o %i 2>/dev/null)\" ]" 100 || true
  fi
  for pid in "${kwb_cluster_pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${kwb_cluster_pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  kwb_cluster_pids=()
}

kwb_cluster_logs() {
  local f
  for f in "$KWB_SLURM_DIR"/log/*.log; do
    [ -f "$f" ] || continue
    echo "---- $f (last 15 lines)"
    tail -n 15 "$f"
  done
}

# Waits until `cmd` succeeds, for at most $2 tenths of a second.
kwb_wait_for() {
  local cmd=$1 tenths=$2 i
  for i in $(seq 1 "$tenths"); do
    if eval "$cmd" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

kwb_cluster_start() {
  KWB_SLURM_DIR=$1
  local nodes=$2 gpus=$3 d=$1 n
  mkdir -p "$d/state" "$d/log" "$d/dev" "$d/munge"
  chmod 755 "$d/munge"
  # munged: own key, socket, pid, seed and log, all under the temporary folder.
  head -c 1024 /dev/urandom > "$d/munge/munge.key"
  chmod 400 "$d/munge/munge.key"
  munged --force -S "$d/munge/munge.sock" --key-file="$d/munge/munge.key" --pid-file="$d/munge/munged.pid" \
    --seed-file="$d/munge/munged.seed" --log-file="$d/log/munged.log" || { echo "munged did not start"; kwb_cluster_logs; return 1; }
  kwb_wait_for "[ -s '$d/munge/munged.pid' ]" 50 || { echo "munged wrote no pid file"; kwb_cluster_logs; return 1; }
  kwb_cluster_pids+=("$(cat "$d/munge/munged.pid")")

  local ctld_port; ctld_port=$(kwb_free_port)
  local node_lines="" gres_lines="" node_names=""
  for n in $(seq 1 "$nodes"); do
    local name="kwbnode$n" port; port=$(kwb_free_port)
    local g
    for g in $(seq 0 $((gpus - 1))); do ln -sf /dev/null "$d/dev/$name-gpu$g"; done
    node_lines+="NodeName=$name NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port CPUs=4 RealMemory=2000 Gres=gpu:$gpus State=UNKNOWN"$'\n'
    gres_lines+="NodeName=$name Name=gpu File=$d/dev/$name-gpu[0-$((gpus - 1))]"$'\n'
    node_names+="${node_names:+,}$name"
  done
  cat > "$d/slurm.conf" <<CONF
ClusterName=kwbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
MinJobAge=30
KillWait=2
ReturnToService=2
GresTypes=gpu
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
MaxArraySize=1001
$node_lines
PartitionName=kwb Nodes=$node_names Default=YES MaxTime=INFINITE State=UP
CONF
  printf '%s' "$gres_lines" > "$d/gres.conf"
  export SLURM_CONF="$d/slurm.conf"
  slurmctld -i -f "$SLURM_CONF" || { echo "slurmctld did not start"; kwb_cluster_logs; return 1; }
  kwb_wait_for "[ -s '$d/slurmctld.pid' ]" 50 || { echo "slurmctld wrote no pid file"; kwb_cluster_logs; return 1; }
  kwb_cluster_pids+=("$(cat "$d/slurmctld.pid")")
  for n in $(seq 1 "$nodes"); do
    mkdir -p "$d/spool/kwbnode$n"
    slurmd -N "kwbnode$n" -f "$SLURM_CONF" || { echo "slurmd kwbnode$n did not start"; kwb_cluster_logs; return 1; }
    kwb_wait_for "[ -s '$d/slurmd.kwbnode$n.pid' ]" 50 || { echo "slurmd kwbnode$n wrote no pid file"; kwb_cluster_logs; return 1; }
    kwb_cluster_pids+=("$(cat "$d/slurmd.kwbnode$n.pid")")
  done
  # Up when every node is idle.
  if ! kwb_wait_for "[ \"\$(sinfo -h -N -o '%t' | grep -c idle)\" -eq $nodes ]" 150; then
    echo "the nodes did not come up:"; sinfo -N 2>&1; kwb_cluster_logs; return 1
  fi
}
