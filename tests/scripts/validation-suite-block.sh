#!/bin/sh
# docs/validation.md's validation-suite table and its "N of M pass" are what this build's
# `vtick validate-suite --markdown` gives (3 s): a verdict or figure typed there, or left
# stale by a model change, fails this. (scripts/reproduce.sh + scripts/validation-tables.py
# rewrite the block.)
# usage: validation-suite-block.sh VTICK SOURCE_DIR [DOC]   (DOC: default docs/validation.md)
set -eu
VTICK=$1; SRC=$2; DOC=${3:-$SRC/docs/validation.md}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
(cd "$SRC" && "$VTICK" validate-suite --quiet --markdown "$T/suite.md" > "$T/suite.txt") || true  # known FAILs exit 1
summary=$(tail -1 "$T/suite.txt")  # "21 cases: 14 pass, 7 fail"
total=$(echo "$summary" | sed -n 's/^\([0-9]*\) cases: \([0-9]*\) pass.*/\1/p')
pass=$(echo "$summary" | sed -n 's/^\([0-9]*\) cases: \([0-9]*\) pass.*/\2/p')
[ -n "$total" ] && [ -n "$pass" ] || { echo "validate-suite gave no summary line: '$summary'"; exit 1; }
sed -n '/<!-- BEGIN validation-suite -->/,/<!-- END validation-suite -->/p' "$DOC" | sed '1d;$d' > "$T/doc.md"
if ! cmp -s "$T/suite.md" "$T/doc.md"; then
  echo "$DOC: the validation-suite block differs from this build's validate-suite (< build, > doc):"
  diff "$T/suite.md" "$T/doc.md" | head -20
  exit 1
fi
if ! grep -q "^\*\*$pass of $total pass\.\*\*" "$DOC"; then
  echo "$DOC: no '**$pass of $total pass.**' after the block; this build: $summary"
  exit 1
fi
echo "validation-suite block current: $summary"
