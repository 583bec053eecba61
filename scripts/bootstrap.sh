#!/usr/bin/env bash
# Installs what impactbatch needs on a Debian machine, if missing. Idempotent: a second run
# installs nothing. Uses sudo when not root.
#   bash scripts/bootstrap.sh         # what the build and the tests need
#   bash scripts/bootstrap.sh fuzz    # and clang with libFuzzer and OpenMP (scripts/fuzz.sh)
set -euo pipefail
PKGS=(cmake g++ make git pkg-config
      libeigen3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
      librandom123-dev libthrust-dev libboost-dev
      libtomlplusplus-dev nlohmann-json3-dev
      python3 python3-numpy python3-matplotlib
      python3-dev pybind11-dev python3-pytest python3-pandas  # the Python package (python/) and its tests
      strace)  # fault injection in tests/cli/integrity.sh (EIO on read)
if [ "${1:-}" = fuzz ]; then
  PKGS+=(clang libclang-rt-dev libomp-dev)  # clang++ -fsanitize=fuzzer,address,undefined; clang's OpenMP
fi
missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "bootstrap: all packages present" >&2
fi
