#!/bin/sh
# docs/validation.md's trace-compare baseline block is what scripts/trace-baseline-table.py
# makes from the committed baseline (docs/real-guest/trace-2026-12-06): a figure typed or
# left stale there fails this.
set -eu
SRC=$1
D=$SRC/docs/real-guest/trace-2026-12-06
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
python3 "$SRC/scripts/trace-baseline-table.py" --recording "$D" --out "$D" --to "$T" \
  --bands "$SRC/validation/trace/bands.toml" sb-n2-l1 sb-n2-l8 sb-n4-l8 pipe-pinned pipe-free hackbench idle
sed -n '/<!-- trace-baseline: begin -->/,/<!-- trace-baseline: end -->/p' "$SRC/docs/validation.md" | sed '1,2d;$d' > "$T/doc.md"
if ! cmp -s "$T/doc.md" "$T/baseline.md"; then
  echo "docs/validation.md's trace-baseline block differs from the generator's output:"
  diff "$T/baseline.md" "$T/doc.md" | head -20
  exit 1
fi
echo ok
