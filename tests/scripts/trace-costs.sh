#!/bin/sh
# scripts/trace-costs.py on hand-made trace-compare rows: each cost moves by the real p50
# less the model's (ipi_deliver_ns also less ipi_send_ns's move), worked out below; a row
# missing leaves its cost; a value outside the declared range, bad JSON or a missing file
# exit 2 naming the row, line or file.
# usage: trace-costs.sh VTICK SOURCE_DIR
set -eu
BIN=$1; SRC=$2
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
PY="python3 $SRC/scripts/trace-costs.py --vtick $BIN"
cat > "$T/sim.json" <<'J'
{"config": {"host": {"costs": {"timer_write_ns": 400, "ipi_send_ns": 450, "ipi_deliver_ns": 500}},
            "guest": {"costs": {"switch_idle_ns": 600}}}}
J
rows() {  # ICR_REAL PRE_HLT_REAL: the four p50 rows (us)
  cat <<J
{"rows": [
 {"row": "wrmsr.tsc_deadline", "statistic": "p50", "real": 3.4, "sim": 0.9},
 {"row": "wrmsr.tsc_deadline", "statistic": "rate", "real": 500, "sim": 2},
 {"row": "wrmsr.icr", "statistic": "p50", "real": $1, "sim": 1.0},
 {"row": "ipi_to_entry.CAL", "statistic": "p50", "real": 6.0, "sim": 2.0},
 {"row": "pre_hlt_window", "statistic": "p50", "real": $2, "sim": 0.8}]}
J
}
rows 2.5 1.8 > "$T/cmp.json"
$PY --cmp "$T/cmp.json" --sim "$T/sim.json" > "$T/out" 2> "$T/err"
# 400 + 2500; 450 + 1500; 500 + 4000 - 1500; 600 + 1000
printf -- '--set host.costs.timer_write_ns=2900\n--set host.costs.ipi_send_ns=1950\n--set host.costs.ipi_deliver_ns=3000\n--set guest.costs.switch_idle_ns=1600\n' > "$T/want"
cmp "$T/out" "$T/want" || { echo "derived costs differ:"; diff "$T/want" "$T/out"; exit 1; }

rows 2.5 null > "$T/cmp.json"  # no pre_hlt_window in the recording: switch_idle_ns left
$PY --cmp "$T/cmp.json" --sim "$T/sim.json" > "$T/out" 2> "$T/err"
grep -q switch_idle_ns "$T/out" && { echo "a missing row still moved its cost"; exit 1; }
grep -q "pre_hlt_window: not in the recording; guest.costs.switch_idle_ns stays 600" "$T/err" || { cat "$T/err"; exit 1; }

expect2() {  # WHAT PATTERN: the last command's status 2 and its message
  st=$1; shift
  [ "$st" -eq 2 ] || { echo "$1: exit $st, expected 2"; cat "$T/err"; exit 1; }
  grep -q "$2" "$T/err" || { echo "$1: message lacks '$2':"; cat "$T/err"; exit 1; }
}
rows 20 1.8 > "$T/cmp.json"  # 450 + 19000 is past ipi_send_ns's 8000
st=0; $PY --cmp "$T/cmp.json" --sim "$T/sim.json" > /dev/null 2> "$T/err" || st=$?
expect2 $st "out of range" "wrmsr.icr p50 real 20 us.*host.costs.ipi_send_ns would be 19450 ns, outside its declared range \[400 .. 8000\]"
printf '{"rows": [\n {"row": oops}]}\n' > "$T/bad.json"
st=0; $PY --cmp "$T/bad.json" --sim "$T/sim.json" > /dev/null 2> "$T/err" || st=$?
expect2 $st "bad JSON" "bad.json: line 2: not JSON"
st=0; $PY --cmp "$T/none.json" --sim "$T/sim.json" > /dev/null 2> "$T/err" || st=$?
expect2 $st "missing file" "none.json: cannot read"
st=0; $PY --cmp "$T/cmp.json" --sim "$T/cmp.json" > /dev/null 2> "$T/err" || st=$?
expect2 $st "not a run" "cmp.json: no config.host.costs"
echo "trace-costs: derived costs and refusals as worked out"
