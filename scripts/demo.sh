#!/usr/bin/env bash
# make demo: the default scenario under legacy and got_tick, side by side.
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/.."
exec "$BUILD/cli/vtick" compare scenarios/default.toml --policies legacy,got_tick --seeds 3
