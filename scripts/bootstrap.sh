#!/usr/bin/env bash
# Installs what impactbatch needs on a Debian machine, if missing. Idempotent: a second run
# installs nothing. Uses sudo when not root.
#   bash scripts/bootstrap.sh         # what the build and the tests need
#   bash scripts/bootstrap.sh fuzz    # and clang with libFuzzer and OpenMP (scripts/fuzz.sh)
set -euo pipefail
PKGS=(cmake g++ make git pkg-config
      libeigen3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
      librandom123-dev libthrust-dev libboost-dev
      libtomlplusplus-dev nlohmann-json3-dev zlib1g-dev
      python3 python3-numpy python3-matplotlib
      python3-mpmath  # scripts/gen_rmath_tables.py, checked by cli.rmath_tables
      python3-dev pybind11-dev libdlpack-dev python3-pytest python3-pandas  # the Python package (python/), its tests
      python3-scipy python3-multiprocess python3-pip  # SALib's dependencies (the Sobol example, below)
      python3-emcee  # examples/calibration/emcee_compare.py and its test (python/tests/test_calibrate.py)
      python3-xarray python3-h5netcdf python3-typing-extensions  # ArviZ's dependencies (below)
      libnlopt-cxx-dev  # impact calibrate's fit method (host/infer/fit.hpp)
      openmpi-bin libopenmpi-dev  # runs over several processes (host/dist, docs/distributed.md)
      clang-tidy  # the lint, ctest lint.clang_tidy (scripts/clang_tidy.sh, .clang-tidy)
      clang-format  # the C++ layout, ctest lint.format (scripts/format_check.sh, .clang-format)
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

# Python modules Debian does not package, from PyPI without their dependencies (Debian's, above),
# into .deps/python of the checkout (ignored by git); without a network the tests that need them
# skip and say why. pypi_dep MODULE PACKAGE VERSION WHAT-SKIPS
cd "$(dirname "$0")/.."
PY=$(bash scripts/find_python.sh numpy scipy 2> /dev/null || echo /usr/bin/python3)
pypi_dep() {
  if ! "$PY" -c "import $1" 2> /dev/null && ! [ -f ".deps/python/$1/__init__.py" ]; then
    if "$PY" -m pip install -q --disable-pip-version-check --no-deps --target .deps/python "$2==$3" \
         > .deps-pip.log 2>&1; then
      echo "bootstrap: $2 $3 in .deps/python" >&2
    else
      echo "bootstrap: $2 not installed ($(tail -n 1 .deps-pip.log)); $4 will skip" >&2
    fi
    rm -f .deps-pip.log
  fi
}
# SALib (examples/python/sobol_ball.py and its test): the version that runs on Debian's NumPy and
# pandas (1.5 and later want NumPy 2)
pypi_dep SALib SALib 1.4.7 "the SALib example's test"
# dynesty (nested sampling: the cross-check of SMC's evidence, python/tests/test_calibration_validity.py):
# pure Python on NumPy, SciPy and matplotlib
pypi_dep dynesty dynesty 3.1.0 "the evidence cross-check"
# ArviZ (CalibrationResult.to_inference_data, python/tests/test_arviz.py): 0.17.1 wants NumPy < 2 and
# runs on Debian's xarray, h5netcdf, pandas, SciPy and matplotlib; xarray-einstats first (arviz imports
# it), 0.7.0 the release of its time, which takes Debian's xarray 2023.01
pypi_dep xarray_einstats xarray-einstats 0.7.0 "the ArviZ tests"
pypi_dep arviz arviz 0.17.1 "the ArviZ tests"
# pybind11 2.12 or later for the extension impactbatch._core (python/CMakeLists.txt looks in
# .deps/python first): Debian 12's 2.10 reads NumPy 2's arrays wrongly; headers and CMake files only
pypi_dep pybind11 pybind11 2.13.6 "python.numpy2"
# ruff (the Python lint, ctest lint.ruff: scripts/ruff_check.sh), the version pyproject.toml pins
# (required-version): a static binary from its wheel, no compiler, into .deps/ruff
RUFF_PIN=$(sed -n 's/^required-version = "==\([0-9.]*\)".*/\1/p' pyproject.toml)
if [ -n "$RUFF_PIN" ] && [ "$(.deps/ruff/bin/ruff --version 2> /dev/null)" != "ruff $RUFF_PIN" ]; then
  rm -rf .deps/ruff
  if "$PY" -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: --target .deps/ruff \
       "ruff==$RUFF_PIN" > .deps-pip.log 2>&1; then
    echo "bootstrap: ruff $RUFF_PIN in .deps/ruff" >&2
  else
    echo "bootstrap: ruff not installed ($(tail -n 1 .deps-pip.log)); lint.ruff will skip" >&2
  fi
  rm -f .deps-pip.log
fi
