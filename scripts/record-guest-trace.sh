#!/usr/bin/env bash
# Record named workloads on the real guest this runs on, with the kernel's own tracepoints
# (the intervals `vtick trace-compare` pairs), into NAME.rR.dat beside env.txt (issue 42,
# item 1). Each run is recorded in an ftrace instance of the script's own, read out with
# `trace-cmd extract -B` (`trace-cmd record`/`start` fail on these guests: "Can't enable
# ftrace"); tracing is switched off and the instance removed on every exit. Each workload
# also runs once untraced before its traced run (NAME.rR.out: its throughput without the
# tracing's cost). Needs root. Never in CI: it measures the machine itself.
# usage: scripts/record-guest-trace.sh [--out DIR] [--repeat R] [--time S] [--only LIST]
#                                      [--buffer-kb KB] [--no-untraced] [--pipe-loops N]
#                                      [--no-kallsyms] [--trace-time S] [--max-busy PCT]
#   --trace-time S: the traced runs of time-bound workloads last S seconds (default: --time);
#   the untraced run (throughput) keeps --time
#   --no-kallsyms: leave /proc/kallsyms out of the file (about 1 MB less; %pS fields print
#   as addresses), by an empty file bound over it in a mount namespace of trace-cmd's own
#   --max-busy PCT: the machine counts as quiet when at most PCT % of its CPU time (from
#   /proc/stat, over 1 s) is busy; checked before and after every run, else exit 2 naming
#   what runs (default 5: an idle 2-vCPU guest of this kind shows 0.5 %). The 2026-12-06
#   03:16 recordings ran beside a compile (cc1plus, lto1 in their sched_switch records).
#   NAME.rR.quiet: the busy share before and after; NAME.rR.comms: each task name's share
#   of the traced window's CPU time (scripts/trace-comm-share.py)
#   runs: sb-n2-l1 sb-n2-l8 sb-n4-l8 (sysbench threads, --time S), pipe-pinned pipe-free
#         (perf bench sched pipe -l N, default 200000), hackbench (-p -g 4 -l 2000), idle (sleep S)
set -Eeuo pipefail
die() { echo "record-guest-trace.sh: $*" >&2; exit 2; }
OUT=/tmp/vtick-record-$(date -u +%Y%m%dT%H%M%SZ); REPEAT=2; T=10; ONLY=""; BUF_KB=131072; UNTRACED=1; LOOPS=200000; KALLSYMS=1; TT=; MAXBUSY=5
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
    --repeat) [ $# -ge 2 ] || die "--repeat needs a count"; REPEAT=$2; shift 2 ;;
    --time) [ $# -ge 2 ] || die "--time needs seconds"; T=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs a comma-separated list of runs"; ONLY=$2; shift 2 ;;
    --buffer-kb) [ $# -ge 2 ] || die "--buffer-kb needs a size"; BUF_KB=$2; shift 2 ;;
    --no-untraced) UNTRACED=0; shift ;;
    --no-kallsyms) KALLSYMS=0; shift ;;
    --trace-time) [ $# -ge 2 ] || die "--trace-time needs seconds"; TT=$2; shift 2 ;;
    --pipe-loops) [ $# -ge 2 ] || die "--pipe-loops needs a count"; LOOPS=$2; shift 2 ;;
    --max-busy) [ $# -ge 2 ] || die "--max-busy needs a percentage"; MAXBUSY=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) die "unknown option '$1' (allowed: --out --repeat --time --only --buffer-kb --no-untraced --pipe-loops --no-kallsyms --trace-time --max-busy)" ;;
  esac
done
TT=${TT:-$T}
for pair in REPEAT:--repeat T:--time BUF_KB:--buffer-kb LOOPS:--pipe-loops TT:--trace-time; do
  v=${pair%%:*}; [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "${pair#*:} must be a positive whole number, got '${!v}'"
done
[[ $MAXBUSY =~ ^[0-9]+$ ]] && [ "$MAXBUSY" -le 100 ] || die "--max-busy must be a whole percentage 0 .. 100, got '$MAXBUSY'"
declare -A CMD=(
  [sb-n2-l1]="sysbench threads --threads=2 --thread-locks=1 --time=@T@ run"
  [sb-n2-l8]="sysbench threads --threads=2 --thread-locks=8 --time=@T@ run"
  [sb-n4-l8]="sysbench threads --threads=4 --thread-locks=8 --time=@T@ run"
  [pipe-pinned]="taskset -c 0 perf bench sched pipe -l @L@"
  [pipe-free]="perf bench sched pipe -l @L@"
  [hackbench]="hackbench -p -g 4 -l 2000"
  [idle]="sleep @T@"
)
NAMES=(sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle)
if [ -n "$ONLY" ]; then IFS=, read -ra NAMES <<< "$ONLY"; fi
for n in "${NAMES[@]}"; do
  [ -n "${CMD[$n]:-}" ] || die "--only: unknown run '$n' (allowed: sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle)"
done
# Options are checked first (exit 2 even under CI), then where this runs.
if [ -n "${VTICK_CI:-}" ] || [ -n "${CI:-}" ]; then
  die "refusing to run under CI (VTICK_CI or CI is set): this measures the machine itself"
fi
[ "$(uname -s)" = Linux ] || die "needs a Linux guest, this is $(uname -s)"
[ "$(id -u)" -eq 0 ] || die "needs root (tracefs, trace-cmd extract)"
for t in sysbench perf hackbench trace-cmd taskset python3; do
  command -v $t >/dev/null || die "needs $t (apt-get install sysbench linux-perf rt-tests trace-cmd util-linux)"
done
if [ ! -e /sys/kernel/tracing/events/sched/sched_switch ]; then
  mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs on /sys/kernel/tracing"
fi
TR=/sys/kernel/tracing
# The tracepoints trace-compare reads (docs/cli.md, "trace-compare"); msr:write_msr where
# the kernel has it (CONFIG_TRACEPOINTS on arch/x86/lib/msr.c).
EVENTS=(sched/sched_switch sched/sched_waking sched/sched_wakeup sched/sched_migrate_task
  power/cpu_idle ipi/ipi_send_cpu ipi/ipi_send_cpumask
  irq_vectors/call_function_single_entry irq_vectors/call_function_single_exit
  irq_vectors/call_function_entry irq_vectors/call_function_exit
  irq_vectors/reschedule_entry irq_vectors/reschedule_exit
  irq_vectors/local_timer_entry irq_vectors/local_timer_exit
  timer/hrtimer_start timer/hrtimer_expire_entry timer/tick_stop msr/write_msr)
INST_NAME=vtick-record-$$
INST=$TR/instances/$INST_NAME
cleanup() {  # every exit: success, failure, Ctrl-C
  if [ -d "$INST" ]; then
    echo 0 > "$INST/tracing_on" 2>/dev/null || true
    echo 0 > "$INST/events/enable" 2>/dev/null || true
    rmdir "$INST" 2>/dev/null || echo "record-guest-trace.sh: could not remove $INST" >&2
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'echo "record-guest-trace.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

mkdir -p "$OUT"
# A speed reference of the same hour (machines of this kind differ a lot from day to day).
pipe_us() { taskset -c 0 perf bench sched pipe -l 100000 2>&1 | awk '/usecs\/op/ {print $1}'; }
# The busy share of all CPU time over 1 s, in % (user+nice+system+irq+softirq+steal of
# /proc/stat's cpu line; idle and iowait are not busy).
busy_pct() {
  local a b
  read -ra a < /proc/stat; sleep 1; read -ra b < /proc/stat
  awk -v a="${a[*]:1:8}" -v b="${b[*]:1:8}" 'BEGIN {
    split(a, x); split(b, y); for (i = 1; i <= 8; i++) { d = y[i] - x[i]; t += d; if (i != 4 && i != 5) u += d }
    printf "%.1f", (t > 0 ? 100 * u / t : 0) }'
}
# Refuses to measure on a machine that is doing something else (a build beside a
# benchmark changes what is measured: who collides, who halts).
quiet_check() {  # label, file to append to
  local p; p=$(busy_pct)
  echo "$1: busy $p % of CPU time over 1 s" >> "$2"
  if awk -v p="$p" -v m="$MAXBUSY" 'BEGIN { exit !(p > m) }'; then
    die "the machine is not quiet $1: $p % of its CPU time busy over 1 s (--max-busy $MAXBUSY); running now: $(ps -eo stat=,comm= | awk '$1 ~ /^R/ {print $2}' | sort | uniq -c | sort -rn | head -5 | awk '{printf "%s%s x%s", NR > 1 ? ", " : "", $2, $1}')"
  fi
}
hz() {
  if [ -r /proc/config.gz ]; then zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p'
  elif [ -r "/boot/config-$(uname -r)" ]; then sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)"
  else echo unknown; fi
}
{
  echo "date: $(date -u +%FT%TZ)"
  echo "kernel: $(uname -r)"
  echo "cmdline: $(cat /proc/cmdline)"
  echo "hz: $(hz)"
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
  echo "cpuidle_driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
  echo "cpuidle_governor: $(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo none)"
  echo "haltpoll_guest_halt_poll_ns: $(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns 2>/dev/null || echo -)"
  echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "vcpus: $(nproc)"
  echo "trace_clock: mono"
  echo "sysbench: $(sysbench --version)"
  echo "trace-cmd: $( (trace-cmd -h 2>&1 || true) | sed -n '0,/^ *trace-cmd version/s/^ *trace-cmd version \([^ ]*\).*/\1/p')"
  for v in /sys/devices/system/cpu/vulnerabilities/*; do echo "vulnerability.${v##*/}: $(cat "$v")"; done
  echo "speed_ref_pipe_pinned_us_per_op_start: $(pipe_us)"
} > "$OUT/env.txt"

