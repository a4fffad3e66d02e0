#!/usr/bin/env bash
# The trace-compare baseline (issue 42, item 4): each workload recorded on the real guest
# by scripts/record-guest-trace.sh against vtick running the same workload on the scenario
# `vtick calibrate` wrote from a vtick-probe profile of the same machine, the same hour.
# Writes OUT/sim/NAME.{json,dat,-vm0.dat}, OUT/cmp/NAME.rR.json (vtick trace-compare) and
# OUT/baseline.json + OUT/baseline.md (scripts/trace-baseline-table.py).
# usage: scripts/trace-baseline.sh --recording DIR --scenario FILE [--out DIR] [--real-from DIR]
#                                  [--bands FILE] [--vtick BIN] [--seed N] [--set KEY=VALUE]...
#                                  [--set-for NAMES KEY=VALUE]... [--pipe-work DUR] [--only NAMES]
#   --real-from DIR: the real rows from an earlier baseline's DIR/NAME.rR.json (its cmp/)
#   instead of the recordings' traces, which are not kept: the model's side is run again on
#   today's build (vtick trace-compare of its own trace gives its rows) and set beside them.
#   --recording is then the kept directory (env.txt, NAME.rR.cmd and .out).
#   --set: on top of the calibrated scenario for every workload (e.g. the guest kernel's
#   tick policy where the recording shows it: guest.tick_policy=got_tick)
#   --set-for NAMES KEY=VALUE: on top for the workloads NAMES (comma-separated) only: a
#   figure of the recorded program measured on that machine (e.g. sysbench's user work per
#   iteration: --set-for sb-n2-l1,sb-n2-l8,sb-n4-l8 workload.iteration_work=40ns)
#   --pipe-work DUR: the perf bench sched pipe stand-in's work a side beyond its wake and wait
#   (a pipe write's and a read's work past their syscalls: 2 x (vtick-probe's exit_cost
#   pipe_msg_ns / 2 - syscall_ns)); default 1us, the [EST] of every baseline before costs7
#   --only NAMES: these workloads only (comma-separated), e.g. to see one model change's
#   effect on one row before a whole baseline
#   The model's stand-ins: sysbench threads -> workload sysbench_threads (threads, locks);
#   perf bench sched pipe -> a script workload of two tasks handing a token by futex
#   wait/wake (pinned: both on vCPU 0); hackbench -p -g 4 -l 2000 -> workload hackbench
#   (pipe = 1); idle -> workload idle. 1.2 s simulated, traced from 200 ms (the warm-up);
#   hackbench, a run to completion, traced from its start to its last task's exit.
set -Eeuo pipefail
trap 'echo "trace-baseline.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
die() { echo "trace-baseline.sh: $*" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
REC=""; SCEN=""; OUT=""; REALFROM=""; VTICK=$HERE/../build/cli/vtick; BANDS=$HERE/../validation/trace/bands.toml; SEED=1; SETS=(); declare -A FOR=(); PIPEWORK=1us; ONLY=""
while [ $# -gt 0 ]; do
  case $1 in
    --recording) [ $# -ge 2 ] || die "--recording needs a directory"; REC=$2; shift 2 ;;
    --scenario) [ $# -ge 2 ] || die "--scenario needs a file"; SCEN=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
    --real-from) [ $# -ge 2 ] || die "--real-from needs a directory"; REALFROM=$2; shift 2 ;;
    --bands) [ $# -ge 2 ] || die "--bands needs a file"; BANDS=$2; shift 2 ;;
    --vtick) [ $# -ge 2 ] || die "--vtick needs a binary"; VTICK=$2; shift 2 ;;
    --seed) [ $# -ge 2 ] || die "--seed needs a number"; SEED=$2; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; SETS+=(--set "$2"); shift 2 ;;
    --set-for)
      [ $# -ge 3 ] || die "--set-for needs NAMES and KEY=VALUE"
      for w in ${2//,/ }; do
        case $w in sb-n2-l1|sb-n2-l8|sb-n4-l8|pipe-pinned|pipe-free|hackbench|idle) ;;
          *) die "--set-for: unknown workload '$w' (allowed: sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle)" ;;
        esac
        FOR[$w]+=" $3"
      done
      shift 3 ;;
    --pipe-work)
      [ $# -ge 2 ] || die "--pipe-work needs a duration"
      [[ $2 =~ ^[0-9]+(\.[0-9]+)?(ns|us)$ ]] || die "--pipe-work: '$2' is not a duration in ns or us (e.g. 520ns)"
      PIPEWORK=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    --only)
      [ $# -ge 2 ] || die "--only needs NAMES (comma-separated)"
      for w in ${2//,/ }; do
        case $w in sb-n2-l1|sb-n2-l8|sb-n4-l8|pipe-pinned|pipe-free|hackbench|idle) ONLY+=" $w " ;;
          *) die "--only: unknown workload '$w' (allowed: sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle)" ;;
        esac
      done
      shift 2 ;;
    *) die "unknown option '$1' (allowed: --recording --scenario --out --real-from --bands --vtick --seed --set --set-for --pipe-work --only)" ;;
  esac
