#!/usr/bin/env bash
# Runs every shipped example study (examples/studies/*.toml): Jia's Figures 14(a), 14(b), 15(a),
# 15(b), 15(c) as sweeps, the pencil Monte Carlo and the Sobol study of the ball. Results and
# plots go to out/<study name>/. Extra arguments go to each `impact study` call.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh > /dev/null
for f in examples/studies/*.toml; do
  echo "== $f"
  ./build/impact study "$f" "$@"
  echo
done
