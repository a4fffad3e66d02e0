#!/bin/sh
# `vtick explain --slurm` on a real single-node Slurm cluster on this machine
# (tests/slurm/cluster.sh): each round writes the runs still to do as a job array
# (DIR/explain.sbatch, exit 75), the array runs them (--index $SLURM_ARRAY_TASK_ID), and
# the same command again goes on, until the report is written (exit 0). The same search
# run locally with --jobs 2 must give the same explain.json (the manifest aside: its
# command line differs). Fails (exit 1) when a task failed, a daemon did not start or the
# reports differ; 77 (skipped) without root.
#   usage: tests/slurm/test-explain-array.sh VTICK SRCDIR
set -eu
. "$(dirname "$0")/harness.sh"
slurm_test_begin test-explain-array "$@"
TARGET=$SRC/tests/data/explain-mini.toml
[ -f "$TARGET" ] || fail "no $TARGET"

rounds=0
while :; do
  rc=0
  "$VTICK" explain "$TARGET" --out "$D/slurm" --slurm --quiet > "$D/round.out" 2>&1 || rc=$?
  [ $rc -eq 0 ] && break
  [ $rc -eq 75 ] || { cat "$D/round.out" >&2; fail "vtick explain --slurm exited $rc (75: runs to do, 0: done)"; }
  rounds=$((rounds + 1))
  [ $rounds -le 30 ] || fail "more than 30 rounds"
  grep -q '^#SBATCH --array=0-' "$D/slurm/explain.sbatch" || fail "explain.sbatch has no #SBATCH --array line"
  sh "$CLUSTER" submit-wait "$D" "$D/slurm/explain.sbatch" --chdir="$D" > "$D/job.id" &
  SW=$!
  wait $SW || fail "round $rounds: the job array failed (task output: $D/slurm/slurm/, logs: $D/log/)"
  SW=""
done
[ $rounds -ge 3 ] || fail "only $rounds rounds: the search has at least screening, design and refinement rounds"
[ -s "$D/slurm/explain.md" ] || fail "no explain.md after the last round"
"$VTICK" explain "$TARGET" --out "$D/local" --jobs 2 --quiet > /dev/null || fail "the local explain (--jobs 2) failed"
python3 - "$D/local/explain.json" "$D/slurm/explain.json" <<'EOF' || fail "explain.json differs between the Slurm rounds and the local run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("manifest")
if a != b:
    sys.exit("differ: " + ", ".join(k for k in a if a.get(k) != b.get(k)))
EOF
echo "test-explain-array: PASS: $rounds job-array rounds == local --jobs 2 (explain.json)" >&2
