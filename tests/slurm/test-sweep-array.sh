#!/bin/sh
# A small `vtick sweep` run as a Slurm job array on a real single-node cluster on this
# machine (tests/slurm/cluster.sh), one grid point per array task (--index
# $SLURM_ARRAY_TASK_ID), then --collect; and the same sweep run locally with --jobs 2.
# The two result directories must hold the same tables. Fails (exit 1) when a task failed,
# a daemon did not start, or the results differ; 77 (skipped) without root.
#   usage: tests/slurm/test-sweep-array.sh VTICK SRCDIR
# SLURM_TEST_KEEP=1 keeps the temporary directory (logs, results) for a look afterwards.
set -eu
. "$(dirname "$0")/harness.sh"
slurm_test_begin test-sweep-array "$@"
[ -f "$SRC/scenarios/default.toml" ] || fail "no $SRC/scenarios/default.toml"

# 2 policies x 2 seeds = 4 points of 100 ms simulated
cat > "$D/sweep.toml" <<EOF
scenario = "$SRC/scenarios/default.toml"

[set]
"run.duration" = "100ms"

[axes]
"guest.tick_policy" = ["legacy", "got_tick"]
"run.seed" = "1..2"
EOF
N=$("$VTICK" sweep "$D/sweep.toml" --list | wc -l)
[ "$N" -ge 1 ] || fail "vtick sweep --list printed no grid point"
echo "test-sweep-array: $N grid points" >&2

cat > "$D/task.sh" <<EOF
#!/bin/sh
set -eu
exec "$VTICK" sweep "$D/sweep.toml" --out "$D/slurm" --index "\$SLURM_ARRAY_TASK_ID" --quiet
EOF
# in the background and waited for: a TERM or INT to this script runs its trap at once
# (a shell runs it only after the foreground command), which ends submit-wait first
sh "$CLUSTER" submit-wait "$D" "$D/task.sh" --array=0-$((N - 1)) --job-name=vtick-sweep \
   --chdir="$D" --output="$D/task-%A_%a.out" --ntasks=1 --cpus-per-task=1 > "$D/job.id" &
SW=$!
wait $SW || fail "the job array failed (task output: $D/task-*.out, logs: $D/log/)"
SW=""
job=$(cat "$D/job.id")
# each task's own word too: its output file exists, and a result file per point
k=0
while [ $k -lt "$N" ]; do
  [ -f "$D/task-${job}_$k.out" ] || fail "array task $k left no output file"
  f=$(printf '%s/slurm/runs/%06d.json' "$D" $k)
  [ -s "$f" ] || fail "array task $k wrote no $f"
  k=$((k + 1))
done
T2=$(date +%s)
"$VTICK" sweep "$D/sweep.toml" --out "$D/slurm" --collect --quiet || fail "vtick sweep --collect of the array's results failed"
"$VTICK" sweep "$D/sweep.toml" --out "$D/local" --jobs 2 --quiet || fail "the local sweep (--jobs 2) failed"

# What must be equal: the tables built from the run files (runs.csv, summary.csv,
# delta.csv), byte for byte; they hold only what the model computed (docs/cli.md). Not
# compared: timing.csv (wall seconds per run). In the JSON documents the manifest's
# command_line (another --out, --index or --jobs) and the wall-clock figures differ
# legitimately; everything else in sweep.json and each runs/NNNNNN.json must be equal.
for t in runs.csv summary.csv delta.csv; do
  [ -s "$D/local/$t" ] || fail "the local sweep wrote no $t"
  [ -s "$D/slurm/$t" ] || fail "the array's --collect wrote no $t"
  if ! cmp -s "$D/local/$t" "$D/slurm/$t"; then
    diff "$D/local/$t" "$D/slurm/$t" | head -n 20 >&2 || true
    fail "$t differs between the Slurm array and the local sweep (above: local <, slurm >)"
  fi
done
rows=$(($(wc -l < "$D/slurm/runs.csv") - 1))
[ "$rows" -eq "$N" ] || fail "runs.csv has $rows rows, the grid $N points"
if grep -q ',failed,\|,missing,' "$D/slurm/runs.csv"; then fail "runs.csv has a failed or missing run"; fi
python3 - "$D/local" "$D/slurm" <<'EOF' || fail "the result documents differ between the Slurm array and the local sweep"
import json, os, sys
WALL = ("wall_seconds", "simulated_seconds_per_wall_second", "events_per_wall_second")
def load(path):
    with open(path) as f:
        d = json.load(f)
    d.get("manifest", {}).pop("command_line", None)
    for k in WALL:
        d.get("manifest", {}).pop(k, None)
    return d
a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(a + "/runs"))
if names != sorted(os.listdir(b + "/runs")):
    sys.exit("runs/ holds other files: local %s, slurm %s" % (names, sorted(os.listdir(b + "/runs"))))
bad = [n for n in ["sweep.json"] + ["runs/" + n for n in names] if load(a + "/" + n) != load(b + "/" + n)]
if bad:
    sys.exit("differ beyond command_line and wall time: " + ", ".join(bad))
EOF
T3=$(date +%s)
echo "test-sweep-array: PASS: $N-task array == local --jobs 2 (runs.csv, summary.csv, delta.csv, sweep.json, runs/*.json);" \
     "cluster start $((T1 - T0)) s, array $((T2 - T1)) s, collect + local + compare $((T3 - T2)) s" >&2
