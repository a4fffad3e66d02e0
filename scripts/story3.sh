#!/bin/sh
# Story 3 (issue 17): each claim of Frederic Weisbecker's 2026 idle cputime series as a
# scenario (scenarios/story3/), run under the old and the new scheme with --proc-stat
# 250us, drawn side by side (gnuplot SVG) into OUT (default docs/img/story3).
# usage: scripts/story3.sh [OUT]       (VTICK=build/cli/vtick)
set -eu
OUT=${1:-docs/img/story3}
VTICK=${VTICK:-build/cli/vtick}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
for f in scenarios/story3/*.toml; do
  n=$(basename "$f" .toml)
  case $n in report-*) continue ;; esac  # the 2026-10 report's cases: scripts/story3-report.py
  for s in old new; do
    "$VTICK" run "$f" --quiet --set guest.cputime=$s --proc-stat 250us --proc-stat-csv "$TMP/$n-$s.csv"
  done
done
# irq-time also with CONFIG_IRQ_TIME_ACCOUNTING=y
for s in old new; do
  "$VTICK" run scenarios/story3/irq-time.toml --quiet --set guest.cputime=$s --set guest.irq_time_accounting=true \
    --proc-stat 250us --proc-stat-csv "$TMP/irq-time-on-$s.csv"
done
python3 scripts/story3_plot.py "$TMP" "$OUT"
