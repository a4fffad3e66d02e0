#!/bin/sh
# Story 3, the hackbench report (issue 17): scenarios/story3/hackbench.toml in process and
# thread mode over sockets and pipes, 10 and 40 groups, under the old and the new idle
# cputime scheme, with the accounting updates free (guest.costs.cputime_update_ns = 0) and
# at the top of their [EST] range (150 ns), SEEDS seeds each. Prints a markdown table:
# hackbench's time (the last task's exit), the accounting updates per message, the idle
# task's share of CPU time while hackbench runs, and the updates' share at their cost.
# usage: scripts/hackbench-cputime.sh [SEEDS]      (VTICK=build/cli/vtick)
set -eu
SEEDS=${1:-3}
VTICK=${VTICK:-build/cli/vtick}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| mode | groups | cost/update | scheme | time (ms), mean ± sd | updates per message | idle task share of CPU time | updates' share of CPU time |"
echo "|---|---|---|---|---|---|---|---|"
for mode in "process sockets:threads=0 pipe=0" "threads pipes:threads=1 pipe=1"; do
  name=${mode%%:*}; sets=${mode#*:}
  set -- $sets
  for g in 10 40; do
    for cost in 0 150; do
      for s in old new; do
        for seed in $(seq 1 "$SEEDS"); do
          "$VTICK" run scenarios/story3/hackbench.toml --quiet --seed "$seed" --set "workload.$1" --set "workload.$2" \
            --set workload.groups=$g --set guest.cputime=$s --set guest.costs.cputime_update_ns=$cost \
            --json "$TMP/$name-$g-$cost-$s-$seed.json"
        done
        python3 - "$TMP" "$name-$g-$cost-$s" "$SEEDS" "$name" "$g" "$cost" "$s" <<'PY'
import json, statistics, sys
tmp, tag, seeds, name, g, cost, s = sys.argv[1:]
t, upd, idle, share = [], [], [], []
for seed in range(1, int(seeds) + 1):
    m = json.load(open(f"{tmp}/{tag}-{seed}.json"))["metrics"]
    n = sum(1 for k in m if k.endswith(".cputime.old_updates"))
    end = m["workload.last_exit_ns"]
    after = 2e9 - end  # the measured 2 s go on after hackbench is done: every CPU idles then
    t.append(end / 1e6)
    u = sum(m[f"vcpu{i}.cputime.{s}_updates"] for i in range(n))
    upd.append(u / m["workload.ops"])
    idle_task = sum(m[f"vcpu{i}.guest_time.idle_loop_ns"] + m[f"vcpu{i}.guest_time.halted_ns"] for i in range(n))
    idle.append(max(0.0, idle_task - n * after) / (n * end))
    share.append(u * int(cost) / (n * end))
sd = statistics.stdev(t) if len(t) > 1 else 0
print(f"| {name} | {g} | {cost} ns | {s} | {statistics.mean(t):.2f} ± {sd:.2f} | {statistics.mean(upd):.4f} | "
      f"{100 * statistics.mean(idle):.1f} % | {100 * statistics.mean(share):.3f} % |")
PY
      done
    done
  done
done
