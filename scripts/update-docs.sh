#!/usr/bin/env bash
# Regenerates the parts of docs/ that come from the code. tests check they are current.
set -euo pipefail
cd "$(dirname "$0")/.."
VTICK=${VTICK:-build/cli/vtick}
{
  sed '/<!-- BEGIN GENERATED: vtick list params -->/q' docs/model.md
  "$VTICK" list params
  echo '<!-- END GENERATED -->'
} > docs/model.md.new
mv docs/model.md.new docs/model.md
