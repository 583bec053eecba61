#!/usr/bin/env bash
# Robustness of `impact study` configs, `impact compare` and the reference, on the reproducer
# inputs of tests/data/reliability/: deep nesting, numbers beyond a double and
# duplicate keys are errors at FILE:LINE:COL (no SIGSEGV, no unlocated message); integer keys are
# range-checked, not wrapped; a design's memory is estimated and refused before it is allocated and
# an imported file is read within limits (both under `ulimit -v`, in a subshell); compare never
# passes with no row compared and writes valid JSON; a reference row that cannot advance ends.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
D="$SRC/tests/data/reliability"
PY=$(bash "$SRC/scripts/find_python.sh") || exit 1

# study CONFIG [ARGS]: exit code in rc, stderr in $T/err, under a 4 GB address-space limit and 60 s
study() {
  (ulimit -v 4000000; timeout 60 "$IMPACT" study "$@") > "$T/out" 2> "$T/err"
  rc=$?
}

# 1. a JSON nested 10^5 deep (deep_json_name.json): SIGSEGV in the message's dump() before
printf '{"study": {"scenario":"ball","laws":["newton"],"name": %s%s}}' \
  "$(printf '%*s' 100000 '' | tr ' ' '[')" "$(printf '%*s' 100000 '' | tr ' ' ']')" > "$T/deep.json"
study "$T/deep.json" --dry-run
check "deep JSON exits 1, no crash" '[ $rc -eq 1 ]'
check "deep JSON located" 'grep -q "deep.json:1:118: nested deeper than 64 levels" "$T/err"'
printf '[study]\nscenario = "ball"\nlaw = "newton"\n[%s]\nx = 1\n' "$(printf 'a.%.0s' $(seq 100000))a" > "$T/deep.toml"
study "$T/deep.toml" --dry-run
check "deep TOML header exits 1, no crash" '[ $rc -eq 1 ] && grep -q "deep.toml:4:.*nested deeper than 64 levels" "$T/err"'

# 2. a number beyond a double (json_n_inf.json): located, no nlohmann message
study "$D/json_n_inf.json" --dry-run
check "1e400 exits 1" '[ $rc -eq 1 ]'
check "1e400 located" 'grep -q "json_n_inf.json:1:83: JSON number out of range: 1e400" "$T/err" && ! grep -q "json.exception" "$T/err"'

# 3. a duplicate key (json_dupkey.json): the second "study" replaced the first silently
study "$D/json_dupkey.json" --dry-run
check "duplicate key exits 1" '[ $rc -eq 1 ]'
check "duplicate key named and located" 'grep -q "json_dupkey.json:1:53: study: duplicate key (first at line 1, column 2)" "$T/err"'

# 4. run.steps = 2^31 wrapped to -2^31, 2^32 + 1 to 1 (steps_wrap.toml, steps_wrap2.toml)
study "$D/steps_wrap.toml" --dry-run
check "steps 2^31 refused" '[ $rc -eq 1 ] && grep -q "steps_wrap.toml:6:1: run.steps: expected an integer <= 10000000, got 2147483648" "$T/err"'
study "$D/steps_wrap2.toml" --out "$T/sw2" -q
check "steps 2^32+1 refused (a real run)" '[ $rc -eq 1 ] && grep -q "steps_wrap2.toml:6:1: run.steps: expected an integer <= 10000000, got 4294967297" "$T/err" && [ ! -e "$T/sw2" ]'
study "$D/lhs_huge.toml" --dry-run --set design.n=10000000001
check "design.n beyond its maximum refused" '[ $rc -eq 1 ] && grep -q "^impact study: error: --set: design.n: expected an integer <= 10000000000, got 10000000001" "$T/err"'

# 5. memory: an lhs design of 2^32 - 1 rows (lhs_huge.toml) allocated 17 GB for a dry run
SECONDS=0
study "$D/lhs_huge.toml" --dry-run
check "lhs_huge refused (no bad_alloc)" '[ $rc -eq 1 ] && grep -q "lhs_huge.toml:7:1: design.n: an lhs design of 4294967295 rows needs 16 GiB" "$T/err"'
check "lhs_huge refused at once" '[ $SECONDS -le 5 ]'
study "$D/lhs_huge.toml" --dry-run --set design.kind=mc --set run.chunk=100000000
check "chunk buffers refused" '[ $rc -eq 1 ] && grep -q "run.chunk: chunks of 100000000 rows need" "$T/err"'
study "$D/lhs_huge.toml" --dry-run --set design.kind=mc
check "the same rows in mc pass the dry run" '[ $rc -eq 0 ] && grep -q "\"n\": 4294967295" "$T/out"'

