#!/usr/bin/env bash
# Installs the Debian 12 packages vtick builds with, only when one is missing.
set -euo pipefail
PKGS=(cmake make g++ pkg-config ccache git
      libsimgrid-dev libboost-graph-dev libboost-math-dev libboost-context-dev libspdlog-dev libfmt-dev catch2
      nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
      libnlopt-cxx-dev   # vtick calibrate: NLopt's derivative-free local optimisers
      python3        # scripts/check-declarations.py (a test), validation tables
      python3-jsonschema  # scripts/check-profile.py: the probe profile against its schema (a test)
      gnuplot-nox    # vtick plot
      libtracecmd-dev libtracefs-dev libtraceevent-dev  # trace.dat read back through libtracecmd (--trace-dat)
      trace-cmd      # the tests read vtick's trace.dat with trace-cmd report
      clang libclang-rt-14-dev   # scripts/fuzz.sh: libFuzzer with AddressSanitizer and UBSan (a test)
      valgrind)      # callgrind instruction counts (docs/performance.md); a test runs vtick under it
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "vtick: installing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
