#!/usr/bin/env bash
# `impact compare`: the fast path against the CPU reference. It passes on correct results, and it
# fails (exit 3, the row listed) when a wrong result is planted into a result table.
set -u
SRC=$2
source "$(dirname "$0")/common.bash"
head -n 301 "$SRC/examples/cases.csv" > "$T/cases.csv"  # header + 300 rows

# 1. fast path vs reference on correct results: exit 0, a table with every column
"$IMPACT" compare --law chatterjee-ruina --in "$T/cases.csv" --backend omp --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "CR compare passes" '[ $rc -eq 0 ]'
check "CR table has P_x and kappa" 'grep -q "^  P_x " "$T/out" && grep -q "^  kappa " "$T/out"'
check "CR PASS line" 'grep -q "PASS: every row within tolerance 1e-05" "$T/out"'
check "no failure file on PASS" '[ ! -e "$T/f.csv" ]'

# 2. results given in a table written by `impact eval`
"$IMPACT" eval --law chatterjee-ruina --in "$T/cases.csv" --out "$T/res.csv" -q
"$IMPACT" compare --law chatterjee-ruina --in "$T/res.csv" --given --steps 3 > "$T/out" 2>&1; rc=$?
check "--given refuses the fast path's options (no fast path runs)" '[ $rc -eq 2 ] && grep -q "\-\-steps: with --given the results are the file" "$T/out"'
"$IMPACT" compare --law chatterjee-ruina --in "$T/res.csv" --given --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "given correct results pass" '[ $rc -eq 0 ] && grep -q "results given in the file" "$T/out"'

# 3. a planted wrong result: P_x of data row 17 (file line 18) off by 1e-3 relative
awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++) if($i=="P_x") c=i} NR==18{$c=$c*1.001} {print}' "$T/res.csv" > "$T/bad.csv"
"$IMPACT" compare --law chatterjee-ruina --in "$T/bad.csv" --given --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "planted wrong P_x exits 3" '[ $rc -eq 3 ]'
check "FAIL line names the count" 'grep -q "FAIL: 1 rows beyond tolerance" "$T/out"'
check "failure file lists line 18, column P_x" 'grep -q "^18,beyond tolerance,P_x," "$T/f.csv"'
check "failure file has exactly one row" '[ $(wc -l < "$T/f.csv") -eq 2 ]'

# 4. a planted wrong status
awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++) if($i=="status") c=i} NR==30{$c="no_approach"} {print}' "$T/res.csv" > "$T/bad2.csv"
"$IMPACT" compare --law chatterjee-ruina --in "$T/bad2.csv" --given --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "planted wrong status exits 3" '[ $rc -eq 3 ] && grep -q "^30,status differs" "$T/f.csv"'
check "a status that differs is said as such, without a relative difference" 'grep -q "FAIL: 1 rows: status differs; listed in" "$T/out" && ! grep -q "beyond tolerance" "$T/out"'
awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++) if($i=="status") c=i} NR==30{$c="no_approach"} {print}' "$T/bad.csv" > "$T/bad3.csv"
"$IMPACT" compare --law chatterjee-ruina --in "$T/bad3.csv" --given --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "both kinds counted apart" '[ $rc -eq 3 ] && grep -q "FAIL: 1 rows beyond tolerance 1e-05 (worst relative difference .*), 1 rows: status differs; listed in" "$T/out"'

# 5. the integrators: jia on a random subset passes at 250 steps; 8 steps cannot meet 1e-9
"$IMPACT" compare --law jia --in "$T/cases.csv" --sample 40 --seed 3 --fail-out "$T/f.csv" --report "$T/r.json" > "$T/out" 2>&1; rc=$?
check "jia subset passes" '[ $rc -eq 0 ] && grep -q "40 rows of .* (random subset)" "$T/out"'
check "jia report is JSON with columns" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"rows\"]==40 and \"In_c\" in d[\"columns\"]" "$T/r.json"'
"$IMPACT" compare --law stronge --in "$T/cases.csv" --sample 40 --steps 8 --tol 1e-9 --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "stronge at 8 steps fails a 1e-9 tolerance" '[ $rc -eq 3 ] && [ $(wc -l < "$T/f.csv") -gt 1 ]'

# 5b. a spot-check of a sampled study (the instances `impact reduce` evaluates), 10^8 instances
"$IMPACT" compare --law stronge --scenario contact --n 100000000 --study-seed 7 --sample 30 --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "study subset passes" '[ $rc -eq 0 ] && grep -q "30 rows of study contact (n 100000000, seed 7) (random subset)" "$T/out"'
"$IMPACT" compare --law jia --scenario ball --n 1000 --set mu=uniform:0:1 --sample 20 --steps 6 --tol 1e-12 --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "study failures list sample ids" '[ $rc -eq 3 ] && head -1 "$T/f.csv" | grep -q "^sample_id,reason" && [ $(wc -l < "$T/f.csv") -gt 1 ]'
"$IMPACT" compare --law jia --scenario ball --set bogus=1 > "$T/out" 2>&1; rc=$?
check "unknown study key is a usage error naming it" '[ $rc -eq 2 ] && grep -q "bogus" "$T/out"'

# 6. float fast path against the double reference, default float tolerance
"$IMPACT" compare --law newton --in "$T/cases.csv" --precision float --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
check "float passes its default tolerance" '[ $rc -eq 0 ] && grep -q "tolerance 0.01" "$T/out"'

# 7. usage and input errors
"$IMPACT" compare --law jia --in "$T/cases.csv" --backend reference > "$T/out" 2>&1; rc=$?
check "reference as fast path is a usage error" '[ $rc -eq 2 ] && grep -q "unknown backend .reference." "$T/out"'
"$IMPACT" compare --law jia --in "$T/cases.csv" --given > "$T/out" 2>&1; rc=$?
check "--given without results is an input error" '[ $rc -eq 1 ] && grep -q "cases.csv:1: missing result column(s) P_x" "$T/out"'
# --tol: a finite number >= 0 (NaN compares false against every difference: it would pass every row)
for tol in nan -nan inf -1 -1e-9; do
  "$IMPACT" compare --law newton --in "$T/cases.csv" --tol "$tol" --fail-out "$T/f.csv" > "$T/out" 2>&1; rc=$?
  check "--tol $tol is a usage error" '[ $rc -eq 2 ] && grep -q "tol must be a finite number >= 0" "$T/out" && [ ! -e "$T/f.csv" ]'
done
"$IMPACT" compare --law newton --in "$T/cases.csv" --tol 0 > "$T/out" 2>&1; rc=$?
check "--tol 0 is the default" '[ $rc -eq 0 ] && grep -q "PASS: every row within tolerance 1e-05" "$T/out"'

# 8. stronge at mu = 1e10 ... 1e100 (tests/data/physics_repro/stronge_huge_mu.csv): the law and the
# reference both reach the stick limit on every row, and every row is ok in both (a law and a
# reference that both stuck with v_t != 0 from mu = 1e14 on would gain 33% of K0 and still agree:
# agreement alone is no proof)
"$IMPACT" compare --law stronge --in "$SRC/tests/data/physics_repro/stronge_huge_mu.csv" > "$T/out" 2>&1; rc=$?
check "stronge huge mu: 14 rows ok in both, PASS" '[ $rc -eq 0 ] && grep -q "rows: 14 ok in both, 0 status differs" "$T/out"'

finish
