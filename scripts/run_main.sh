#!/usr/bin/env bash
# The main job: installs what is missing, builds, and evaluates the shipped example instances
# (examples/cases.csv) with every impact law, printing a summary per law. Results go to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh > /dev/null
mkdir -p out
for law in $(./build/impact laws | awk '/^[a-z]/ && !/^ / {print $1}'); do
  ./build/impact eval --law "$law" --in examples/cases.csv --out "out/cases_${law}.csv" --backend auto
  echo
done
echo "Tables: $(ls out/cases_*.csv | tr '\n' ' ')"
