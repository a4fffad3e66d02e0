#!/bin/sh
# docs/validation.md's trace-compare baseline blocks are what scripts/trace-baseline-table.py
# makes from the committed baseline (docs/real-guest/trace-2026-12-06: got_tick; legacy/
# as calibrate wrote the scenario; now/ a later model against the kept real rows,
# scripts/trace-baseline.sh --real-from; policies/: every tick policy): a figure typed or
# left stale there fails this.
set -eu
SRC=$1
D=$SRC/docs/real-guest/trace-2026-12-06
NAMES="sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
check() {  # marker, recording dir, out dir, extra options
  marker=$1; rec=$2; out=$3; shift 3
  mkdir -p "$T/$marker"
  # shellcheck disable=SC2086
  python3 "$SRC/scripts/trace-baseline-table.py" --recording "$rec" --out "$out" --to "$T/$marker" \
    --bands "$SRC/validation/trace/bands.toml" "$@" $NAMES
  sed -n "/<!-- $marker: begin -->/,/<!-- $marker: end -->/p" "$SRC/docs/validation.md" | sed '1,2d;$d' > "$T/$marker/doc.md"
  if ! cmp -s "$T/$marker/doc.md" "$T/$marker/baseline.md"; then
    echo "docs/validation.md's $marker block differs from the generator's output:"
    diff "$T/$marker/baseline.md" "$T/$marker/doc.md" | head -20
    exit 1
  fi
}
check trace-baseline "$D" "$D"
check trace-baseline-legacy "$D" "$D/legacy" --summary-only
check trace-baseline-now "$D" "$D/now" --summary-only
B=$SRC/docs/real-guest/trace-2026-12-06b  # the second machine
check trace-baseline-b "$B" "$B" --summary-only
check trace-baseline-b-now "$B" "$B/now" --summary-only  # the guest's measured speed (83768b1)
C=$SRC/docs/real-guest/trace-2026-12-06c  # the third machine: AMD, no cpuidle driver
check trace-baseline-c "$C" "$C" --summary-only  # got_tick, as the recording shows
check trace-baseline-c-legacy "$C" "$C/legacy" --summary-only
check trace-baseline-c-costs "$C" "$C/costs" --summary-only  # the machine's own costs (issue 43)
check trace-baseline-c-costs2 "$C" "$C/costs2" --summary-only  # and the blocking path's later pieces
check trace-baseline-c-costs3 "$C" "$C/costs3" --summary-only  # and eevdf, ttwu in place
check trace-baseline-c-costs4 "$C" "$C/costs4" --summary-only  # and DELAY_DEQUEUE
check trace-baseline-c-costs5 "$C" "$C/costs5" --summary-only  # and hackbench as recorded
check trace-baseline-c-costs6 "$C" "$C/costs6" --summary-only  # and migrate_load
check trace-baseline-c-costs7 "$C" "$C/costs7" --summary-only  # and the pipe stand-in's measured work
check trace-baseline-c-costs8 "$C" "$C/costs8" --summary-only  # and sched_yield()'s forfeit
check trace-baseline-c-costs9 "$C" "$C/costs9" --summary-only  # and hackbench's start
# the sysbench threads workloads under every tick policy (scripts/trace-policies-table.py)
python3 "$SRC/scripts/trace-policies-table.py" --recording "$D" --dir "$D/policies" \
  legacy got_tick force_retain loehle tglx_avg periodic > "$T/policies.md"
sed -n '/<!-- trace-policies: begin -->/,/<!-- trace-policies: end -->/p' "$SRC/docs/validation.md" | sed '1,2d;$d' > "$T/policies-doc.md"
if ! cmp -s "$T/policies-doc.md" "$T/policies.md"; then
  echo "docs/validation.md's trace-policies block differs from the generator's output:"
  diff "$T/policies.md" "$T/policies-doc.md" | head -20
  exit 1
fi
# a measured reason must name a band of the bands file: anything else is refused (exit 2)
printf '[[reason]]\nrecording = "x"\nworkload = "idle"\nrows = ["halts p50"]\nmeasured = "m"\nwhy = "w"\n' > "$T/bad-reasons.toml"
set +e
python3 "$SRC/scripts/trace-baseline-table.py" --recording "$B" --out "$B" --to "$T" --reasons "$T/bad-reasons.toml" \
  --bands "$SRC/validation/trace/bands.toml" --summary-only $NAMES 2> "$T/err"
rc=$?
set -e
if [ "$rc" != 2 ] || ! grep -q "row 'halts p50' is not a band" "$T/err"; then
  echo "a reason naming no band: exit $rc, $(cat "$T/err")"
  exit 1
fi
# trace-baseline.sh --set-for names the workloads it may set (the inputs of the b-now block)
set +e
"$SRC/scripts/trace-baseline.sh" --recording "$B" --scenario "$B/now/calibrated.toml" --set-for sb-n2-l1,nosuch workload.x=1 2> "$T/err2"
rc=$?
set -e
if [ "$rc" != 2 ] || ! grep -q "set-for: unknown workload 'nosuch' (allowed: sb-n2-l1" "$T/err2"; then
  echo "--set-for with an unknown workload: exit $rc, $(cat "$T/err2")"
  exit 1
fi
echo ok
