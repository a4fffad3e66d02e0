# Sourced by tests/slurm/test-*.sh (POSIX sh, set -eu): the part every Slurm test shares.
#   . "$(dirname "$0")/harness.sh"; slurm_test_begin NAME "$@"
# checks the arguments (VTICK SRCDIR), makes the temporary directory D, starts the cluster
# of tests/slurm/cluster.sh in it (its watchdog stops it even when the test is killed
# before its trap runs), and sets a trap that stops it and removes D (SLURM_TEST_KEEP=1
# keeps D: logs, task output, results). Defines fail() and sets VTICK (a copy in D: a
# relink of the build's vtick meanwhile cannot make a task fail with "Permission denied"
# or mix two binaries), SRC, CLUSTER, D, T0 and T1 (the cluster up). Exit 77 without root.
slurm_test_begin() {
  NAME=$1
  shift
  [ $# -eq 2 ] || { echo "usage: $0 VTICK SRCDIR" >&2; exit 2; }
  VTICK=$(slurm_abs "$1")
  SRC=$(slurm_abs "$2")
  CLUSTER=$SRC/tests/slurm/cluster.sh
  [ -x "$VTICK" ] || { echo "$NAME: $VTICK is not an executable" >&2; exit 2; }
  T0=$(date +%s)
  D=$(mktemp -d "${TMPDIR:-/tmp}/vtick-slurm.XXXXXX")
  trap slurm_test_end EXIT
  trap 'echo "$NAME: interrupted" >&2; exit 1' INT TERM HUP
  rc=0
  env=$(SLURM_TEST_OWNER_PID=$$ sh "$CLUSTER" start "$D") || rc=$?
  [ $rc -eq 0 ] || { [ $rc -eq 77 ] && exit 77; fail "the cluster did not start (exit $rc)"; }
  eval "$env"
  T1=$(date +%s)
  cp "$VTICK" "$D/vtick"
  VTICK=$D/vtick
}

slurm_abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
fail() { echo "$NAME: FAIL: $*" >&2; exit 1; }

# SW: a background submit-wait still running (ended first)
slurm_test_end() {
  rc=$?
  trap - EXIT INT TERM HUP
  [ -z "${SW:-}" ] || kill -TERM "$SW" 2>/dev/null || true
  sh "$CLUSTER" stop "$D" || { echo "$NAME: FAIL: the cluster did not stop cleanly" >&2; rc=1; }
  if [ "${SLURM_TEST_KEEP:-0}" = 1 ]; then
    echo "$NAME: kept $D" >&2
  else
    rm -rf "$D"
    [ $rc -eq 0 ] || [ $rc -eq 77 ] || echo "$NAME: $D removed; SLURM_TEST_KEEP=1 keeps it (logs, task output, results)" >&2
  fi
  echo "$NAME: whole cycle: $(($(date +%s) - T0)) s" >&2
  exit $rc
}
