#!/usr/bin/env bash
# Measure `sysbench threads` on the real Linux guest this runs on (issue 11, item 7): the
# cases vtick's sysbench_threads scenario must reproduce, with the counters that tell
# packing, halts and IPIs apart. Raw snapshots go to OUTDIR/raw; scripts/measure-guest-report.py
# turns them into OUTDIR/measure.json and OUTDIR/measure.md. Needs root and a real guest:
# it installs Debian packages, mounts tracefs, runs perf stat system-wide and traces in an
# ftrace instance of its own. Never in CI.
# usage: scripts/measure-guest.sh [--out DIR] [--time S] [--repeat R] [--quiet-pct P]
#                                 [--quiet-wait S] [--only LIST] [--long S]
set -Eeuo pipefail
trap 'echo "measure-guest.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

die() { echo "measure-guest.sh: $*" >&2; exit 2; }

if [ -n "${VTICK_CI:-}" ] || [ -n "${CI:-}" ]; then
  die "refusing to run under CI (VTICK_CI or CI is set): this measures the machine itself"
fi
[ "$(uname -s)" = Linux ] || die "needs a Linux guest, this is $(uname -s)"
[ "$(id -u)" -eq 0 ] || die "needs root (apt-get, tracefs, system-wide perf); run it with sudo"

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=/tmp/vtick-measure-$(date -u +%Y%m%dT%H%M%SZ)
T=12            # seconds per sysbench run
REPEAT=3        # repeats of the quiet N=2 run (spread over the session)
QUIET_PCT=15    # start a run only when the machine's busy time is below this % of one CPU ...
QUIET_WAIT=90   # ... waiting at most this many seconds (then run anyway and flag it)
ONLY=""         # comma-separated run names to do (default: all)
LONG=0          # seconds of one more quiet N=2 traced run, n2-long, at the end (0: none)
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
    --time) [ $# -ge 2 ] || die "--time needs seconds"; T=$2; shift 2 ;;
    --repeat) [ $# -ge 2 ] || die "--repeat needs a count"; REPEAT=$2; shift 2 ;;
    --quiet-pct) [ $# -ge 2 ] || die "--quiet-pct needs a percentage"; QUIET_PCT=$2; shift 2 ;;
    --quiet-wait) [ $# -ge 2 ] || die "--quiet-wait needs seconds"; QUIET_WAIT=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs a list of run names"; ONLY=$2; shift 2 ;;
    --long) [ $# -ge 2 ] || die "--long needs seconds"; LONG=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (allowed: --out --time --repeat --quiet-pct --quiet-wait --only --long)" ;;
  esac
done
for pair in T:--time REPEAT:--repeat QUIET_PCT:--quiet-pct QUIET_WAIT:--quiet-wait LONG:--long; do
  v=${pair%%:*}
  [[ ${!v} =~ ^[0-9]+$ ]] || die "${pair#*:} must be a whole number, got '${!v}'"
done
KNOWN=",idle,n1,n2,n4,n8,n2-locks1,n2-apart,n2-together,n2-apart2p,n2-together2p,n2-busy,n2-periodic,idle-end,n2-long,"
KNOWN+=$(seq -f 'n2-r%g,' 2 "$REPEAT" 2>/dev/null | tr -d '\n')
if [ -n "$ONLY" ]; then
  IFS=, read -ra wanted <<< "$ONLY"
  for w in "${wanted[@]}"; do
    [[ $KNOWN == *",$w,"* ]] || die "--only: unknown run '$w' (allowed:${KNOWN//,/ })"
  done
fi
[ "$T" -ge 6 ] || die "--time must be at least 6 seconds (the counter window is time - 2 s)"
WINDOW=$((T - 2))  # seconds between snapshots A and B; the 0.3 s pin delay and 0.5 s perf stat set-up come first
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || die "needs at least 2 vCPUs, this guest has $NCPU"

# --- tools -------------------------------------------------------------------------------
need=()
command -v sysbench >/dev/null || need+=(sysbench)
command -v perf >/dev/null || need+=(linux-perf)
command -v python3 >/dev/null || need+=(python3)
command -v taskset >/dev/null || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# perf needs the event formats from tracefs; mount it where the kernel expects it.
if [ ! -e /sys/kernel/tracing/events/sched/sched_switch ]; then
  mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs on /sys/kernel/tracing"
fi
[ -e /sys/kernel/tracing/events/sched/sched_switch ] || die "no sched tracepoints in tracefs"
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug || true

RAW=$OUT/raw
mkdir -p "$RAW"
echo "raw data in $RAW" >&2

# --- processes we start, ended by their pid on any exit -----------------------------------
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -d "${TRACE_INST:-/nonexistent}" ]; then echo 0 > "$TRACE_INST/tracing_on"; rmdir "$TRACE_INST" || true; fi
}
trap cleanup EXIT

