#!/bin/sh
# Runs every shipped scenario (and the bench's scaling shapes) under two vtick binaries and
# reports any result that differs (the JSON without its manifest). For speed work that
# claims to change no result: scripts/compare-builds.sh /tmp/ref/build/cli/vtick build/cli/vtick
# Exit 1 when a result differs, 2 on bad arguments.
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
  echo "usage: $0 REFERENCE_VTICK NEW_VTICK [DURATION, default 2s]" >&2
  exit 2
fi
REF=$(realpath "$1"); NEW=$(realpath "$2"); DUR=${3:-2s}
cd "$(dirname "$0")/../scenarios" || exit 2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
G="--set platform.shape=generic --set platform.arch=skylake-sp --set platform.threads_per_core=1"
# one case per line: a name, then the arguments of vtick run
cases() {
  for f in *.toml oci/*.toml story3/*.toml teach/*.toml ../bench/scenarios/*.toml; do
    d=$DUR
    case $f in *sysbench*|*hackbench*) d=500ms ;; esac
    echo "$f|$f --duration $d"
  done
  echo "default+noise|default.toml --duration $DUR --set host.noise.threads=1"
  echo "periodic-8|../bench/scenarios/periodic.toml $G --set platform.cores=8 --set workload.tasks=16 --duration 1s"
  echo "periodic-64|../bench/scenarios/periodic.toml $G --set platform.cores=64 --set workload.tasks=128 --duration 500ms"
  echo "oltp-64|oci/standard2.1-oltp.toml $G --set platform.cores=64 --duration 500ms"
  echo "a1-oltp-seed7|oci/a1.flex.2-oltp.toml --seed 7 --duration $DUR"
}
strip='import json,sys; d=json.load(open(sys.argv[1])); d.pop("manifest",None); json.dump(d,sys.stdout,sort_keys=True,indent=0)'
bad=0; n=0
cases > "$OUT/cases"
while IFS='|' read -r name args; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$REF" run $args --quiet --json "$OUT/ref.json" </dev/null || { echo "FAIL (reference run): $name"; bad=1; continue; }
  # shellcheck disable=SC2086
  "$NEW" run $args --quiet --json "$OUT/new.json" </dev/null || { echo "FAIL (new run): $name"; bad=1; continue; }
  python3 -c "$strip" "$OUT/ref.json" > "$OUT/ref.txt"
  python3 -c "$strip" "$OUT/new.json" > "$OUT/new.txt"
  if cmp -s "$OUT/ref.txt" "$OUT/new.txt"; then
    echo "same: $name"
  else
    echo "DIFFERENT: $name ($(diff "$OUT/ref.txt" "$OUT/new.txt" | grep -c '^<') lines)"
    diff "$OUT/ref.txt" "$OUT/new.txt" | head -6
    bad=1
  fi
done < "$OUT/cases"
echo "$n cases compared"
exit $bad
