#!/bin/sh
# scripts/record-guest-trace.sh checks its options, then refuses to record under CI (it
# measures the machine itself): every case exits 2 with a message naming what is wrong,
# and no ftrace instance is left behind.
S=$1/scripts/record-guest-trace.sh
fail() { echo "FAIL: $*"; exit 1; }
check() {  # expected-substring, then the arguments
  want=$1; shift
  out=$(CI=1 bash "$S" "$@" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "'$*': exit $rc, expected 2 ($out)"
  case $out in *"$want"*) ;; *) fail "'$*': message '$out' lacks '$want'" ;; esac
}
check "refusing to run under CI" --only idle --repeat 1
check "refusing to run under CI"
check "unknown option '--bogus'" --bogus
check "--only: unknown run 'nope'" --only idle,nope
check "--repeat must be a positive whole number, got '0'" --repeat 0
check "--buffer-kb must be a positive whole number, got 'x'" --buffer-kb x
check "--out needs a directory" --out
check "--trace-time must be a positive whole number, got '0.5'" --trace-time 0.5
check "--max-busy must be a whole percentage 0 .. 100, got '101'" --max-busy 101
check "--max-busy must be a whole percentage 0 .. 100, got '5%'" --max-busy 5%
check "--max-busy needs a percentage" --max-busy
check "--pipe-loops must be a positive whole number, got '1e5'" --pipe-loops 1e5
for d in /sys/kernel/tracing/instances/vtick-record-*; do
  [ -e "$d" ] && fail "an ftrace instance was left: $d"
done
echo ok