done
[ -n "$REC" ] && [ -d "$REC" ] || die "--recording DIR (scripts/record-guest-trace.sh --out) is required and must exist"
[ -n "$SCEN" ] && [ -f "$SCEN" ] || die "--scenario FILE (vtick calibrate -o) is required and must exist"
[ -f "$REC/env.txt" ] || die "$REC has no env.txt: not a record-guest-trace.sh directory"
[ -z "$REALFROM" ] || [ -d "$REALFROM" ] || die "--real-from $REALFROM: no such directory (an earlier baseline's cmp/)"
[ -x "$VTICK" ] || die "no vtick binary at $VTICK (make, or --vtick BIN)"
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed must be a whole number, got '$SEED'"
OUT=${OUT:-$REC/baseline}
mkdir -p "$OUT/sim" "$OUT/cmp" "$OUT/scenarios"
grep -q '^\[workload' "$SCEN" && die "$SCEN has a [workload] section: give the calibrated scenario as vtick calibrate wrote it"

workload() {  # NAME: the [workload] section that stands for it
  case $1 in
    sb-n2-l1) printf '[workload]\nkind = "sysbench_threads"\nthreads = 2\nthread_locks = 1\n' ;;
    sb-n2-l8) printf '[workload]\nkind = "sysbench_threads"\nthreads = 2\nthread_locks = 8\n' ;;
    sb-n4-l8) printf '[workload]\nkind = "sysbench_threads"\nthreads = 4\nthread_locks = 8\n' ;;
    pipe-pinned|pipe-free)
      local cpus=""; [ "$1" = pipe-pinned ] && cpus='cpus = "0"'
      printf '[workload]\nkind = "script"\n\n[[workload.task]]\nname = "pipe-a"\n%s\nprogram = ["run %s", "wake ab", "wait ba"]\n\n' "$cpus" "$PIPEWORK"
      printf '[[workload.task]]\nname = "pipe-b"\n%s\nprogram = ["wait ab", "run %s", "wake ba"]\n' "$cpus" "$PIPEWORK" ;;
    # hackbench's -f defaults to 20 senders and 20 receivers a group (the recording's "160 tasks")
    hackbench) printf '[workload]\nkind = "hackbench"\ngroups = 4\nfds = 20\nloops = 2000\npipe = 1\n' ;;
    idle) printf '[workload]\nkind = "idle"\n' ;;
    *) return 1 ;;
  esac
}
NAMES=()
for n in sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle; do
  [ -z "$ONLY" ] || [[ $ONLY == *" $n "* ]] || continue
  if [ -n "$REALFROM" ]; then [ -f "$REALFROM/$n.r1.json" ] && NAMES+=("$n")
  else [ -f "$REC/$n.r1.dat" ] && NAMES+=("$n"); fi
