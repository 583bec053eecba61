#!/usr/bin/env bash
# `impact eval` on malformed files: a clear error with file, line and column and a non-zero exit;
# physically invalid rows: a per-row status, the other rows still evaluated, never NaN in an ok row.
set -u
source "$(dirname "$0")/common.bash"
H="W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0"
GOOD="3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,0.5,0.3,1.1"

# 1. a column the law needs is missing
printf 'W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,e\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.5\n' > "$T/missing.csv"
"$IMPACT" eval --law chatterjee-ruina --in "$T/missing.csv" --out "$T/o.csv" 2> "$T/err"; rc=$?
check "missing column exits 1" '[ $rc -eq 1 ]'
check "missing column named" 'grep -q "missing.csv:1: missing column(s) mu, e_t required by law .chatterjee-ruina." "$T/err"'
# ... but newton does not read mu or e_t
"$IMPACT" eval --law newton --in "$T/missing.csv" --out "$T/o.csv" -q; rc=$?
check "newton needs no mu" '[ $rc -eq 0 ]'

# 2. a non-numeric cell: line 3, column of the field (the good row 2 was already written: the
#    partial table is removed)
rm -f "$T/o.csv"
printf '%s\n%s\n3.5,0,0,3.5,0,1,0,0,1,abc,0,-5,0.4,0.5,0.3,1.1\n' "$H" "$GOOD" > "$T/nonnum.csv"
"$IMPACT" eval --law aghili --in "$T/nonnum.csv" --out "$T/o.csv" 2> "$T/err"; rc=$?
check "non-numeric exits 1" '[ $rc -eq 1 ]'
check "non-numeric located" 'grep -q "nonnum.csv:3:23: expected a number in column .v_x., got .abc." "$T/err"'
check "no partial table left" '[ ! -e "$T/o.csv" ]'

# 3. an empty cell
printf '%s\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,,0.5,0.3,1.1\n' "$H" > "$T/empty.csv"
"$IMPACT" eval --law morgan --in "$T/empty.csv" --out "$T/o.csv" 2> "$T/err"; rc=$?
check "empty cell exits 1" '[ $rc -eq 1 ]'
check "empty cell located" 'grep -q "empty.csv:2:31: expected a number in column .mu., found an empty cell" "$T/err"'

# 4. wrong number of fields
printf '%s\n%s\n1,2,3\n' "$H" "$GOOD" > "$T/short.csv"
"$IMPACT" eval --law newton --in "$T/short.csv" --out "$T/o.csv" 2> "$T/err"; rc=$?
check "short row exits 1" '[ $rc -eq 1 ]'
check "short row located" 'grep -q "short.csv:3:6: expected 16 fields as in the header, found 3" "$T/err"'

# 5. unknown law, bad precision: usage errors, exit 2
"$IMPACT" eval --law nosuch --in "$T/short.csv" 2> "$T/err"; rc=$?
check "unknown law exits 2" '[ $rc -eq 2 ]'
check "unknown law lists laws" 'grep -q "known: newton, chatterjee-ruina, aghili, morgan, stronge, jia" "$T/err"'
"$IMPACT" eval --law newton --precision half --in "$T/short.csv" 2> /dev/null; rc=$?
check "bad precision exits 2" '[ $rc -eq 2 ]'
"$IMPACT" eval --law newton --in "$T/nope.csv" 2> "$T/err"; rc=$?
check "missing file exits 1" '[ $rc -eq 1 ] && grep -q "nope.csv: cannot open" "$T/err"'

