#!/usr/bin/env bash
# Throughput of every law x backend x precision through `impact reduce` (sample, evaluate, reduce on
# the fly; no I/O), as a markdown table on stdout. Usage: benches/throughput.sh [IMPACT] [SCALE]
# SCALE multiplies the instance counts (default 1: about a second per cell on 2 cores).
set -euo pipefail
IMPACT=${1:-./build/impact}
SCALE=${2:-1}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
backends="serial omp"
if "$IMPACT" reduce --law newton --n 1 --backend cuda -q > /dev/null 2>&1; then backends="$backends cuda"; fi
echo "| law | scenario | n | backend | precision | instances/s | peak RSS (MB) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for law in newton chatterjee-ruina aghili morgan stronge jia; do
  case $law in
    newton | chatterjee-ruina) n=2000000 ;;
    aghili) n=500000 ;;
    morgan) n=500000 ;;
    *) n=20000 ;;
  esac
  n=$((n * SCALE))
  # morgan is planar-only: the ball scenario with no sideways velocity or spin is planar
  scen=contact
  extra=()
  if [ $law = morgan ]; then scen=ball; extra=(--set V0y=0 --set w0x=0 --set w0z=0); fi
  for b in $backends; do
    for p in double float; do
      "$IMPACT" reduce --law $law --scenario $scen "${extra[@]}" --n $n --backend $b --precision $p -q --out "$T/r.json"
      rate=$(grep -o '"instances_per_second": [-0-9.e+]*' "$T/r.json" | awk '{print $2}')
      rss=$(grep -o '"peak_rss_kb": [0-9]*' "$T/r.json" | awk '{printf "%.1f", $2 / 1024}')
      printf "| %s | %s | %d | %s | %s | %.3g | %s |\n" $law $scen $n $b $p "$rate" "$rss"
    done
  done
done