# --- environment ------------------------------------------------------------------------
env_section() { echo "=== $1"; shift; "$@" 2>&1 || echo "(unavailable: exit $?)"; }
CONFIG_RE='^(# )?CONFIG_(HZ|NO_HZ|PREEMPT|CPU_IDLE|HALTPOLL|SCHED_MC|SCHED_SMT|SCHED_CLUSTER|SCHEDSTATS|PARAVIRT|KVM_GUEST)'
kernel_config() {
  if [ -r "/boot/config-$(uname -r)" ]; then echo "from /boot/config-$(uname -r)"; grep -E "$CONFIG_RE" "/boot/config-$(uname -r)"
  elif [ -r /proc/config.gz ]; then echo "from /proc/config.gz"; zcat /proc/config.gz | grep -E "$CONFIG_RE"
  else echo "none: neither /boot/config-$(uname -r) nor /proc/config.gz"; fi
}
topology() {
  local c
  for c in /sys/devices/system/cpu/cpu[0-9]*; do
    echo "${c##*/} smt=$(cat "$c/topology/thread_siblings_list") core=$(cat "$c/topology/core_siblings_list") cluster=$(cat "$c/topology/cluster_cpus_list" 2>/dev/null || echo -)"
  done
}
{
  env_section date date -u +%Y-%m-%dT%H:%M:%SZ
  env_section uname uname -a
  env_section debian cat /etc/debian_version
  env_section lscpu lscpu
  env_section cmdline cat /proc/cmdline
  env_section config kernel_config
  env_section cpuidle_driver cat /sys/devices/system/cpu/cpuidle/current_driver
  env_section cpuidle_governor cat /sys/devices/system/cpu/cpuidle/current_governor_ro
  env_section cpuidle_states sh -c 'ls /sys/devices/system/cpu/cpu0/cpuidle 2>/dev/null || echo "no per-CPU cpuidle states"'
  env_section clocksource cat /sys/devices/system/clocksource/clocksource0/current_clocksource
  env_section clocksources cat /sys/devices/system/clocksource/clocksource0/available_clocksource
  env_section topology topology
  env_section preempt sh -c 'cat /sys/kernel/debug/sched/preempt 2>&1'
  env_section sched_debug_head sh -c 'head -12 /sys/kernel/debug/sched/debug 2>&1; grep -E "^cpu#|max_idle_balance_cost|avg_idle" /sys/kernel/debug/sched/debug 2>&1'
  env_section sched_sysctl sh -c 'grep -H . /proc/sys/kernel/sched_* 2>&1'
  env_section vendor_sched_symbols sh -c 'grep -E " (vcpu_pack_room|setup_sched_vcpu_pack)$" /proc/kallsyms | sed "s/^[0-9a-f]* //" || echo none'
  env_section kvm_guest_features sh -c 'dmesg 2>/dev/null | grep -E "kvm-guest|kvm-clock|PV |clocksource: Switched" | sed "s/^\[[ 0-9.]*\] //" || echo "dmesg unreadable"'
  env_section stat cat /proc/stat
  env_section loadavg cat /proc/loadavg
  env_section versions sh -c 'sysbench --version; perf --version; python3 --version'
} > "$RAW/env.txt"

# --- helpers ------------------------------------------------------------------------------
busy_pct_1s() {  # % of one CPU spent non-idle over the next second, machine-wide
  local a b
  a=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat)
  sleep 1
  b=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat)
  echo "$a $b" | awk '{busy=$3-$1; idle=$4-$2; n=busy+idle; print (n>0)? int(100*busy/(n/'"$NCPU"')) : 0}'
}
wait_quiet() {  # writes the last busy % and the seconds waited to $1
  local start=$SECONDS pct
  while :; do
    pct=$(busy_pct_1s)
    if [ "$pct" -lt "$QUIET_PCT" ] || [ $((SECONDS - start)) -ge "$QUIET_WAIT" ]; then break; fi
    sleep 1
  done
  echo "quiet_busy_pct=$pct quiet_waited_s=$((SECONDS - start)) quiet_ok=$([ "$pct" -lt "$QUIET_PCT" ] && echo 1 || echo 0)" >> "$1"
}
snapshot() {  # $1 = file prefix; $2.. = pids whose tasks' sched files to keep
  local pfx=$1 p t; shift
  cut -d' ' -f1 /proc/uptime > "$pfx.uptime"
  cat /proc/stat > "$pfx.stat"
  cat /proc/interrupts > "$pfx.interrupts"
  cat /proc/loadavg > "$pfx.loadavg"
  # every process's cumulative CPU time (one cat, few forks): what else ran in the window
  cat /proc/[0-9]*/stat > "$pfx.procs" 2>/dev/null || true
  : > "$pfx.tasks"
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      { echo "=== pid=$p tid=${t##*/}"; cat "$t/sched" "$t/status" "$t/stat"; } >> "$pfx.tasks" 2>/dev/null || true
    done
  done
}
wait_tasks() {  # wait until process $1 has $2 tasks; prints their tids, the main one first
  local i
  for i in $(seq 1 500); do
    if [ "$(find /proc/"$1"/task -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" -ge "$2" ]; then
      find /proc/"$1"/task -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -n; return 0
    fi
    [ -d /proc/"$1" ] || die "process $1 exited before it had $2 threads"
    sleep 0.01; : "$i"
  done
  die "process $1 did not reach $2 threads in 5 s"
}

