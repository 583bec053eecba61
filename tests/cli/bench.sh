#!/usr/bin/env bash
# `impact bench`: a quick run over two laws (one algebraic, one integrator with two step counts)
# writes a JSON with every requested combination (positive rates, median within [min, max]) and a
# markdown table with its rows; usage errors exit 2 with a message; --backends cuda on a machine
# without a usable GPU: cuda is skipped with a message when another backend is listed, and the run
# is a usage error (exit 2, "nothing to measure") when cuda is the only backend (docs/bench.md).
set -u
source "$(dirname "$0")/common.bash"
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
quick=(--min-time 0.02 --reps 2 --warmup 1)

# 1. a quick run: JSON + markdown
"$IMPACT" bench --laws newton,stronge --steps 20,40 --backends serial,omp "${quick[@]}" \
  --json "$T/b.json" --markdown "$T/b.md" > "$T/out" 2> "$T/err"; rc=$?
check "quick run exits 0" '[ $rc -eq 0 ]'
check "progress lines on stderr" 'grep -q "impact bench: \[1/12\] newton serial double" "$T/err"'
check "table on stdout equals --markdown" 'cmp -s "$T/out" "$T/b.md"'
check "json: every combination, positive rates, median in [min, max], machine, ratios" \
  'python3 "$SRC/tests/cli/helpers/bench_json.py" "$T/b.json"'
for row in "newton | - | double" "newton | - | float" "stronge | 20 | double" "stronge | 20 | float" \
  "stronge | 40 | double" "stronge | 40 | float"; do
  check "markdown row: $row" 'grep -q "^| $row | [0-9.]* [kMG ]*±" "$T/b.md"'
done
check "markdown ratio columns" 'grep -q "^| law | steps | precision | serial | omp | omp/serial | float/double serial | float/double omp |" "$T/b.md"'
check "markdown instance-steps table" 'grep -q "^| stronge | 40 | float | omp | [0-9.]* |" "$T/b.md"'

# 2. --quiet writes nothing; --json - writes parseable JSON on stdout
"$IMPACT" bench --laws newton --backends serial --precisions float "${quick[@]}" -q > "$T/q.out" 2> "$T/q.err"; rc=$?
check "quiet exits 0 silently" '[ $rc -eq 0 ] && [ ! -s "$T/q.out" ] && [ ! -s "$T/q.err" ]'
"$IMPACT" bench --laws newton --backends serial --precisions double "${quick[@]}" --json - 2> /dev/null > "$T/j.out"; rc=$?
check "json on stdout" '[ $rc -eq 0 ] && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert len(j[\"results\"]) == 1" "$T/j.out"'

# 3. usage errors: exit 2 with a message
bad() {  # name, expected message (grep pattern), options...
  local name=$1 msg=$2
  shift 2
  "$IMPACT" bench "$@" > /dev/null 2> "$T/err"; rc=$?
  check "$name exits 2 with a message" '[ $rc -eq 2 ] && grep -q "$msg" "$T/err"'
}
bad "unknown law" "unknown law .nosuch." --laws newton,nosuch --min-time 0.02
bad "unknown backend" "unknown backend .gpu." --backends gpu
bad "unknown precision" "unknown precision .half." --precisions half
bad "zero steps" "steps must be >= 1" --laws jia --steps 0
bad "zero reps" "reps must be >= 1" --laws newton --reps 0
bad "bad min-time" "min-time must be > 0" --laws newton --min-time -1
bad "unknown scenario" "unknown scenario .pencil." --laws newton --scenario pencil

# 4. cuda: measured when a device is usable; otherwise skipped with a message next to other
#    backends, and "nothing to measure" (exit 2) when it is the only one
"$IMPACT" bench --laws newton --backends serial,cuda --precisions double "${quick[@]}" --json "$T/c.json" \
  > /dev/null 2> "$T/cerr"; rc=$?
check "serial,cuda exits 0" '[ $rc -eq 0 ]'
if python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['machine']['cuda']['usable'] else 1)" "$T/c.json"; then
  check "cuda measured" 'grep -q "\"backend\": \"cuda\"" "$T/c.json"'
  "$IMPACT" bench --laws newton --backends cuda --precisions float "${quick[@]}" -q; rc=$?
  check "cuda alone exits 0" '[ $rc -eq 0 ]'
else
  check "cuda skip message" 'grep -q "impact bench: skipping backend cuda: " "$T/cerr"'
  check "cuda skip in json" 'python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert [s[\"backend\"] for s in j[\"skipped\"]] == [\"cuda\"] and j[\"skipped\"][0][\"reason\"]; assert {r[\"backend\"] for r in j[\"results\"]} == {\"serial\"}" "$T/c.json"'
  "$IMPACT" bench --laws newton --backends cuda "${quick[@]}" > /dev/null 2> "$T/err"; rc=$?
  check "cuda alone without a device exits 2" '[ $rc -eq 2 ] && grep -q "nothing to measure: backend .cuda. is not usable: " "$T/err"'
fi

finish
