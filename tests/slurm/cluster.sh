#!/bin/sh
# A real single-node Slurm cluster on this machine, all of it inside one directory, for
# tests that submit job arrays (tests/slurm/test-*.sh). Nothing system-wide is used or
# disturbed: munged runs on its own socket and key in DIR, slurmctld and slurmd on their
# own config, state, spool, logs and ports (16817/16818); every daemon is started by this
# script and stopped by the pid it recorded.
#
#   tests/slurm/cluster.sh start DIR     installs slurm-wlm + munge if missing (apt-get),
#                                        starts munged, slurmctld, slurmd, waits until the
#                                        node is idle; prints `export SLURM_CONF=...` on stdout
#   tests/slurm/cluster.sh stop DIR      cancels what is still queued, stops exactly the
#                                        daemons that start recorded (TERM, then KILL), exit 1
#                                        if one is still alive
#   tests/slurm/cluster.sh submit-wait DIR SCRIPT [SBATCH_ARG]...
#                                        sbatch SCRIPT, waits (bounded) until every task of
#                                        the job (array) ended; exit 1 if one did not complete
#                                        with exit code 0, or on timeout (the job is cancelled).
#                                        Prints the job id on stdout.
#
# Use from a test (start's status must be checked before the eval: `eval "$(...)"` alone
# hides a failure):
#   trap 'tests/slurm/cluster.sh stop "$D"' EXIT
#   env=$(SLURM_TEST_OWNER_PID=$$ tests/slurm/cluster.sh start "$D") || exit 1; eval "$env"
#   job=$(tests/slurm/cluster.sh submit-wait "$D" job.sh --array=0-3 --output="$D/job-%A_%a.out") || exit 1
#
# Environment: SLURM_TEST_CTLD_PORT (16817), SLURM_TEST_SLURMD_PORT (16818),
# SLURM_TEST_START_TIMEOUT (30 s: each daemon, then the node to be idle),
# SLURM_TEST_JOB_TIMEOUT (300 s: submit-wait), SLURM_TEST_OWNER_PID (start: a watchdog
# stops the cluster by itself once that process is gone, e.g. a test killed by ctest's
# timeout before its trap could run; its log: DIR/log/watchdog.log).
# Root is needed (slurmd launches jobs as their user; apt-get): otherwise exit 77, which
# ctest counts as skipped.
set -eu

say() { echo "cluster.sh: $*" >&2; }
die() { say "$*"; exit 1; }