# counter_window DIR PIDS...: perf stat runs around snapshots A and B, so that its own set-up
# and tear-down (jump-label patching IPIs) fall outside the window that /proc is read over.
counter_window() {
  local d=$1 pstat child; shift
  perf stat -x, -A -a -o "$d/perfstat.csv" "${STAT_EVENTS[@]}" -- sleep 600 2> "$d/perf-stat.err" &
  pstat=$!; PIDS+=("$pstat")
  sleep 0.5
  snapshot "$d/A" "$@"
  sleep "$WINDOW"
  snapshot "$d/B" "$@"
  child=$(pgrep -P "$pstat" -x sleep) || die "perf stat ($pstat) is not running its sleep; see $d/perf-stat.err"
  kill "$child"
  wait "$pstat" || true   # perf stat returns the killed child's status
  grep -q power:cpu_idle "$d/perfstat.csv" || die "perf stat wrote no counts; see $d/perf-stat.err"
}

STAT_EVENTS=(
  -e power:cpu_idle --filter 'state == 1'
  -e irq_vectors:local_timer_entry -e irq_vectors:reschedule_entry
  -e irq_vectors:call_function_single_entry -e irq_vectors:call_function_entry
  -e sched:sched_wake_idle_without_ipi -e sched:sched_migrate_task -e sched:sched_wakeup
  -e ipi:ipi_send_cpu -e ipi:ipi_send_cpumask
)
# The trace for packing, in an ftrace instance of its own (perf record, on this kind of guest,
# misses the events of interrupts that cpu1 takes in its idle loop; ftrace and perf stat see
# them). sched_switch only to/from idle and when a task blocks or is preempted
# (prev_state != 0): sched_yield()'s switches (prev_state 0) would be ~10^6/s.
TRACE_INST=/sys/kernel/tracing/instances/vtick-measure
TRACE_EVENTS=(sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new sched/sched_migrate_task
  sched/sched_process_exit sched/sched_wake_idle_without_ipi irq_vectors/local_timer_entry
  irq_vectors/reschedule_entry irq_vectors/call_function_single_entry irq_vectors/call_function_entry
  power/cpu_idle csd/csd_queue_cpu)
trace_start() {
  local e
  if [ -d "$TRACE_INST" ]; then rmdir "$TRACE_INST"; fi
  mkdir "$TRACE_INST"
  echo mono > "$TRACE_INST/trace_clock"       # CLOCK_MONOTONIC, as /proc/uptime in a guest never suspended
  echo 262144 > "$TRACE_INST/buffer_size_kb"  # per CPU; n2-locks1 fills ~100 MB of it
  for e in "${TRACE_EVENTS[@]}"; do echo 1 > "$TRACE_INST/events/$e/enable"; done
  echo 'prev_pid == 0 || next_pid == 0 || prev_state != 0' > "$TRACE_INST/events/sched/sched_switch/filter"
  echo 'state == 1' > "$TRACE_INST/events/power/cpu_idle/filter"
  echo 1 > "$TRACE_INST/tracing_on"
}
trace_stop() {  # $1 = run directory
  echo 0 > "$TRACE_INST/tracing_on"
  grep -H . "$TRACE_INST"/per_cpu/cpu*/stats > "$1/trace-stats"
  # shellcheck disable=SC2002  # gzip on the tracefs file itself warns that its size changed
  cat "$TRACE_INST/trace" | gzip -1 > "$1/trace.txt.gz"
  rmdir "$TRACE_INST"
}

# run NAME THREADS LOCKS PIN DISTURBER TRACE
#   PIN: none | apart | together (worker tids pinned after start) | apart2p | together2p
#        (two 1-thread sysbench processes started under taskset)
#   DISTURBER: none | busy (100% loop on the last CPU) | periodic (5 ms busy every 50 ms there)
run() {
  local name=$1 threads=$2 locks=$3 pin=$4 dist=$5 trace=$6
  if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then return 0; fi
  local d=$RAW/$name last=$((NCPU - 1)) dpid=""
  mkdir -p "$d"
  echo "--- $name: threads=$threads locks=$locks pin=$pin disturber=$dist trace=$trace" >&2
  {
    echo "name=$name threads=$threads locks=$locks yields=1000 pin=$pin disturber=$dist trace=$trace time_s=$T"
  } > "$d/meta"
  wait_quiet "$d/meta"
  echo "start_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$d/meta"
  if [ "$trace" = 1 ]; then trace_start; fi
  case $dist in
    none) ;;
    busy) taskset -c "$last" sh -c 'while :; do :; done' & dpid=$! ;;
    periodic) taskset -c "$last" python3 -c '
