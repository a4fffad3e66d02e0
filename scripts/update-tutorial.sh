#!/usr/bin/env bash
# Regenerates the timelines of docs/tutorial.md (docs/img/tutorial-*.svg) from the teaching
# scenario with `vtick run --trace` and `vtick timeline`. tests check they are current.
# VTICK: the vtick binary; OUT: where the SVGs go (default docs/img).
set -euo pipefail
cd "$(dirname "$0")/.."
VTICK=${VTICK:-build/cli/vtick}
OUT=${OUT:-docs/img}
SCENARIO=scenarios/teach/wakeup.toml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$OUT"
for policy in legacy got_tick; do
  "$VTICK" run "$SCENARIO" --set guest.tick_policy="$policy" --quiet --trace "$tmp/$policy.json"
  "$VTICK" timeline "$tmp/$policy.json" --svg "$OUT/tutorial-$policy.svg"
done
# the close-ups the tutorial walks through: entering idle, the IPI wake-up, a tick wake-up
"$VTICK" timeline "$tmp/legacy.json" --svg "$OUT/tutorial-legacy-idle-entry.svg" --window 795us:830us
"$VTICK" timeline "$tmp/got_tick.json" --svg "$OUT/tutorial-got_tick-idle-entry.svg" --window 795us:830us
"$VTICK" timeline "$tmp/legacy.json" --svg "$OUT/tutorial-legacy-wakeup.svg" --window 700us:730us
"$VTICK" timeline "$tmp/got_tick.json" --svg "$OUT/tutorial-got_tick-wakeup.svg" --window 700us:730us
"$VTICK" timeline "$tmp/got_tick.json" --svg "$OUT/tutorial-got_tick-tick.svg" --window 7990us:8040us