for n in "${NAMES[@]}"; do
  for r in $(seq 1 "$REPEAT"); do
    cmd=${CMD[$n]//@T@/$T}; cmd=${cmd//@L@/$LOOPS}
    : > "$OUT/$n.r$r.quiet"
    if [ "$UNTRACED" = 1 ]; then
      quiet_check "before $n r$r (untraced)" "$OUT/$n.r$r.quiet"
      echo "[$n r$r] untraced: $cmd" >&2
      $cmd > "$OUT/$n.r$r.out" 2>&1
    fi
    quiet_check "before $n r$r (traced)" "$OUT/$n.r$r.quiet"
    tcmd=${CMD[$n]//@T@/$TT}; tcmd=${tcmd//@L@/$LOOPS}
    echo "[$n r$r] traced: $tcmd" >&2
    [ -d "$INST" ] && rmdir "$INST"
    mkdir "$INST"
    echo 0 > "$INST/tracing_on"  # a new instance traces at once: not the events' enabling (its IPIs)
    echo mono > "$INST/trace_clock"  # one clock for every CPU: IPI send -> entry crosses CPUs
    echo "$BUF_KB" > "$INST/buffer_size_kb"
    for e in "${EVENTS[@]}"; do
      if [ -e "$INST/events/$e/enable" ]; then echo 1 > "$INST/events/$e/enable"
      else echo "record-guest-trace.sh: this kernel has no $e tracepoint (left out)" >&2; fi
    done
    echo 1 > "$INST/tracing_on"
    $tcmd > "$OUT/$n.r$r.traced.out" 2>&1
    echo 0 > "$INST/tracing_on"
    grep -H . "$INST"/per_cpu/cpu*/stats > "$OUT/$n.r$r.stats" || true
    if grep -q 'overrun: [1-9]' "$OUT/$n.r$r.stats"; then
      echo "record-guest-trace.sh: $n r$r: the ring buffer overran (events lost; raise --buffer-kb)" >&2
    fi
    if [ "$KALLSYMS" = 1 ]; then
      trace-cmd extract -B "$INST_NAME" -o "$OUT/$n.r$r.dat" > "$OUT/$n.r$r.extract.log" 2>&1 \
        || die "trace-cmd extract failed for $n r$r (see $OUT/$n.r$r.extract.log)"
    else
      : > "$OUT/.empty-kallsyms"
      unshare -m sh -c 'mount --bind "$1" /proc/kallsyms && trace-cmd extract -B "$2" -o "$3"' sh \
        "$OUT/.empty-kallsyms" "$INST_NAME" "$OUT/$n.r$r.dat" > "$OUT/$n.r$r.extract.log" 2>&1 \
        || die "trace-cmd extract (without kallsyms) failed for $n r$r (see $OUT/$n.r$r.extract.log)"
      rm -f "$OUT/.empty-kallsyms"
    fi
    cleanup
    quiet_check "after $n r$r" "$OUT/$n.r$r.quiet"
    python3 "$(dirname "$0")/trace-comm-share.py" "$OUT/$n.r$r.dat" > "$OUT/$n.r$r.comms"
    echo "$cmd" > "$OUT/$n.r$r.cmd"
    echo "$tcmd" > "$OUT/$n.r$r.traced.cmd"
  done
done
echo "speed_ref_pipe_pinned_us_per_op_end: $(pipe_us)" >> "$OUT/env.txt"
echo "$OUT"
