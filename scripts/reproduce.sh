#!/bin/sh
# The evidence of docs/validation.md, regenerated: the validation suite (validation/), the
# reproduction on both OCI shapes, the ablation tables, the hypothesis search and the
# amplifier sweep. Writes text tables
# and JSON to OUT (default results/reproduction); scripts/validation-tables.py OUT then
# rewrites the tables of docs/validation.md. Takes about 50 minutes on 2 cores.
# usage: scripts/reproduce.sh [OUT] [SEEDS] [DURATION]
set -eu
OUT=${1:-results/reproduction}
SEEDS=${2:-5}
DUR=${3:-10s}
VTICK=${VTICK:-build/cli/vtick}
export VTICK
mkdir -p "$OUT"
step() { echo "== $*" >&2; }

step "validation suite (validation/*.toml; a known FAIL does not stop the rest)"
$VTICK validate-suite --quiet --json "$OUT/validation-suite.json" --markdown "$OUT/validation-suite.md" > "$OUT/validation-suite.txt" || true

for s in standard2.1-oltp a1.flex.2-oltp; do
  step "reproduction: $s, 5 policies x $SEEDS seeds x $DUR"
  $VTICK compare scenarios/oci/$s.toml --policies legacy,got_tick,force_retain,loehle,tglx_avg \
    --seeds "$SEEDS" --set run.duration="$DUR" --quiet --json "$OUT/$s.json" > "$OUT/$s.txt"
done
for s in standard2.1-sysbench_threads a1.flex.2-sysbench_threads; do
  step "reproduction: $s (every vCPU always busy: short runs show it)"
  $VTICK compare scenarios/oci/$s.toml --policies legacy,got_tick,loehle \
    --seeds 2 --set run.duration=1s --quiet --json "$OUT/$s.json" > "$OUT/$s.txt"
done
for s in standard2.1-oltp a1.flex.2-oltp; do
  step "ablation: $s"
  $VTICK compare scenarios/oci/$s.toml --policies legacy,got_tick --ablate \
    --seeds "$SEEDS" --set run.duration="$DUR" --quiet --json "$OUT/$s-ablate.json" > "$OUT/$s-ablate.txt"
done
step "hypothesis search"
python3 scripts/hypotheses.py --seeds "$SEEDS" --duration "$DUR" \
  scenarios/oci/standard2.1-oltp.toml scenarios/oci/a1.flex.2-oltp.toml > "$OUT/hypotheses.md"
step "amplifier sweep"
python3 scripts/hypotheses.py --seeds "$SEEDS" --duration "$DUR" --amplifier 100us,300us,500us,600us,700us,800us,1000us \
  scenarios/oci/standard2.1-oltp.toml scenarios/oci/a1.flex.2-oltp.toml > "$OUT/amplifier.md"
step "done: $OUT"