done
[ ${#NAMES[@]} -gt 0 ] || die "${REALFROM:-$REC} has no NAME.r1 files (.json with --real-from, .dat without)"
for n in "${NAMES[@]}"; do
  s=$OUT/scenarios/$n.toml
  { cat "$SCEN"; echo; echo "# scripts/trace-baseline.sh: the stand-in for the recording '$n' ($(cat "$REC/$n.r1.cmd"))"; workload "$n"; } > "$s"
  WSETS=("${SETS[@]}")
  for kv in ${FOR[$n]:-}; do WSETS+=(--set "$kv"); done
  echo "[$n] vtick run $s ${WSETS[*]}" >&2
  if [ "$n" = hackbench ]; then
    # a run to completion, as the recording: traced from its start to its last exit (a
    # fixed window would hold the warm-up's share and the idle after it; its throughput
    # is the messages over that time, scripts/trace-baseline-table.py)
    "$VTICK" run "$s" "${WSETS[@]}" --seed "$SEED" --duration 20s --set run.warmup=0ns --quiet --json "$OUT/sim/$n.json" \
      2> "$OUT/sim/$n.log" || die "vtick run failed for $n (see $OUT/sim/$n.log)"
    end=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['summary']['completion_ms'] * 1000) + 1)" "$OUT/sim/$n.json") \
      || die "$n: no completion_ms in $OUT/sim/$n.json (did it finish within 20 s?)"
    "$VTICK" run "$s" "${WSETS[@]}" --seed "$SEED" --duration "$((end + 1000))us" --set run.warmup=0ns --trace-window "0us:${end}us" \
      --quiet --json "$OUT/sim/$n.json" --trace-dat "$OUT/sim/$n.dat" 2>> "$OUT/sim/$n.log" \
      || die "vtick run failed for $n (see $OUT/sim/$n.log)"
  else
    "$VTICK" run "$s" "${WSETS[@]}" --seed "$SEED" --duration 1200ms --trace-window 200ms:1200ms --quiet \
      --json "$OUT/sim/$n.json" --trace-dat "$OUT/sim/$n.dat" 2> "$OUT/sim/$n.log" \
      || die "vtick run failed for $n (see $OUT/sim/$n.log)"
  fi
  if [ -n "$REALFROM" ]; then
    "$VTICK" trace-compare "$OUT/sim/$n-vm0.dat" "$OUT/sim/$n-vm0.dat" --json "$OUT/sim/$n.rows.json" > /dev/null \
      || die "trace-compare failed on vtick's own trace for $n"
    for k in "$REALFROM/$n".r*.json; do
      r=${k##*/}; r=${r%.json}
      python3 - "$k" "$OUT/sim/$n.rows.json" "$OUT/cmp/$r.json" <<'PY' || die "could not pair $k with vtick's rows"
import json, sys
kept, own, out = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3])
sim = {(r['row'], r['statistic']): r['real'] for r in own['rows']}  # vtick's trace read as the 'real' side
rows = []
for r in kept['rows']:
    s = sim.get((r['row'], r['statistic']))
    rows.append({'row': r['row'], 'statistic': r['statistic'], 'real': r['real'], 'sim': s,
                 'ratio': s / r['real'] if s is not None and r['real'] else None})
json.dump({'real': kept['real'], 'sim': own['real'], 'rows': rows, 'bands': [], 'misses': [],
           'real_from': sys.argv[1]}, open(out, 'w'), indent=1)
PY
    done
    rm -f "$OUT/sim/$n.dat" "$OUT/sim/$n-vm0.dat" "$OUT/sim/$n.rows.json"  # hundreds of MB each
  else
    for d in "$REC/$n".r*.dat; do
      r=${d##*/}; r=${r%.dat}
      "$VTICK" trace-compare "$d" "$OUT/sim/$n-vm0.dat" --json "$OUT/cmp/$r.json" > "$OUT/cmp/$r.txt" \
        || die "trace-compare failed for $r"
    done
  fi
done
# one line: --set KEY=VALUE ... then --set-for NAME KEY=VALUE ... (names sorted)
{ printf '%s\n' "${SETS[@]}"
  for w in $(printf '%s\n' "${!FOR[@]}" | sort); do for kv in ${FOR[$w]}; do printf -- '--set-for\n%s\n%s\n' "$w" "$kv"; done; done
  [ "$PIPEWORK" = 1us ] || printf -- '--pipe-work\n%s\n' "$PIPEWORK"
} | sed '/^$/d' | paste -sd' ' > "$OUT/sets.txt"
# the model's revision, for a table whose real rows are older than its model side
rev=$(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$HERE/.." diff --quiet HEAD -- core guest host platform sim study cli 2>/dev/null || rev="$rev+uncommitted"
echo "$rev" > "$OUT/revision.txt"
python3 "$HERE/trace-baseline-table.py" --recording "$REC" --out "$OUT" --bands "$BANDS" "${NAMES[@]}"
echo "$OUT/baseline.md" >&2
