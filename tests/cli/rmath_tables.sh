#!/usr/bin/env bash
# The constants of the reproducible math (include/impact/impl/rmath_tables.hpp: Mills' ratio and
# normal-CDF fits, atan breakpoints, the bits of 2/pi) are what scripts/gen_rmath_tables.py computes
# with mpmath: regenerated here and compared byte for byte. Skips (77) without mpmath.
set -u
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh" mpmath 2> /dev/null) || { echo "rmath_tables: SKIPPED: no Python imports mpmath (Debian: python3-mpmath)"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$PY" "$SRC/scripts/gen_rmath_tables.py" > "$out" || { echo "FAIL: the generator failed"; exit 1; }
if cmp -s "$out" "$SRC/include/impact/impl/rmath_tables.hpp"; then
  echo "1 passed, 0 failed (rmath_tables.hpp is the generator's output)"
else
  diff "$out" "$SRC/include/impact/impl/rmath_tables.hpp" | head -20
  echo "FAIL: include/impact/impl/rmath_tables.hpp differs from scripts/gen_rmath_tables.py's output"
  exit 1
fi
