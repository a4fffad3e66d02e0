#!/bin/sh
# The fuzz targets of fuzz/ (libFuzzer, clang, with AddressSanitizer and UBSan), each run
# for SECONDS on a seed corpus made of the shipped scenarios, sweeps, profiles and explain
# targets. A crash,
# a hang (1 s for a parser input, 10 s for an explain target, which loads its scenarios,
# 30 s for a 1 ms run), an exception other than InputError
# or a sanitizer report fails the run (exit 1) and leaves the input in BUILD/crashes/.
# usage: scripts/fuzz.sh [SECONDS] [BUILD]      (from the project's root; default 60, build-fuzz)
# FUZZ_SEED=N fixes libFuzzer's seed (make test uses 1: the same mutations each run, up to
# how many fit in the time); unset, each run explores anew. FUZZ_HANG_SCALE=K multiplies
# the hang limits (make test uses 5: an ASan allocator page-faulting for a second on a
# machine busy with other builds is not a hang of vtick; run alone, the limits hold).
set -eu
SECS=${1:-60}
B=${2:-build-fuzz}
ROOT=$(pwd)
CC=clang CXX=clang++ cmake -S . -B "$B" -DVTICK_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
TARGETS="fuzz_scenario fuzz_set fuzz_duration fuzz_sweep fuzz_profile fuzz_target fuzz_run fuzz_bands"
# shellcheck disable=SC2086
cmake --build "$B" -j"$(nproc)" --target $TARGETS >/dev/null
# A link cut short (a killed build) leaves a binary newer than its inputs that make takes
# as built: each target must start; one that does not is removed and linked again.
for t in $TARGETS; do
  if ! "$B/fuzz/$t" -help=1 >/dev/null 2>&1; then
    echo "fuzz.sh: $B/fuzz/$t does not start (a cut link?): linking it again" >&2
    rm -f "$B/fuzz/$t"
    cmake --build "$B" -j"$(nproc)" --target "$t" >/dev/null
    "$B/fuzz/$t" -help=1 >/dev/null 2>&1 || { echo "fuzz.sh: $B/fuzz/$t still does not start" >&2; exit 2; }
  fi
done
mkdir -p "$B/crashes"
seed() {  # seed TARGET FILE...: the corpus directory of TARGET with copies of FILE...
  d="$B/corpus/$1"; shift
  mkdir -p "$d"
  for f in "$@"; do
    # a sweep's scenario path is relative to its own directory: made absolute in the copy
    sed "s|^scenario = \"\\.\\./\\.\\./scenarios/|scenario = \"$ROOT/scenarios/|; s|^scenario = \"\\.\\./scenarios/|scenario = \"$ROOT/scenarios/|; s|^scenario = \"\\.\\./oci/|scenario = \"$ROOT/scenarios/oci/|" \
      "$f" > "$d/$(echo "$f" | tr / _)"
  done
}
seed scenario scenarios/*.toml scenarios/*/*.toml bench/scenarios/*.toml
seed run scenarios/*.toml scenarios/oci/*.toml
seed sweep scenarios/sweeps/*.toml bench/sweeps/*.toml
seed profile docs/probe/*profile*.json
seed target scenarios/targets/*.toml tests/data/explain-mini.toml
seed bands validation/trace/bands.toml tests/data/real-trace/bands-planted.toml
mkdir -p "$B/corpus/set" "$B/corpus/duration"
printf 'guest.hz=250\nrun.duration=1s\n' > "$B/corpus/set/a"
printf 'platform.shape=VM.Standard.A1.Flex.2\nguest.cmdline=nohz_full=1\nworkload.kind=oltp\n' > "$B/corpus/set/b"
for d in 10us 1.5ms 0ns 3600s 250ns; do printf '%s' "$d" > "$B/corpus/duration/$d"; done
fail=0
for t in scenario set duration sweep profile target run bands; do
  to=1
  [ "$t" = run ] && to=30
  [ "$t" = target ] && to=10  # loads each [[run]]'s scenario and checks each factor's ends on it
  to=$((to * ${FUZZ_HANG_SCALE:-1}))
  echo "== fuzz_$t: ${SECS} s" >&2
  if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$B/fuzz/fuzz_$t" -max_total_time="$SECS" -timeout="$to" -rss_limit_mb=4096 -print_final_stats=1 -seed="${FUZZ_SEED:-0}" \
       -artifact_prefix="$B/crashes/$t-" "$B/corpus/$t" 2> "$B/fuzz_$t.log"; then
    echo "fuzz_$t FAILED: $(ls "$B/crashes" | grep "^$t-" | head -3) (log: $B/fuzz_$t.log)" >&2
    tail -30 "$B/fuzz_$t.log" >&2
    fail=1
  else
    grep -E "stat::number_of_executed_units" "$B/fuzz_$t.log" | sed "s/^/fuzz_$t: /" >&2 || true
  fi
done
exit $fail
