#!/bin/sh
# vtick trace-compare on a real guest's trace (tests/data/real-trace, issue 42 item 3):
# the figures it prints for the real file equal those counted from `trace-cmd report` text
# by an independent path (trace_report_rows.py), beside a short vtick run; and the bands
# logic holds and fails where a planted bands file says. It checks the tool, never what the
# real machine measured.
# usage: trace-compare-real.sh VTICK SOURCE_DIR
set -eu
BIN=$1; SRC=$2
REAL=$SRC/tests/data/real-trace/pipe-free-7000.dat
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
"$BIN" run "$SRC/scenarios/default.toml" --duration 50ms --quiet --trace-dat "$T/sim.dat"
"$BIN" trace-compare "$REAL" "$T/sim-vm0.dat" --json "$T/cmp.json" > "$T/table.txt"
python3 "$SRC/tests/scripts/trace_report_rows.py" "$REAL" > "$T/indep.json"
python3 - "$T/cmp.json" "$T/indep.json" "$T/table.txt" <<'PY'
import json, math, sys
cmp, ind = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
table = open(sys.argv[3]).read()
bad = []
def near(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)
s = cmp['real']['seconds']
if not near(s, ind['seconds']):
    bad.append('window %r s, trace-cmd report gives %r s' % (s, ind['seconds']))
rows = {(r['row'], r['statistic']): r['real'] for r in cmp['rows']}
checked = 0
for name, n in ind['counts'].items():
    got = rows.get((name, 'rate'))
    checked += 1
    if got is None or round(got * s) != n:
        bad.append('%s: trace-compare %s/s (%s in the window), report %d' % (name, got, got and round(got * s), n))
for name, q in ind['intervals'].items():
    if round(rows[(name, 'rate')] * s) != q['n']:
        bad.append('%s: %s pairs, report %d' % (name, round(rows[(name, 'rate')] * s), q['n']))
    for st in ('p10', 'p50', 'p90'):
        checked += 1
        if not near(rows[(name, st)], q[st]):
            bad.append('%s %s: trace-compare %r us, report %r us' % (name, st, rows[(name, st)], q[st]))
for cpu, share in ind['idle_share'].items():
    checked += 1
    if not near(rows[('idle_share.' + cpu, 'share')], share):
        bad.append('idle_share.%s: %r, report %r' % (cpu, rows[('idle_share.' + cpu, 'share')], share))
# every row the report has, trace-compare has with samples (none is silently empty)
for must in ('pre_hlt_window', 'wake_to_run.same_cpu', 'wake_to_run.other_cpu', 'ipi_to_entry.CAL', 'cpu_idle_residency'):
    if must not in ind['intervals']:
        bad.append('the real trace lacks %s: choose another recording' % must)
if 'halts' not in table or 'real: ' + cmp['real']['path'] not in table:
    bad.append('the table on stdout lacks the real file or its rows')
if bad:
    print('\n'.join(bad)); sys.exit(1)
print('ok: %d figures of the real trace equal trace-cmd report\'s' % checked)
PY
# bands on the real file against itself: every ratio 1; two planted bands cannot hold
set +e
"$BIN" trace-compare "$REAL" "$REAL" --bands "$SRC/tests/data/real-trace/bands-planted.toml" > "$T/b.out" 2> "$T/b.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "planted bands: exit $rc, expected 1"; cat "$T/b.err"; exit 1; }
grep -q "out of band: wake_to_run.other_cpu p90 (.*bands-planted.toml:13:1): sim/real 1 outside \[1.5, 2\]" "$T/b.err" || { echo "planted p90 band not reported"; cat "$T/b.err"; exit 1; }
grep -q "out of band: idle_share.cpu1 share (.*bands-planted.toml:18:1)" "$T/b.err" || { echo "planted share band not reported"; cat "$T/b.err"; exit 1; }
[ "$(grep -c 'out of band' "$T/b.err")" -eq 2 ] || { echo "bands that hold were reported"; cat "$T/b.err"; exit 1; }
echo ok