import time
while True:
    end = time.perf_counter() + 0.005
    while time.perf_counter() < end:
        pass
    time.sleep(0.045)
' & dpid=$! ;;
    *) die "internal: disturber $dist" ;;
  esac
  if [ -n "$dpid" ]; then PIDS+=("$dpid"); echo "disturber_pid=$dpid" >> "$d/meta"; sleep 0.5; fi

  local sb=() sbpids=() tids=() p
  sb=(sysbench threads --threads="$threads" --thread-locks="$locks" --thread-yields=1000 --time="$T")
  case $pin in
    apart2p|together2p)
      local c2=$last
      if [ "$pin" = together2p ]; then c2=0; fi
      taskset -c 0 "${sb[@]}" run > "$d/sysbench.out" 2>&1 & sbpids+=($!)
      taskset -c "$c2" "${sb[@]}" run > "$d/sysbench2.out" 2>&1 & sbpids+=($!)
      for p in "${sbpids[@]}"; do PIDS+=("$p"); mapfile -t -O "${#tids[@]}" tids < <(wait_tasks "$p" 2 | tail -n +2); done
      ;;
    *)
      "${sb[@]}" run > "$d/sysbench.out" 2>&1 & sbpids+=($!)
      PIDS+=("${sbpids[0]}")
      mapfile -t tids < <(wait_tasks "${sbpids[0]}" $((threads + 1)) | tail -n +2)
      ;;
  esac
  printf '%s\n' "${tids[@]}" > "$d/workers"
  echo "sysbench_pids=$(IFS=,; echo "${sbpids[*]}")" >> "$d/meta"
  case $pin in
    apart) taskset -p -c 0 "${tids[0]}" >/dev/null; taskset -p -c "$last" "${tids[1]}" >/dev/null ;;
    together) for p in "${tids[@]}"; do taskset -p -c 0 "$p" >/dev/null; done ;;
  esac
  counter_window "$d" "${sbpids[@]}"
  for p in "${sbpids[@]}"; do
    [ -d "/proc/$p" ] || die "$name: sysbench $p ended before the counter window closed; use a longer --time"
  done
  for p in "${sbpids[@]}"; do wait "$p" || die "$name: sysbench $p failed, see $d/sysbench*.out"; done
  if [ -n "$dpid" ]; then kill "$dpid"; wait "$dpid" 2>/dev/null || true; fi
  if [ "$trace" = 1 ]; then trace_stop "$d"; fi
  echo "end_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$d/meta"
}

idle_run() {  # nothing started: what the idle guest does by itself
  local name=$1 d=$RAW/$1
  if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then return 0; fi
  mkdir -p "$d"
  echo "--- $name: nothing running" >&2
  echo "name=$name threads=0 locks=0 yields=0 pin=none disturber=none trace=0 time_s=$T" > "$d/meta"
  wait_quiet "$d/meta"
  echo "start_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$d/meta"
  : > "$d/workers"
  counter_window "$d"
  echo "end_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$d/meta"
}

# --- the runs, the quiet N=2 repeated across the session to show the drift ------------------
idle_run idle
run n1 1 8 none none 0
run n2 2 8 none none 1
run n4 4 8 none none 0
run n8 8 8 none none 0
run n2-locks1 2 1 none none 1
run n2-apart 2 8 apart none 0
run n2-together 2 8 together none 0
run n2-apart2p 1 8 apart2p none 0
run n2-together2p 1 8 together2p none 0
for r in $(seq 2 "$REPEAT"); do
  run "n2-r$r" 2 8 none none 1
  if [ "$r" = 2 ]; then
    run n2-busy 2 8 none busy 1
    run n2-periodic 2 8 none periodic 1
  fi
done
if [ "$REPEAT" -lt 2 ]; then
  run n2-busy 2 8 none busy 1
  run n2-periodic 2 8 none periodic 1
fi
idle_run idle-end
if [ "$LONG" -gt 0 ]; then
  [ "$LONG" -ge 6 ] || die "--long must be at least 6 seconds"
  T=$LONG; WINDOW=$((T - 2))
  run n2-long 2 8 none none 1
fi

python3 "$HERE/measure-guest-report.py" "$RAW" "$OUT/measure.json" "$OUT/measure.md"
echo "wrote $OUT/measure.json and $OUT/measure.md" >&2
