#!/bin/sh
# scripts/trace-costs.py on hand-made trace-compare rows: each cost moves by the real p50
# less the model's (less the moves before it in the same interval), worked out below; with
# the CAL rows split by the target's state, those three move the kick (or a posted
# delivery), halt_resume_ns and hlt_exit_ns instead of ipi_deliver_ns; a row missing leaves
# its cost; a value outside the declared range, bad JSON or a missing file exit 2 naming
# the row, line or file.
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
# the CAL rows split by the target's state (trace-compare's to_running, to_halted, halt_to_entry)
split() {  # APICV: the run's host.kvm.apicv; TO_RUNNING_REAL
  cat > "$T/sim2.json" <<J
{"config": {"host": {"kvm": {"apicv": $1}, "costs": {"timer_write_ns": 400, "ipi_send_ns": 450, "ipi_deliver_ns": 500,
                     "kick_ns": 300, "halt_resume_ns": 400, "hlt_exit_ns": 300}},
            "guest": {"costs": {"switch_idle_ns": 600}}}}
J
  cat > "$T/cmp2.json" <<J
{"rows": [
 {"row": "wrmsr.icr", "statistic": "p50", "real": 2.5, "sim": 1.0},
 {"row": "ipi_to_entry.CAL", "statistic": "p50", "real": 6.0, "sim": 2.0},
 {"row": "ipi_to_entry.CAL.to_running", "statistic": "p50", "real": $2, "sim": 2.3},
 {"row": "ipi_to_entry.CAL.to_halted", "statistic": "p50", "real": 3.6, "sim": 2.0},
 {"row": "halt_to_entry.CAL", "statistic": "p50", "real": 4.4, "sim": 0.9}]}
J
  $PY --cmp "$T/cmp2.json" --sim "$T/sim2.json" > "$T/out" 2> "$T/err"
}
split false 7.3
# 450 + 1500; kick 300 + 5000 - 1500; halt_resume 400 + 1600 - 1500; hlt_exit 300 + 3500
printf -- '--set host.costs.ipi_send_ns=1950\n--set host.costs.kick_ns=3800\n--set host.costs.halt_resume_ns=500\n--set host.costs.hlt_exit_ns=3800\n' > "$T/want"
cmp "$T/out" "$T/want" || { echo "derived costs (split, no APICv) differ:"; diff "$T/want" "$T/out"; exit 1; }
split true 4.0
# posted: ipi_deliver 500 + 1700 - 1500; halt_resume 400 + 1600 - 1500 - 200; hlt_exit as above
printf -- '--set host.costs.ipi_send_ns=1950\n--set host.costs.ipi_deliver_ns=700\n--set host.costs.halt_resume_ns=300\n--set host.costs.hlt_exit_ns=3800\n' > "$T/want"
cmp "$T/out" "$T/want" || { echo "derived costs (split, APICv) differ:"; diff "$T/want" "$T/out"; exit 1; }
echo "trace-costs: derived costs and refusals as worked out"
