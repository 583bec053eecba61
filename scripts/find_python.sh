#!/usr/bin/env bash
# Prints the Python interpreter that can import every module named (e.g. numpy matplotlib), found
# the way users expect: $IMPACT_PYTHON when set (used as given; an error if it lacks a module), else
# each python3 on PATH in PATH order, then /usr/bin/python3 (where scripts/bootstrap.sh installs
# Debian's numpy and matplotlib). Exit 1 with a message naming what was tried when none can.
# The C++ side (host/io/python.cpp, the study's plots) applies the same rule.
set -u
mods=$(IFS=,; echo "$*")
probe() { "$1" -c "import ${mods:-sys}" > /dev/null 2>&1; }
if [ -n "${IMPACT_PYTHON:-}" ]; then
  if probe "$IMPACT_PYTHON"; then echo "$IMPACT_PYTHON"; exit 0; fi
  echo "find_python: IMPACT_PYTHON=$IMPACT_PYTHON cannot import ${mods:-sys}" >&2
  exit 1
fi
tried=()
for py in $(type -ap python3 2> /dev/null) /usr/bin/python3; do
  [ -x "$py" ] || continue
  case " ${tried[*]:-} " in *" $py "*) continue ;; esac
  tried+=("$py")
  if probe "$py"; then echo "$py"; exit 0; fi
done
echo "find_python: no Python that imports ${mods:-sys} (tried: ${tried[*]:-none}; set IMPACT_PYTHON)" >&2
exit 1