usage() {
  echo "usage: $0 start DIR | stop DIR | submit-wait DIR SCRIPT [SBATCH_ARG]..." >&2
  exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
D=$2
shift 2
case $D in /*) ;; *) D=$(pwd)/$D ;; esac

CTLD_PORT=${SLURM_TEST_CTLD_PORT:-16817}
SLURMD_PORT=${SLURM_TEST_SLURMD_PORT:-16818}
START_TIMEOUT=${SLURM_TEST_START_TIMEOUT:-30}
JOB_TIMEOUT=${SLURM_TEST_JOB_TIMEOUT:-300}
CONF=$D/slurm.conf
SOCK=$D/munge/munge.socket
PIDS=$D/pids            # one file per daemon this script started: its pid
export SLURM_CONF="$CONF"  # every client below (sinfo, scontrol, sbatch, squeue, scancel)

# Marker in the environment of every daemon started here (slurmd passes its environment
# on to slurmstepd): stop finds what is left of this cluster, and of no other, by it.
MARK="VTICK_SLURM_TEST_CLUSTER=$D"

# --- install ----------------------------------------------------------------------------
install_packages() {
  missing=""
  for c in slurmctld slurmd sbatch munged mungekey; do
    command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
  done
  [ -z "$missing" ] && return 0
  say "missing:$missing; installing slurm-wlm and munge with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  # The packages' maintainer scripts would start a system-wide munged (and try slurmd and
  # slurmctld): a policy-rc.d that forbids it while they run, unless one is there already.
  tmp_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    tmp_policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\n# tests/slurm/cluster.sh: no service starts during its apt-get install\nexit 101\n' > "$tmp_policy"
    chmod 755 "$tmp_policy"
    trap 'rm -f "$tmp_policy"' EXIT
    trap 'rm -f "$tmp_policy"; exit 1' INT TERM HUP
  fi
  log=$D/apt.log
  rc=0
  apt-get install -y -q -o DPkg::Lock::Timeout=120 --no-install-recommends slurm-wlm munge > "$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    say "apt-get install failed ($rc): apt-get update, then again"
    rc=0
    { apt-get update -q -o DPkg::Lock::Timeout=120 && apt-get install -y -q -o DPkg::Lock::Timeout=120 --no-install-recommends slurm-wlm munge; } >> "$log" 2>&1 || rc=$?
  fi
  if [ -n "$tmp_policy" ]; then
    rm -f "$tmp_policy"
    trap - EXIT INT TERM HUP
  fi
  if [ $rc -ne 0 ]; then
    tail -n 20 "$log" >&2
    die "apt-get install slurm-wlm munge failed (log: $log)"
  fi
  for c in slurmctld slurmd sbatch munged mungekey; do
    command -v "$c" >/dev/null 2>&1 || die "$c still missing after apt-get install slurm-wlm munge"
  done
}

# --- daemons ----------------------------------------------------------------------------
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

pid_of() { [ -f "$PIDS/$1" ] && cat "$PIDS/$1" || true; }

log_tail() {  # log_tail NAME FILE...
  name=$1; shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    case $f in *.out) [ -s "${f%.out}.log" ] && continue ;; esac  # the same lines as its .log
    say "--- last lines of $f ($name) ---"
    tail -n 25 "$f" >&2
  done
}

# fail_start NAME MESSAGE LOG...: tell why, show the logs, stop what was started, exit 1
fail_start() {
  name=$1; msg=$2; shift 2
  say "$name: $msg"
  log_tail "$name" "$@"
  if cat "$@" 2>/dev/null | grep -q 'Address already in use'; then
    say "port $CTLD_PORT or $SLURMD_PORT is taken: another test cluster still running (one whose test was killed" \
        "before its stop: tests/slurm/cluster.sh stop ITS_DIR), or choose SLURM_TEST_CTLD_PORT / SLURM_TEST_SLURMD_PORT"
  fi
  do_stop >&2 || true
  exit 1
}

# launch NAME LOG CMD...: CMD in the background (foreground mode, its output to LOG), pid recorded
launch() {
  name=$1; out=$2; shift 2
  env "$MARK" "$@" < /dev/null >> "$out" 2>&1 &
  echo $! > "$PIDS/$name"
}

# wait_for NAME TEST LOG...: poll TEST (a shell command) each 0.2 s until it succeeds,
# START_TIMEOUT seconds at most; the daemon NAME dying meanwhile fails at once
wait_for() {
  name=$1; test=$2; shift 2
  pid=$(pid_of "$name")
  n=0
  while ! eval "$test" >/dev/null 2>&1; do
    alive "$pid" || fail_start "$name" "exited during start-up" "$@"
    n=$((n + 1))
    [ $n -le $((START_TIMEOUT * 5)) ] || fail_start "$name" "not ready after ${START_TIMEOUT} s ($test)" "$@"
    sleep 0.2
  done
}

write_conf() {
  host=$(hostname -s 2>/dev/null || hostname)
  [ -n "$host" ] || die "no host name (hostname -s)"
  cpus=$(nproc)
  # The node's address is given (127.0.0.1), so the host name need not resolve; the name
  # itself must be the one slurmctld and slurmd see as theirs (hostname -s).
  cat > "$CONF" <<EOF
# written by tests/slurm/cluster.sh start: a single-node test cluster, all in $D
ClusterName=vticktest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroup plugin anywhere: nothing to set up on the host, no cgroup.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
# each array task as soon as a CPU is free (the default batch_sched_delay=3 holds them back)
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# the node as configured here, whatever slurmd detects (no INVAL node on an odd topology)
SlurmdParameters=config_overrides
# finished jobs stay in slurmctld for an hour: submit-wait reads their state and exit
# code from it (there is no slurmdbd, so no sacct)
MinJobAge=3600
SlurmdTimeout=60
InactiveLimit=0
MailProg=/bin/true
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  echo "$host" > "$D/hostname"
}

do_start() {
  [ "$(id -u)" -eq 0 ] || { say "needs root (slurmd, apt-get): skipped"; exit 77; }
  mkdir -p "$D"
  if [ -d "$PIDS" ]; then
    for f in "$PIDS"/*; do
      [ -f "$f" ] && alive "$(cat "$f")" && die "$D already has a running cluster (pid $(cat "$f"), $(basename "$f")): stop it first"
    done
  fi
  install_packages
  mkdir -p "$PIDS" "$D/log" "$D/state" "$D/spool"
  mkdir -p "$D/munge"
  chmod 755 "$D/munge"  # munged wants its socket's directory open to all (the key in it stays 0600)
  # munge: a key of this cluster's own, 0600 and owned by root as munged insists
  key=$D/munge/munge.key
  if [ ! -s "$key" ]; then
    rm -f "$key"
    mungekey --create --keyfile="$key" --bits=1024 2>> "$D/log/munged.log" ||
      dd if=/dev/urandom of="$key" bs=1 count=1024 2>/dev/null
  fi
  chmod 600 "$key"
  chown 0:0 "$key" 2>/dev/null || true
  # --force: munged as root, and a DIR under a world-writable /tmp, are only warnings then
  launch munged "$D/log/munged.out" munged --foreground --force \
    --socket="$SOCK" --key-file="$key" --pid-file="$D/munge/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munge/munged.seed"
  wait_for munged "munge --socket='$SOCK' -n | unmunge --socket='$SOCK'" "$D/log/munged.log" "$D/log/munged.out"

  write_conf
  host=$(cat "$D/hostname")
  launch slurmctld "$D/log/slurmctld.out" slurmctld -D -f "$CONF"
  wait_for slurmctld "scontrol ping | grep -q UP" "$D/log/slurmctld.log" "$D/log/slurmctld.out"
  launch slurmd "$D/log/slurmd.out" slurmd -D -f "$CONF" -N "$host"
  wait_for slurmd "[ \"\$(sinfo -h -N -n '$host' -o %T)\" = idle ]" \
    "$D/log/slurmd.log" "$D/log/slurmd.out" "$D/log/slurmctld.log"
  if [ -n "${SLURM_TEST_OWNER_PID:-}" ]; then
    sh "$0" watch "$D" "$SLURM_TEST_OWNER_PID" < /dev/null >> "$D/log/watchdog.log" 2>&1 &
    echo $! > "$PIDS/watchdog"
  fi
  say "up: node $host ($(nproc) CPUs), $(sinfo --version), conf $CONF"
  echo "export SLURM_CONF='$CONF'"
}

# --- stop -------------------------------------------------------------------------------
# pids of processes still carrying this cluster's marker (slurmstepd, job steps, daemons)
marked_pids() {
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    [ "$p" = $$ ] && continue
    { tr '\0' '\n' < "$e"; } 2>/dev/null | grep -qxF "$MARK" && echo "$p"
  done
  return 0
}

# stop_pids WHAT PID...: TERM, up to 5 s, then KILL, up to 2 s more; status 1 if one lives on
stop_pids() {
  what=$1; shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  n=0
  while [ $n -lt 50 ]; do
    left=""
    for p in "$@"; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1; n=$((n + 1))
  done
  say "$what:$left still alive after TERM: KILL"
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null || true
  n=0
  while [ $n -lt 20 ]; do
    still=""
    for p in $left; do alive "$p" && still="$still $p"; done
    [ -z "$still" ] && return 0
    sleep 0.1; n=$((n + 1))
  done
  say "$what:$still still alive after KILL"
  return 1
}

do_stop() {
  [ -d "$PIDS" ] || { say "nothing to stop in $D"; return 0; }
  ctld=$(pid_of slurmctld)
  if alive "$ctld" && [ -f "$CONF" ]; then  # jobs still queued or running: cancelled first
    jobs=$(timeout 10 squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ') || true
    if [ -n "$jobs" ]; then
      say "cancelling jobs still there: $jobs"
      # shellcheck disable=SC2086
      timeout 10 scancel $jobs 2>/dev/null || true
      # their ends, up to 5 s (without slurmd they stay COMPLETING: not waited for)
      n=0
      while [ $n -lt 25 ] && alive "$(pid_of slurmd)" && [ -n "$(timeout 5 squeue -h -o %A 2>/dev/null)" ]; do
        sleep 0.2; n=$((n + 1))
      done
    fi
  fi
  w=$(pid_of watchdog)
  if [ -n "$w" ] && [ "$w" != $$ ]; then
    alive "$w" && kill "$w" 2>/dev/null || true
    rm -f "$PIDS/watchdog"
  fi
  # all three at once: each takes about 2 s to end on TERM, and none needs another to end
  rc=0
  started=""
  for name in slurmd slurmctld munged; do
    p=$(pid_of "$name")
    alive "$p" && started="$started $p"
  done
  # shellcheck disable=SC2086
  stop_pids "slurmd, slurmctld, munged" $started || rc=1
  rm -f "$PIDS/slurmd" "$PIDS/slurmctld" "$PIDS/munged"
  # whatever else this cluster started (a job's slurmstepd, its processes)
  # shellcheck disable=SC2046
  stop_pids "left over" $(marked_pids) || rc=1
  left=$(marked_pids | tr '\n' ' ')
  [ -z "$left" ] || { say "processes of this cluster still running: $left"; rc=1; }
  if [ $rc -eq 0 ]; then
    if [ -n "$started" ]; then say "stopped (nothing of $D left running)"; else say "nothing of $D was running"; fi
  fi
  return $rc
}

# --- submit-wait ------------------------------------------------------------------------
# Each client command runs in the background and is waited for: a TERM to submit-wait
# (its caller's trap) ends it at once, client included; a client in the foreground would
# delay the trap and, once orphaned, retry a stopped slurmctld for seconds.
child=""
tmp_out=""
on_signal() {
  [ -z "$child" ] || kill "$child" 2>/dev/null || true
  exit 1
}
ctl() {  # ctl CMD...: CMD's status; its stdout in $tmp_out, its stderr in $tmp_out.err
  "$@" > "$tmp_out" 2> "$tmp_out.err" &
  child=$!
  r=0
  wait "$child" || r=$?
  child=""
  return $r
}

do_submit_wait() {
  [ $# -ge 1 ] || usage
  script=$1; shift
  [ -f "$CONF" ] || die "no cluster in $D (cluster.sh start $D first)"
  tmp_out=$(mktemp "$D/.submit-wait.XXXXXX")
  trap on_signal INT TERM HUP
  trap 'rm -f "$tmp_out" "$tmp_out.err"' EXIT
  # the marker in the job's environment too (sbatch exports it unless told otherwise):
  # stop finds a task's processes that outlive their slurmstepd
  ctl env "$MARK" sbatch --parsable "$@" "$script" || die "sbatch $* $script failed: $(cat "$tmp_out.err")"
  out=$(cat "$tmp_out")
  job=${out%%;*}
  say "submitted job $job ($script $*)"
  t0=$(date +%s)
  while :; do
    for name in munged slurmctld slurmd; do  # a daemon gone: the job would never end
      p=$(pid_of "$name")
      if [ -n "$p" ] && ! alive "$p"; then
        log_tail "$name" "$D/log/$name.log"
        die "job $job: $name (pid $p) is no longer running"
      fi
    done
    # one line per task (a pending array range is one line); done when none is active
    ctl scontrol -o show job "$job" || die "scontrol show job $job: $(cat "$tmp_out.err")"
    info=$(cat "$tmp_out")
    active=$(printf '%s\n' "$info" | grep -cE 'JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT|RESV_DEL_HOLD|REQUEUE_FED|REQUEUE_HOLD|SPECIAL_EXIT|STOPPED)' || true)
    [ "$active" -eq 0 ] && break
    if [ $(($(date +%s) - t0)) -ge "$JOB_TIMEOUT" ]; then
      say "job $job: $active task(s) not done after ${JOB_TIMEOUT} s: cancelled"
      printf '%s\n' "$info" | awk '{for(i=1;i<=NF;i++) if ($i ~ /^(JobId|ArrayTaskId|JobState|Reason)=/) printf "%s ", $i; print ""}' >&2
      timeout 10 scancel "$job" 2>/dev/null || true
      exit 1
    fi
    ctl sleep 0.5 || true
  done
  # every task: COMPLETED with exit code 0:0 (status:signal)
  bad=$(printf '%s\n' "$info" | awk '
    { st=""; ec=""; id=""; tk=""; so=""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^JobState=/) st = substr($i, 10)
        else if ($i ~ /^ExitCode=/) ec = substr($i, 10)
        else if ($i ~ /^JobId=/) id = substr($i, 7)
        else if ($i ~ /^ArrayTaskId=/) tk = substr($i, 13)
        else if ($i ~ /^StdOut=/) so = substr($i, 8)
      }
      if (st != "COMPLETED" || ec != "0:0") print (tk != "" ? "task " tk : "job " id), st, "exit " ec, so
    }')
  n=$(printf '%s\n' "$info" | grep -c 'JobState=' || true)
  if [ -n "$bad" ]; then
    say "job $job: tasks that failed (of $n):"
    printf '%s\n' "$bad" >&2
    printf '%s\n' "$bad" | while read -r _ _ _ _ _ so; do
      [ -n "$so" ] && [ -f "$so" ] && { say "--- $so ---"; tail -n 15 "$so" >&2; }
    done
    exit 1
  fi
  say "job $job: all $n task(s) completed, exit 0, in $(($(date +%s) - t0)) s"
  echo "$job"
}

# watch DIR PID (started by start): stop the cluster once PID is gone
do_watch() {
  owner=$1
  while alive "$owner"; do sleep 1; done
  say "$(date '+%F %T'): process $owner is gone without stopping the cluster: stopping it"
  do_stop
}

case $cmd in
  start) do_start ;;
  stop) do_stop ;;
  submit-wait) do_submit_wait "$@" ;;
  watch) [ $# -eq 1 ] || usage; do_watch "$1" ;;
  *) usage ;;
esac
