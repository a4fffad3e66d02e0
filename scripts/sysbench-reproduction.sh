#!/bin/sh
# Issue 11 item 8: the reproduction on the reported workload, sysbench threads with one
# thread per vCPU, on the three reported shapes and two larger ones per family, with the
# guest background load at three levels, and the ablation of each balancing path.
# One `vtick run` per (shape, background, policy, seed), JOBS at a time; each run's JSON
# goes to RAW, and scripts/sysbench-tables.py RAW writes the tables of docs/validation.md.
# usage: scripts/sysbench-reproduction.sh [RAW] [SEEDS] [DURATION] [PART...]
#   PART: small (3 shapes x 3 levels x 6 policies), ablate (VM.Standard2.1, cloud x 10,
#         legacy/got_tick, each balancing path off), large (6 shapes, cloud, legacy/got_tick);
#         disturb (VM.Standard2.1, cloud, a 5 ms / 50 ms busy task pinned to vCPU 1);
#         default all. A part is resumed: runs whose JSON is there are not run again.
# On 2 cores with 5 seeds x 10 s: small ~45 min, ablate ~8, large ~10 for the 4-vCPU shapes
# and ~25 per 8-vCPU shape, disturb ~5.
set -eu
RAW=${1:-results/sysbench-2026/raw}
SEEDS=${2:-5}
DUR=${3:-10s}
shift 3 2>/dev/null || shift $#
PARTS=${*:-small ablate large disturb}
VTICK=${VTICK:-build/cli/vtick}
# the larger shapes; an 8-vCPU run with the background costs ~5 min of wall time per
# simulated 10 s today (every tick outside a local stretch steps in lockstep with the others)
LARGE=${LARGE:-VM.Standard2.2 VM.Standard2.4 VM.Standard.A1.Flex.4 VM.Standard.A1.Flex.8 VM.Standard.E4.Flex.2 VM.Standard.E4.Flex.4}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$RAW"
LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT

scenario() {  # the family's shipped scenario (HZ, cpuidle driver, host) for a shape
  case $1 in
    VM.Standard.A1.*) echo scenarios/oci/a1.flex.2-sysbench_threads.toml ;;
    *) echo scenarios/oci/standard2.1-sysbench_threads.toml ;;
  esac
}
bg_set() {  # a background level's keys
  case $1 in
    measured) echo "--set guest.background.preset=measured" ;;
    cloud) echo "--set guest.background.preset=cloud" ;;
    cloud10) echo "--set guest.background.preset=cloud --set guest.background.scale=10" ;;
  esac
}
job() {  # shape level variant policy seed extra...
  shape=$1 level=$2 variant=$3 policy=$4 seed=$5
  shift 5
  out="$RAW/$shape-$level-$variant-$policy-s$seed.json"
  [ -s "$out" ] && return 0  # done before: the part can be resumed
  echo "$VTICK run $(scenario "$shape") --seed $seed --duration $DUR --quiet --json $out --set platform.shape=$shape --set guest.tick_policy=$policy $(bg_set "$level") $*" >> "$LIST"
}

for part in $PARTS; do
  case $part in
    small)
      for shape in VM.Standard2.1 VM.Standard.A1.Flex.2 VM.Standard.E4.Flex.1; do
        for level in measured cloud cloud10; do
          for policy in legacy got_tick force_retain loehle tglx_avg periodic; do
            s=1; while [ $s -le "$SEEDS" ]; do job $shape $level base $policy $s; s=$((s + 1)); done
          done
        done
      done ;;
    large)
      for shape in $LARGE; do
        for policy in legacy got_tick; do
          s=1; while [ $s -le "$SEEDS" ]; do job $shape cloud base $policy $s; s=$((s + 1)); done
        done
      done ;;
    ablate)
      for path in newidle_balance periodic_balance nohz_balance active_balance; do
        for policy in legacy got_tick; do
          s=1; while [ $s -le "$SEEDS" ]; do job VM.Standard2.1 cloud10 "no_$path" $policy $s "--set guest.sched.$path=false"; s=$((s + 1)); done
        done
      done
      for policy in legacy got_tick; do
        s=1; while [ $s -le "$SEEDS" ]; do job VM.Standard2.1 cloud10 no_ttwu_queue $policy $s "--set guest.sched.ttwu_queue=false"; s=$((s + 1)); done
      done ;;
    disturb)  # what it would take: a task that holds a worker's vCPU for 5 ms every 50 ms
      for policy in legacy got_tick loehle; do
        s=1; while [ $s -le "$SEEDS" ]; do
          job VM.Standard2.1 cloud disturb_5ms_50ms $policy $s "--set workload.disturber_cpu=1 --set workload.disturber_run=5ms --set workload.disturber_period=50ms"
          s=$((s + 1))
        done
      done ;;
    *) echo "sysbench-reproduction.sh: unknown part '$part' (allowed: small, ablate, large, disturb)" >&2; exit 2 ;;
  esac
done
n=$(wc -l < "$LIST")
echo "== $n runs, $JOBS at a time, into $RAW" >&2
# xargs runs them; a line per finished run is the progress
xargs -P "$JOBS" -I CMD sh -c 'CMD && echo "done: $(echo "CMD" | grep -o "json [^ ]*" | cut -c6-)" >&2' < "$LIST"
echo "== done: $RAW" >&2
