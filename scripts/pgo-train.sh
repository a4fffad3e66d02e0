#!/usr/bin/env bash
# The first stage of the profile-guided build (Makefile, PGO=1): builds an instrumented vtick
# in TRAIN_DIR (no LTO: quicker, and the profiles are taken before it) and runs the shipped
# workloads once with it, each path the bench and the reproduction take; the profiles land
# in TRAIN_DIR/pgo-profile for the second stage (CMake VTICK_PGO=use). Deterministic: the
# same sources give the same profiles. Usage: scripts/pgo-train.sh TRAIN_DIR [JOBS]
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 TRAIN_DIR [JOBS]" >&2
  exit 2
fi
TRAIN=$1
JOBS=${2:-$(nproc)}
cd "$(dirname "$0")/.."
cmake -S . -B "$TRAIN" -DCMAKE_BUILD_TYPE=Release -DVTICK_LTO=OFF -DVTICK_PGO=generate >/dev/null
cmake --build "$TRAIN" -j "$JOBS" --target vtick
PROF="$(cd "$TRAIN" && pwd)/pgo-profile"
rm -rf "$PROF"
V="$TRAIN/cli/vtick"
G="--set platform.shape=generic --set platform.arch=skylake-sp --set platform.threads_per_core=1"
echo "vtick: training the profile-guided build (scripts/pgo-train.sh)"
t0=$(date +%s)
while read -r args; do
  # shellcheck disable=SC2086
  "$V" run $args --quiet </dev/null || { echo "pgo-train.sh: the training run failed: vtick run $args" >&2; exit 1; }
done <<RUNS
scenarios/default.toml --duration 1s
scenarios/default.toml --duration 1s --set guest.tick_policy=got_tick
scenarios/default.toml --duration 300ms --set run.scheduler=simgrid
scenarios/oci/standard2.1-oltp.toml --duration 1s
scenarios/oci/a1.flex.2-oltp.toml --duration 1s
scenarios/oci/a1.flex.2-oltp.toml --duration 300ms --set guest.tick_policy=got_tick
scenarios/oci/standard2.1-sysbench_threads.toml --duration 250ms
scenarios/arm64-2vcpu.toml --duration 500ms
scenarios/nohz-full-idle-poll.toml --duration 500ms
scenarios/script-example.toml --duration 1s
bench/scenarios/hackbench.toml --duration 200ms
bench/scenarios/periodic.toml --duration 1s
bench/scenarios/periodic.toml $G --set platform.cores=64 --set workload.tasks=128 --duration 200ms
RUNS
echo "vtick: training done in $(( $(date +%s) - t0 )) s"