# 6. an imported /dev/zero (import_devzero.toml) grew to 16 GB; a config /dev/zero likewise
SECONDS=0
study "$D/import_devzero.toml" --dry-run
check "imported /dev/zero refused" '[ $rc -eq 1 ] && grep -q "design.file: /dev/zero:1:1: NUL byte: expected a sample matrix" "$T/err"'
check "imported /dev/zero refused at once" '[ $SECONDS -le 5 ]'
study /dev/zero --dry-run
check "config /dev/zero refused" '[ $rc -eq 1 ] && grep -q "/dev/zero: larger than 16 MiB: not a study config" "$T/err"'

# 7. compare: no row compared is no pass (exit 4); non-finite statistics are null in the report
head -n 21 "$SRC/examples/cases.csv" > "$T/cases.csv"
"$IMPACT" eval --law newton --in "$T/cases.csv" --out "$T/res.csv" -q
awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++) if($i=="status") c=i} NR>1{$c="step_limit"} {print}' "$T/res.csv" > "$T/unres.csv"
"$IMPACT" compare --law newton --in "$T/unres.csv" --given --fail-out "$T/f.csv" --report "$T/r.json" > "$T/out" 2>&1; rc=$?
check "nothing compared exits 4" '[ $rc -eq 4 ] && ! grep -q PASS "$T/out"'
check "nothing compared says why" 'grep -q "NOTHING COMPARED: none of the 20 rows was resolved by both paths (0 ok in the fast path but unresolved by the reference, 20 unresolved by the fast path, 0 by both)" "$T/out"'
strict_json() {  # file, python assertion on d
  "$PY" - "$1" "$2" <<'EOF'
import json, sys
def bad(x): raise ValueError("not JSON: " + x)
d = json.load(open(sys.argv[1]), parse_constant=bad)
assert eval(sys.argv[2]), sys.argv[2]
EOF
}
check "nothing compared report" 'strict_json "$T/r.json" "d[\"verdict\"] == \"nothing_compared\" and d[\"compared\"] == 0 and d[\"columns\"][\"P_x\"][\"max_rel\"] is None"'
head -n 1 "$T/cases.csv" > "$T/header_only.csv"
"$IMPACT" compare --law newton --in "$T/header_only.csv" --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "no rows at all exits 4" '[ $rc -eq 4 ] && grep -q "NOTHING COMPARED: none of the 0 rows" "$T/out"'
# jia_small_eta0_gain.csv: the fast path's ok rows are unresolved by the reference; it passed
"$IMPACT" compare --law jia --in "$D/jia_small_eta0_gain.csv" --backend omp --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "jia rows the reference cannot resolve do not pass" '[ $rc -eq 3 -o $rc -eq 4 ] && ! grep -q "PASS" "$T/out"'
# an infinite P_x against a finite reference: relative difference inf, written as null
awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++) if($i=="P_x") c=i} NR==5{$c="inf"} {print}' "$T/res.csv" > "$T/inf.csv"
"$IMPACT" compare --law newton --in "$T/inf.csv" --given --fail-out "$T/f.csv" --report "$T/r.json" > "$T/out" 2>&1; rc=$?
check "inf difference fails" '[ $rc -eq 3 ]'
check "inf statistics are null, the report strict JSON" 'strict_json "$T/r.json" "d[\"columns\"][\"P_x\"][\"max_rel\"] is None and d[\"verdict\"] == \"fail\" and d[\"compared\"] == 20"'
check "no inf or NaN in the report" '! grep -Eq ": *-?(inf|nan|Infinity|NaN)" "$T/r.json"'

# 8. the reference on morgan_reference_hang.csv ran > 60 s (morgan and stronge): a status now, the
#    fast path's (its W couples the plane's normal s with t: not planar for morgan, judged in the
#    instance's own units; stronge's rates overflow a double: non_finite)
for law in morgan stronge; do
  SECONDS=0
  timeout 60 "$IMPACT" eval --law $law --backend reference --in "$D/morgan_reference_hang.csv" --out "$T/o.csv" -q 2> "$T/err"; rc=$?
  check "$law reference ends" '[ $rc -eq 0 ] && [ $SECONDS -le 10 ]'
  want=non_finite
  [ $law = morgan ] && want=not_planar
  "$IMPACT" eval --law $law --backend serial --in "$D/morgan_reference_hang.csv" --out "$T/f.csv" -q
  check "$law reference row has the fast path's status ($want)" 'tail -1 "$T/o.csv" | grep -q ",$want," && tail -1 "$T/f.csv" | grep -q ",$want,"'
done

finish
