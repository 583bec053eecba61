#!/usr/bin/env bash
# The Python lint: ruff over every Python file of the project (python/ and its tests, scripts/,
# benches/, perf/, examples/, tests/; the files git ignores are left out), with the rules of
# pyproject.toml's [tool.ruff]. Fails on any finding; a finding is fixed, or kept with
# `# noqa: CODE  reason` where the code is right as written. ctest runs it as lint.ruff.
#   bash scripts/ruff_check.sh [RUFF-ARGS...]   # e.g. --statistics, or --fix to apply the safe fixes
# The ruff used: $RUFF when set, else .deps/ruff/bin/ruff (scripts/bootstrap.sh installs it there
# from PyPI), else a ruff on PATH; it must be the version pyproject.toml pins (required-version),
# since another release finds other things. Exit 77 (ctest's SKIP_RETURN_CODE for lint.ruff) with
# a line "skipped: ..." when no such ruff is found.
# `ruff format` is not checked: the tree keeps its own layout (docs/testing.md, "The Python lint").
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(sed -n 's/^required-version = "==\([0-9.]*\)".*/\1/p' pyproject.toml)
if [ -z "$want" ]; then
  echo "ruff_check: pyproject.toml pins no ruff (required-version = \"==X.Y.Z\" in [tool.ruff])" >&2
  exit 1
fi
ruff=""
for r in ${RUFF:-} .deps/ruff/bin/ruff "$(command -v ruff || true)"; do
  if [ -n "$r" ] && [ -x "$r" ] && [ "$("$r" --version 2> /dev/null)" = "ruff $want" ]; then
    ruff=$r
    break
  fi
done
if [ -z "$ruff" ]; then
  echo "ruff_check: skipped: ruff $want is not installed (bash scripts/bootstrap.sh installs it into .deps/ruff)"
  exit 77
fi
# --no-cache: nothing written into the tree
"$ruff" check --no-cache "$@" .
