#!/bin/sh
# scripts/explain-summary.py on a hand-made report: the band column, a mean inside a band
# marked ✓, one outside not, negative means with a real minus, and only the 100 us and 1 ms
# departures listed; a missing file exits non-zero naming it.
set -eu
SRC=$1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/r.json" <<'J'
{"constraints": [{"id": "s2.1-got_tick", "lo": -35.0, "hi": -23.0}, {"id": "s2.2-got_tick", "lo": -3.0, "hi": 3.0}],
 "baseline": {"distance": 1.5, "change_pct": {"s2.1-got_tick": {"mean": -0.04, "ci95": 0.1}, "s2.2-got_tick": {"mean": 1.26, "ci95": 0.5}}},
 "best": [{"distance": 0.25, "change_pct": {"s2.1-got_tick": {"mean": -24.0, "ci95": 2.0}, "s2.2-got_tick": {"mean": -3.5, "ci95": 1.0}}}],
 "departures": [{"tried": [
   {"value": "50us", "distance": 9, "change_pct": {"s2.1-got_tick": {"mean": 0, "ci95": 0}, "s2.2-got_tick": {"mean": 0, "ci95": 0}}},
   {"value": "100us", "distance": 1.0, "change_pct": {"s2.1-got_tick": {"mean": -30.0, "ci95": 1.0}, "s2.2-got_tick": {"mean": 0.0, "ci95": 0.0}}},
   {"value": "1ms", "distance": 2.0, "change_pct": {"s2.1-got_tick": {"mean": -40.0, "ci95": 1.0}, "s2.2-got_tick": {"mean": 2.0, "ci95": 0.1}}}]}]}
J
python3 "$SRC/scripts/explain-summary.py" "$T/r.json" > "$T/out.md"
cat > "$T/want.md" <<'W'
| set (full budget) | distance | s2.1 got_tick | s2.2 got_tick |
|---|---|---|---|
| band | | −35 .. −23 | ±3 |
| as shipped | 1.50 | −0.0 ±0.1 | +1.3 ±0.5 ✓ |
| best in range | 0.25 | −24.0 ±2.0 ✓ | −3.5 ±1.0 |
| + 100 µs per tick wake-up | 1.00 | −30.0 ±1.0 ✓ | +0.0 ±0.0 ✓ |
| + 1 ms per tick wake-up | 2.00 | −40.0 ±1.0 | +2.0 ±0.1 ✓ |
W
if ! cmp -s "$T/out.md" "$T/want.md"; then diff "$T/want.md" "$T/out.md"; exit 1; fi
if python3 "$SRC/scripts/explain-summary.py" "$T/none.json" 2> "$T/err"; then echo "a missing report exited 0"; exit 1; fi
grep -q "none.json" "$T/err" || { echo "the error does not name the file: $(cat "$T/err")"; exit 1; }
echo ok
