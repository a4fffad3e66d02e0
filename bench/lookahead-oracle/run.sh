#!/bin/sh
# What perfect lookahead could take (docs/performance.md, "What x1.2 needs"): builds vtick with
# instrument.patch in a scratch worktree (each step records the objects it touches besides its
# own CPU: other CPUs' run queues and idle state, nohz, jiffies, tick_do_timer_cpu, rd->overloaded,
# futex locks, doorbells), runs a shape with the trace on, and replays it (replay.cpp): the
# hand-offs if every step could run ahead of other actors' earlier steps that touch no common
# object with a write; then with only the host-only steps allowed to (a lookahead over host-level
# interactions). "all" lets no step run ahead: it gives back the run's own hand-offs (a check that
# the trace is the run's, in order; the few missing are each actor's last step, never recorded). The instrumentation misses accesses (tasks, wait queues, the host
# scheduler), which makes it optimistic; it takes each step as writing all its own CPU's state and
# runs ahead greedily, which makes it pessimistic: an estimate, not a bound. Not a test: an experiment.
# usage: bench/lookahead-oracle/run.sh [vtick run arguments...]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# ORACLE_DIR: where the scratch worktree, build and trace go (a new directory by default; kept
# after the run: its build/cli/vtick and replay serve further shapes)
W=${ORACLE_DIR:-$(mktemp -d /tmp/vtick-oracle.XXXXXX)}
if [ -e "$W/src" ]; then
  echo "$0: $W/src exists: set ORACLE_DIR to a new directory" >&2
  exit 2
fi
mkdir -p "$W"
git -C "$ROOT" worktree add -f --detach "$W/src" HEAD >/dev/null
trap 'git -C "$ROOT" worktree remove --force "$W/src"' EXIT
git -C "$W/src" apply "$ROOT/bench/lookahead-oracle/instrument.patch"
cmake -S "$W/src" -B "$W/build" -DCMAKE_BUILD_TYPE=Release -DVTICK_PGO=off >/dev/null
cmake --build "$W/build" --target vtick -j "$(nproc)" >/dev/null
g++ -O2 -o "$W/replay" "$ROOT/bench/lookahead-oracle/replay.cpp"
if [ $# -eq 0 ]; then
  set -- "$ROOT/bench/scenarios/periodic.toml" --set guest.tick_policy=legacy --set platform.shape=generic \
    --set platform.arch=skylake-sp --set platform.threads_per_core=1 --set platform.cores=64 --set workload.tasks=64 --duration 500ms
fi
VTICK_ORACLE="$W/steps.txt" "$W/build/cli/vtick" run "$@" --quiet
echo "as run:                $("$W/replay" "$W/steps.txt" all)"
echo "host-only steps ahead: $("$W/replay" "$W/steps.txt" host)"
echo "every step ahead:      $("$W/replay" "$W/steps.txt")"
echo "... the kernel's global state (nohz, jiffies, tick_do_timer_cpu, rd->overloaded) left out:"
echo "                       $("$W/replay" "$W/steps.txt" any nohz jiffies tick_cpu overload)"
echo "... other vCPUs' state (guest and host side) left out:"
echo "                       $("$W/replay" "$W/steps.txt" any cpus hosts)"
