#!/usr/bin/env bash
# Runs the shipped sweeps (scenarios/sweeps/, resuming what is already in results/) and
# copies their figures into docs/img/sweeps/, which docs/validation.md shows. About 15
# minutes on 2 cores from scratch.
# VTICK: the vtick binary; JOBS: processes (default: the number of CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."
VTICK=${VTICK:-build/cli/vtick}
JOBS=${JOBS:-$(nproc)}
mkdir -p docs/img/sweeps
for s in standard2-hz-vcpus a1-hz-vcpus; do
  "$VTICK" sweep "scenarios/sweeps/$s.toml" --jobs "$JOBS" --resume
  "$VTICK" plot "results/$s" >/dev/null
  for f in results/"$s"/plots/*.svg; do
    cp "$f" "docs/img/sweeps/$s-$(basename "$f")"
  done
  cp "results/$s/summary.csv" "docs/img/sweeps/$s-summary.csv"
  [ -f "results/$s/delta.csv" ] && cp "results/$s/delta.csv" "docs/img/sweeps/$s-delta.csv"
done
echo "docs/img/sweeps/ updated"