# 6. physically invalid rows get a status; the others are evaluated; unknown columns pass through
{
  echo "id,$H,note"
  echo "good,$GOOD,\"a, quoted note\""
  echo "notspd,1,2,0,1,0,1,0,0,1,-3,0,-5,0.4,0.5,0.3,1.1,x"
  echo "receding,$(echo "$GOOD" | sed 's/-3,0,-5/-3,0,5/'),x"
  echo "grazing,$(echo "$GOOD" | sed 's/-3,0,-5/-3,0,0/'),x"
  echo "negmu,$(echo "$GOOD" | sed 's/,0.4,0.5,/,-0.1,0.5,/'),x"
  echo "bige,$(echo "$GOOD" | sed 's/,0.4,0.5,/,0.4,1.5,/'),x"
  echo "zeronormal,3.5,0,0,3.5,0,1,0,0,0,-3,0,-5,0.4,0.5,0.3,1.1,x"
  echo "nan,3.5,0,0,3.5,0,1,0,0,1,nan,0,-5,0.4,0.5,0.3,1.1,x"
  echo "good2,$GOOD,y"
} > "$T/rows.csv"
for law in newton chatterjee-ruina aghili morgan stronge jia; do
  "$IMPACT" eval --law $law --in "$T/rows.csv" --out "$T/o.csv" -q; rc=$?
  check "$law: invalid rows exit 0" '[ $rc -eq 0 ]'
  check "$law: every row written" '[ $(wc -l < "$T/o.csv") -eq 10 ]'
  st() { awk -F, -v id="$1" 'NR==1{for(i=1;i<=NF;i++) if($i=="status") c=i} $1==id{print $(c+1)}' "$T/o.csv"; }
  check "$law: good ok" '[ "$(grep "^good2," "$T/o.csv" | grep -c ",ok")" = 1 ]'
  check "$law: not spd" 'grep -q "^notspd,.*,W_not_spd" "$T/o.csv"'
  check "$law: receding" 'grep -q "^receding,.*,no_approach" "$T/o.csv"'
  check "$law: grazing" 'grep -q "^grazing,.*,no_approach" "$T/o.csv"'
  check "$law: zero normal" 'grep -q "^zeronormal,.*,bad_normal" "$T/o.csv"'
  check "$law: nan input" 'grep -q "^nan,.*,non_finite" "$T/o.csv"'
  check "$law: e > 1" 'grep -q "^bige,.*,param_out_of_range" "$T/o.csv"'
  if [ $law != newton ]; then
    check "$law: mu < 0" 'grep -q "^negmu,.*,param_out_of_range" "$T/o.csv"'
  fi
  check "$law: quoted field copied unchanged" 'grep -q "^good,.*,\"a, quoted note\"," "$T/o.csv"'
  check "$law: no nan in ok rows" '! grep ",ok" "$T/o.csv" | grep -qi "nan"'
done

# 7. the integrators write In_c, modes and steps; eta0 <= 0 is a per-row status for jia
"$IMPACT" eval --law jia --in "$T/rows.csv" --out "$T/o.csv" -q --steps 100; rc=$?
check "jia columns" 'head -1 "$T/o.csv" | grep -q ",status,In_c,modes,steps$"'
check "jia ball modes" 'grep -q "^good,.*,ok,5[.0-9]*,slip>stick>slip,[0-9]*$" "$T/o.csv"'
printf 'id,%s\nbad,3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,0.5,0.3,0\n' "$H" > "$T/eta.csv"
"$IMPACT" eval --law jia --in "$T/eta.csv" --out "$T/o.csv" -q; rc=$?
check "jia eta0 = 0 is a row status" '[ $rc -eq 0 ] && grep -q "^bad,.*,param_out_of_range" "$T/o.csv"'
"$IMPACT" eval --law jia --in "$T/rows.csv" --out "$T/o.csv" --integrator midpoint 2> "$T/err"; rc=$?
check "bad integrator exits 2" '[ $rc -eq 2 ] && grep -q "integrator must be" "$T/err"'
# options that would change nothing: refused for the reference (adaptive), said for an algebraic law
"$IMPACT" eval --law jia --in "$T/rows.csv" --out "$T/ref.csv" --backend reference --steps 3 2> "$T/err"; rc=$?
check "the reference refuses --steps" '[ $rc -eq 2 ] && grep -q "\-\-steps: the reference integrates adaptively" "$T/err" && [ ! -e "$T/ref.csv" ]'
"$IMPACT" eval --law newton --in "$T/rows.csv" --out "$T/o.csv" -q --integrator euler 2> "$T/err"; rc=$?
check "an algebraic law says --integrator changes nothing" '[ $rc -eq 0 ] && grep -q "note: --integrator changes nothing: newton is algebraic" "$T/err"'

# 8. a column that collides with an output
printf 'P_x,%s\n1,%s\n' "$H" "$GOOD" > "$T/collide.csv"
"$IMPACT" eval --law newton --in "$T/collide.csv" --out "$T/o.csv" 2> "$T/err"; rc=$?
check "collision exits 1" '[ $rc -eq 1 ] && grep -q "collide.csv:1:1: input column .P_x. collides" "$T/err"'

finish
