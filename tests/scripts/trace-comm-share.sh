#!/bin/sh
# scripts/trace-comm-share.py (what else ran beside a recorded workload) on a vtick trace
# whose shares are known by hand: 'spin' on vCPU 0 runs 3 ms, then sleeps 1 ms plus the
# 50 us timer slack (3/4.05 of one of two vCPUs: 37.0 % of the VM's CPU time, swapper/0
# the 13.0 % left); 'blip' on vCPU 1 runs 100 us of every 10.15 ms (0.5 %, swapper/1
# 49.5 %): so short that the SMT sibling barely slows 'spin'. Kernel work (ticks, the
# sleep's syscall and wake-up) moves each by under a point. Then: a CPU without
# sched_switch records is named, and bad input exits 2.
# usage: trace-comm-share.sh VTICK SOURCE_DIR
set -eu
BIN=$1; SRC=$2
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/s.toml" <<'TOML'
[guest]
hz = 250
tick_policy = "got_tick"
background.preset = "none"
[workload]
kind = "script"
[[workload.task]]
name = "spin"
cpus = "0"
program = ["run 3ms", "sleep 1ms"]
[[workload.task]]
name = "blip"
cpus = "1"
program = ["run 100us", "sleep 10ms"]
[run]
duration = "400ms"
seed = 1
TOML
"$BIN" run "$T/s.toml" --quiet --trace-dat "$T/sim.dat"
python3 "$SRC/scripts/trace-comm-share.py" "$T/sim-vm0.dat" > "$T/share.txt"
cat "$T/share.txt"
python3 - "$T/share.txt" <<'PY'
import sys
got = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] != 'total':
        got[f[1]] = float(f[0])
want = {'spin': 37.0, 'swapper/0': 13.0, 'blip': 0.5, 'swapper/1': 49.5}
bad = [f'{c}: {got.get(c)} %, expected {w} % +- 1' for c, w in want.items()
       if got.get(c) is None or abs(got[c] - w) > 1.0]
if abs(sum(got.values()) - 100) > 0.01:
    bad.append(f'shares sum to {sum(got.values())} %')
if bad:
    sys.exit('FAIL: ' + '; '.join(bad))
PY
# without 'blip', vCPU 1 never switches: its share is unknown, and the script says so
python3 - "$T/s.toml" "$T/one.toml" <<'PY'
import sys
s = open(sys.argv[1]).read()
open(sys.argv[2], 'w').write(s[:s.index('[[workload.task]]\nname = "blip"')] + s[s.index('[run]'):])
PY
"$BIN" run "$T/one.toml" --quiet --trace-dat "$T/one.dat"
python3 "$SRC/scripts/trace-comm-share.py" "$T/one-vm0.dat" > /dev/null 2> "$T/one.err"
grep -q "CPU 1 has fewer than 2 sched_switch records" "$T/one.err" || { echo "FAIL: an idle CPU not named: $(cat "$T/one.err")"; exit 1; }
printf 'not a trace' > "$T/bad.dat"
if python3 "$SRC/scripts/trace-comm-share.py" "$T/bad.dat" 2> "$T/err.txt"; then echo "FAIL: a bad file accepted"; exit 1; fi
rc=0; python3 "$SRC/scripts/trace-comm-share.py" "$T/bad.dat" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc for a bad file, expected 2"; exit 1; }
grep -q "bad.dat" "$T/err.txt" || { echo "FAIL: the message does not name the file: $(cat "$T/err.txt")"; exit 1; }
echo ok
