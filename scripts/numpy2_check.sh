#!/usr/bin/env bash
# The Python package under NumPy 2: runs the evaluate, study, calibrate, device-argument, argument
# and same-bits tests of python/tests with a NumPy 2 from PyPI, in a virtual environment without
# the system's site-packages (Debian's NumPy 1.x and the pandas built against it stay out of it).
# python.pytest runs every test under Debian's NumPy; test_same_bits.py passing under both is the
# same bits under both.
#   bash scripts/numpy2_check.sh [PYTHON]
# PYTHON: the interpreter the extension was built for (ctest passes the build's); default
# scripts/find_python.sh's. The package and the CLI are found as python.pytest finds them
# (PYTHONPATH, IMPACT_BINARY, IMPACT_SOURCE_DIR), else build/python and build/impact.
# Exit 77 (ctest's SKIP_RETURN_CODE for python.numpy2) with a line "skipped: ..." when PyPI cannot
# be reached or pip is missing; any other failure is a failure.
#
# Writes only under .deps/numpy2 (git-ignored) and pytest's temporary folders: the environment is
# built in a temporary folder there and renamed into place when complete, so a run killed while
# installing, or two runs at once, never leave a half-installed one that a later run would use.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# Every package pinned with its dependencies and installed without resolving any (--no-deps): the
# same environment on every machine. NumPy: the newest 2.x with a cp311 manylinux wheel; pandas: a
# release built against NumPy 2 (Debian's 1.5 does not import under it), so that the tests reading
# tables as DataFrames run too.
PINS=(numpy==2.4.6 pandas==3.1.1 python-dateutil==4.0.0 tzdata==2026.6
      pytest==9.2.0 iniconfig==2.3.1 packaging==26.4 pluggy==1.7.0 Pygments==2.21.0)
NUMPY_PIN=${PINS[0]#numpy==}
TESTS=(test_evaluate.py test_study.py test_calibrate.py test_device.py test_arguments.py test_bodies.py
       test_same_bits.py)

skip() { echo "numpy2_check: skipped: $*"; exit 77; }

PY=${1:-$(bash scripts/find_python.sh numpy 2> /dev/null || echo /usr/bin/python3)}
TAG=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
ENV=.deps/numpy2/numpy-$NUMPY_PIN-$TAG
PIN_TEXT=$(printf '%s\n' "${PINS[@]}")

# the environment is reused while its record of the pins is this script's
if ! [ -f "$ENV/pins.txt" ] || [ "$(cat "$ENV/pins.txt")" != "$PIN_TEXT" ]; then
  "$PY" -m pip --version > /dev/null 2>&1 || skip "pip is not available for $PY (python3-pip)"
  mkdir -p .deps/numpy2
  TMP=$(mktemp -d .deps/numpy2/.building.XXXXXX)
  trap 'rm -rf "$TMP"' EXIT
  # --without-pip: no ensurepip needed (python3-venv); the system's pip installs into the
  # environment's site-packages with --target
  "$PY" -m venv --without-pip "$TMP/env"
  SITE=$("$TMP/env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "numpy2_check: installing ${PINS[*]} from PyPI into $ENV" >&2
  if ! "$PY" -m pip install -q --disable-pip-version-check --no-cache-dir --no-deps --only-binary=:all: \
         --timeout 20 --retries 1 --target "$SITE" "${PINS[@]}" > "$TMP/pip.log" 2>&1; then
    # pip's retries say why the index could not be read; a pin that does not exist says only
    # "No matching distribution" and fails
    why=$(grep -i -m 1 -E "connection|name resolution|network is unreachable|timed out|proxyerror|sslerror" \
            "$TMP/pip.log" | cut -c 1-240 || true)
    [ -z "$why" ] || skip "PyPI cannot be reached ($why)"
    cat "$TMP/pip.log" >&2
    echo "numpy2_check: pip failed installing ${PINS[*]}" >&2
    exit 1
  fi
  printf '%s\n' "$PIN_TEXT" > "$TMP/env/pins.txt"
  # into place, unless a run at the same time put one of the same pins there first
  if ! [ -f "$ENV/pins.txt" ] || [ "$(cat "$ENV/pins.txt")" != "$PIN_TEXT" ]; then
    rm -rf "$ENV"
    mv -T "$TMP/env" "$ENV"
  fi
  rm -rf "$TMP"
  trap - EXIT
fi

export PYTHONPATH=${PYTHONPATH:-$ROOT/build/python}
export IMPACT_BINARY=${IMPACT_BINARY:-$ROOT/build/impact}
export IMPACT_SOURCE_DIR=${IMPACT_SOURCE_DIR:-$ROOT}
export PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1  # nothing from ~/.local; no __pycache__ in the tree
VPY=$ROOT/$ENV/bin/python
versions=$("$VPY" -c 'import numpy, pandas; print(f"NumPy {numpy.__version__}, pandas {pandas.__version__}")')
# NumPy from the environment, not the system's; the package from PYTHONPATH (the build's)
"$VPY" -c 'import numpy; assert numpy.__version__.startswith("2."), numpy.__file__' \
  || { echo "numpy2_check: the environment $ENV does not hold NumPy 2" >&2; exit 1; }
pkg=$("$VPY" -c 'import importlib.util as u, os; s = u.find_spec("impactbatch"); print(os.path.dirname(s.origin) if s else "")')
[ -n "$pkg" ] || { echo "numpy2_check: impactbatch is not on PYTHONPATH=$PYTHONPATH (build it first)" >&2; exit 1; }
echo "numpy2_check: $versions, the package in $pkg"
# pybind11 before 2.12 does not know NumPy 2's dtype struct, and array arguments then give wrong
# rows; its modules name numpy.core.multiarray only, later ones numpy._core too: say so before
# the tests fail
so=$(ls "$pkg"/_core*.so 2> /dev/null | head -n 1)
if [ -n "$so" ] && ! grep -a -q 'numpy\._core' "$so"; then
  echo "numpy2_check: $so was built with pybind11 older than 2.12 (Debian 12's 2.10), which reads" \
       "NumPy 2's arrays wrongly: rebuild it with pybind11 2.12 or later (python/CMakeLists.txt)" >&2
fi
log=$(mktemp .deps/numpy2/.pytest.XXXXXX)
trap 'rm -f "$log"' EXIT
set +e
"$VPY" -m pytest -q -rs -p no:cacheprovider "${TESTS[@]/#/$ROOT/python/tests/}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo "numpy2_check: under $versions: $(tail -n 1 "$log" | sed 's/=//g; s/^ *//; s/ *$//')"
exit "$rc"
