#!/usr/bin/env bash
# Byte-identity of the product's outputs across refactorings: `impact eval` on examples/cases.csv
# for every law x CPU backend (serial, omp, reference) x precision x integrator, `impact reduce`
# summaries (serial and omp, several chunkings: one hash each), and the tables of every shipped
# study (examples/studies/*.toml, omp backend, no plots), hashed with sha256.
#
#   bash scripts/golden.sh write IMPACT_BINARY [SUMS]   # record the hashes (tests/golden/SHA256SUMS)
#   bash scripts/golden.sh check IMPACT_BINARY [SUMS]   # recompute and compare; exit 1 on a difference
#   bash scripts/golden.sh files IMPACT_BINARY DIR      # only write the outputs into DIR (for diffs)
#
# No output depends on the CPU's vendor, its vector extensions or the C library's math: every
# transcendental function on the host is rmath's (include/impact/rmath.hpp: IEEE + - * / sqrt fma
# only, no x87, no libm call: normal quantiles through Boost.Math's long double, i.e. x87
# FYL2X/F2XM1 microcode, make an Intel Xeon write another design.txt than an AMD EPYC). So the
# hashes hold on every x86-64 machine: the `# machine:` line is the architecture only, and `check`
# on another architecture exits 77 (ctest: skipped) and says why. metadata.json is
# compared without its volatile keys (dates, timings, host, revision, the output folder).
# The CUDA backend is not part of it: the device contracts a*b+c into FMAs, so its results agree
# with the serial backend to rounding, not bit for bit (tests/kernels/test_backend_cuda.cpp).
set -euo pipefail
mode=${1:?usage: golden.sh write|check|files IMPACT_BINARY [SUMS|DIR]}
IMPACT=$(readlink -f "${2:?usage: golden.sh write|check|files IMPACT_BINARY [SUMS|DIR]}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUMS=${3:-$ROOT/tests/golden/SHA256SUMS}
PY=${IMPACT_PYTHON:-python3}

machine_class() { uname -m; }

produce() {  # DIR: writes every output below DIR
  local d=$1 law backend prec integ
  mkdir -p "$d/eval" "$d/study"
  for law in $("$IMPACT" laws | awk 'NF && $1 !~ /^(reads|writes)$/ && substr($0,1,1) != " " {print $1}'); do
    for backend in serial omp reference; do
      for prec in double float; do
        [ "$backend" = reference ] && [ "$prec" = float ] && continue
        for integ in rk4 euler; do
          [ "$backend" = reference ] && [ "$integ" = euler ] && continue
          # the reference is adaptive and refuses the fast path's --integrator (its file keeps the name)
          local how=(--integrator "$integ")
          [ "$backend" = reference ] && how=()
          "$IMPACT" eval --law "$law" --in "$ROOT/examples/cases.csv" --backend "$backend" --precision "$prec" \
            "${how[@]}" --out "$d/eval/$law.$backend.$prec.$integ.csv" -q
        done
      done
    done
  done
  # `impact reduce`: exact sums (include/impact/exact_sums.hpp), so serial, omp and any chunking
  # write the same summary; the hashes below are equal across those files (timings, backend and
  # chunk left out)
  mkdir -p "$d/reduce"
  local r
  for r in "chatterjee-ruina 50000 serial 0" "chatterjee-ruina 50000 omp 0" "chatterjee-ruina 50000 omp 777" \
           "jia 3000 serial 0" "jia 3000 omp 0" "jia 3000 omp 129" "stronge 3000 omp 0" "stronge 3000 serial 1000"; do
    set -- $r
    if [ "$mode" = check ] && ! grep -q "  \./reduce/$1\.$3\.$4\.json" "$SUMS"; then continue; fi
    "$IMPACT" reduce --law "$1" --n "$2" --first 12345 --seed 3 --backend "$3" --chunk "$4" --steps 60 -q \
      --out "$d/reduce/$1.$3.$4.json"
    "$PY" - "$d/reduce/$1.$3.$4.json" <<'EOF'
import json, sys
p = sys.argv[1]
m = json.load(open(p))
for k in ("backend", "chunk", "wall_seconds", "study_seconds", "instances_per_second", "cpu_seconds", "peak_rss_kb"):
    m.pop(k, None)
json.dump(m, open(p, "w"), indent=1, sort_keys=True)
EOF
  done
  local f name
  for f in "$ROOT"/examples/studies/*.toml; do
    name=$(basename "$f" .toml)
    # a check compares the studies the hashes were written from (a study shipped later has none)
    if [ "$mode" = check ] && ! grep -q "  \./study/$name/" "$SUMS"; then continue; fi
    "$IMPACT" study "$f" --backend omp --no-plots -q --out "$d/study/$name" > /dev/null
    "$PY" - "$d/study/$name/metadata.json" <<'EOF'
import json, sys
p = sys.argv[1]
m = json.load(open(p))
for k in ("date", "git_revision", "impact_version", "host", "timings"):
    m.pop(k, None)
m.get("config", {}).get("output", {}).pop("dir", None)  # where this run wrote
m.get("config", {}).get("output", {}).pop("csv_max_rows", None)  # a key added after the hashes were written
for law in m.get("summary", {}).values():
    law.pop("law_seconds", None)
    law.pop("instances_per_s", None)
json.dump(m, open(p, "w"), indent=1, sort_keys=True)
EOF
  done
}

case "$mode" in
  files)
    produce "${3:?files needs a DIR}"
    ;;
  write|check)
    if [ "$mode" = check ]; then  # before producing anything: a check on another class cannot compare
      want=$(sed -n 's/^# machine: //p' "$SUMS")
      have=$(machine_class)
      if [ "$want" != "$have" ]; then
        echo "golden: SKIPPED: the hashes were written on '$want', this machine is '$have'" \
             "(untested there); rewrite them with the old build on this architecture to compare"
        exit 77
      fi
    fi
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    produce "$T/out"
    (cd "$T/out" && find . -type f | LC_ALL=C sort | xargs sha256sum) > "$T/sums"
    if [ "$mode" = write ]; then
      mkdir -p "$(dirname "$SUMS")"
      { echo "# machine: $(machine_class)"
        echo "# written by: $("$IMPACT" --version) with scripts/golden.sh"
        cat "$T/sums"; } > "$SUMS"
      echo "golden: $(wc -l < "$T/sums") files hashed into $SUMS"
    else
      if diff <(grep -v '^#' "$SUMS") "$T/sums" > "$T/diff"; then
        echo "golden: $(wc -l < "$T/sums") files byte-identical to $SUMS"
      else
        echo "golden: FAIL: outputs differ from $SUMS:"
        grep '^[<>]' "$T/diff" | awk '{print $1, $3}' | sort -k2 | uniq
        exit 1
      fi
    fi
    ;;
  *) echo "usage: golden.sh write|check|files IMPACT_BINARY [SUMS|DIR]" >&2; exit 2 ;;
esac
