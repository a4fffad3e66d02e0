#!/usr/bin/env bash
# Every counter of every shipped scenario (sweeps aside), seeds 1 and 2, 1 simulated
# second each: a snapshot to diff a change against (scripts/compare-counters.py).
# usage: scripts/counter-snapshot.sh OUTDIR [VTICK]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: scripts/counter-snapshot.sh OUTDIR [VTICK]}
V=${2:-build/cli/vtick}
mkdir -p "$OUT"
for f in $(find scenarios -name '*.toml' ! -path '*/sweeps/*' | sort); do
  for s in 1 2; do
    "$V" run "$f" --seed "$s" --duration 1s --quiet --json "$OUT/$(echo "$f" | tr / _).s$s.json" || echo "FAILED: $f seed $s" >&2
  done
done
