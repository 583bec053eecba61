#!/usr/bin/env bash
# The architecture of the tree (docs/architecture.md): no file includes a header of a layer above
# its own, CLI11 only in the command layer, no Eigen in device code, no function in host/ over 150
# lines (scripts/check_layout.py).
set -u
SRC=$2
source "$(dirname "$0")/common.bash"
PY=${IMPACT_PYTHON:-python3}
"$PY" "$SRC/scripts/check_layout.py" "$SRC" --report > "$T/out" 2>&1; rc=$?
cat "$T/out"
check "layers, dependencies and function sizes" '[ $rc -eq 0 ]'
# the checker itself: an upward include and a long function are caught
mkdir -p "$T/tree/host/io" "$T/tree/host/engine" "$T/tree/include/impact" "$T/tree/kernels"
printf '#include "engine/registry.hpp"\n' > "$T/tree/host/io/bad.hpp"
{ echo 'int f() {'; for i in $(seq 1 160); do echo "  int a$i = $i;"; done; echo '  return 0;'; echo '}'; } > "$T/tree/host/engine/long.cpp"
"$PY" "$SRC/scripts/check_layout.py" "$T/tree" > "$T/out2" 2>&1; rc=$?
check "an upward include is a violation" '[ $rc -eq 1 ] && grep -q "io layer includes engine/registry.hpp" "$T/out2"'
check "a 163-line function is a violation" 'grep -q "function f is 163 lines" "$T/out2"'
finish
