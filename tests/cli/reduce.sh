#!/usr/bin/env bash
# `impact reduce`: a study runs with defaults and writes its JSON; usage errors name the key and
# exit 2; the sampled instances written with --cases-out evaluate with `impact eval` to the same
# statuses and extremes; shards ([first, first + n)) add up to the whole; the contact scenario takes
# the study's keys and gives the study's instance.
set -u
source "$(dirname "$0")/common.bash"
# json KEY FILE: the number after "KEY": (first occurrence)
json() { grep -o "\"$1\": [-0-9.e+]*" "$2" | head -1 | awk '{print $2}'; }
okcount() { grep -o '"status": {"ok": [0-9]*' "$1" | awk '{print $NF}'; }

# 1. defaults just work; table on stdout, JSON with the run's metadata
"$IMPACT" reduce --law chatterjee-ruina --n 20000 --backend omp --out "$T/s.json" > "$T/table" 2> "$T/err"; rc=$?
check "defaults exit 0" '[ $rc -eq 0 ]'
check "table has status line" 'grep -q "status:  ok" "$T/table"'
check "table has quantities" 'grep -q "^  Pn .*normal impulse" "$T/table" && grep -q "^  dE_K0" "$T/table"'
check "json n" '[ "$(json n "$T/s.json")" = 20000 ]'
check "json metadata" 'grep -q "\"law\": \"chatterjee-ruina\"" "$T/s.json" && grep -q "\"backend\": \"omp\"" "$T/s.json" && grep -q "\"peak_rss_kb\": [1-9]" "$T/s.json" && grep -q "\"instances_per_second\": [1-9]" "$T/s.json"'
check "json statuses sum to n" '[ "$(grep -o "\"status\": {[^}]*}" "$T/s.json" | grep -o ": [0-9]*" | awk "{s+=\$2} END{print s}")" = 20000 ]'
check "json study" 'grep -q "\"mu\": \"uniform:0:1\"" "$T/s.json" && grep -q "\"rotation\": \"random\"" "$T/s.json"'

# 2. usage errors: exit 2, the key named
"$IMPACT" reduce --law chatterjee-ruina --n 10 --set foo=1 2> "$T/err"; rc=$?
check "unknown key exits 2" '[ $rc -eq 2 ] && grep -q "unknown key .foo. for scenario contact" "$T/err"'
"$IMPACT" reduce --law chatterjee-ruina --n 10 --set mu=uniform:0 2> "$T/err"; rc=$?
check "malformed dist exits 2" '[ $rc -eq 2 ] && grep -q "mu=uniform:0: .uniform. takes 2 numbers (uniform:LO:HI)" "$T/err"'
"$IMPACT" reduce --law chatterjee-ruina --n 10 --set vn=lognormal:0:abc 2> "$T/err"; rc=$?
check "non-numeric parameter exits 2" '[ $rc -eq 2 ] && grep -q "vn=lognormal:0:abc: SIGMA .abc. is not a number" "$T/err"'
"$IMPACT" reduce --law nosuch --n 10 2> "$T/err"; rc=$?
check "unknown law exits 2" '[ $rc -eq 2 ] && grep -q "unknown law .nosuch." "$T/err"'
"$IMPACT" reduce --law jia --scenario pencil --n 10 2> "$T/err"; rc=$?
check "unknown scenario exits 2" '[ $rc -eq 2 ] && grep -q "unknown scenario .pencil." "$T/err"'
"$IMPACT" reduce --law jia --scenario ball --set w1=1 --n 10 2> "$T/err"; rc=$?
check "contact key on ball exits 2" '[ $rc -eq 2 ] && grep -q "unknown key .w1. for scenario ball" "$T/err"'
"$IMPACT" reduce --law jia --n 10 --range Pn=3:1 2> "$T/err"; rc=$?
check "bad range exits 2" '[ $rc -eq 2 ] && grep -q "range Pn=3:1" "$T/err"'
"$IMPACT" reduce --law jia --n 10 --set rx=1 --set rotation=identity 2> "$T/err"; rc=$?
check "a rotation vector beside rotation=identity exits 2 (either would drop the other)" '[ $rc -eq 2 ] && grep -q "set rotation=identity and --set rx=1: rx, ry, rz give a rotation by their vector" "$T/err"'
"$IMPACT" reduce --law newton --n 10 --steps 3 --backend serial -q 2> "$T/err"; rc=$?
check "--steps for an algebraic law: taken, with a note" '[ $rc -eq 0 ] && grep -q "impact reduce: note: --steps changes nothing: newton is algebraic" "$T/err"'
"$IMPACT" reduce --law jia --n 10 --backend reference 2> "$T/err"; rc=$?
check "reference backend exits 2" '[ $rc -eq 2 ]'
"$IMPACT" reduce --law jia --n 10 --backend cuda -q 2> "$T/err"; rc=$?
check "cuda backend runs or says why not" '[ $rc -eq 0 ] || { [ $rc -eq 2 ] && grep -q "backend .cuda. is not usable" "$T/err"; }'

# 3. the sampled instances through `impact eval`: the same statuses and the same extremes
"$IMPACT" reduce --law jia --scenario ball --steps 100 --n 600 --first 1000 --seed 9 --backend serial \
  --set mu=uniform:0.05:1 --cases-out "$T/cases.csv" --out "$T/b.json" -q; rc=$?
check "ball study exit 0" '[ $rc -eq 0 ]'
check "cases header" 'head -1 "$T/cases.csv" | grep -q "^index,W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0$"'
check "cases rows" '[ $(wc -l < "$T/cases.csv") -eq 601 ] && sed -n 2p "$T/cases.csv" | grep -q "^1000,"'
"$IMPACT" eval --law jia --steps 100 --backend serial --in "$T/cases.csv" --out "$T/r.csv" -q; rc=$?
check "eval of cases exit 0" '[ $rc -eq 0 ]'
ok_eval=$(grep -c ",ok," "$T/r.csv")
check "ok rows agree" '[ "$ok_eval" = "$(okcount "$T/b.json")" ]'
# Pn = P_z for n = (0, 0, 1): the min and max agree exactly
pz=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="P_z") c=i} NR>1 && $(c)!=""{print $(c)}' "$T/r.csv" | sort -g)
check "min Pn agrees" 'awk -v a="$(echo "$pz" | head -1)" -v b="$(grep -o "\"Pn\": {[^}]*" "$T/b.json" | grep -o "\"min\": [-0-9.e+]*" | awk "{print \$2}")" "BEGIN{exit !(a+0 == b+0)}"'
check "max Pn agrees" 'awk -v a="$(echo "$pz" | tail -1)" -v b="$(grep -o "\"Pn\": {[^}]*" "$T/b.json" | grep -o "\"max\": [-0-9.e+]*" | awk "{print \$2}")" "BEGIN{exit !(a+0 == b+0)}"'

# 4. shards add up; fixed ranges show in the JSON
for part in "0 3000" "0 1000" "1000 2000"; do
  set -- $part
  "$IMPACT" reduce --law aghili --n $2 --first $1 --backend omp --range Pn=0:10 --out "$T/p_$1_$2.json" -q
done
check "range in json" 'grep -q "\"histogram\": {\"lo\": 0, \"hi\": 10," "$T/p_0_3000.json"'
check "shards add up" '[ $(( $(okcount "$T/p_0_1000.json") + $(okcount "$T/p_1000_2000.json") )) -eq $(okcount "$T/p_0_3000.json") ]'

# 4b. --range moves the histogram only: the moments are summed on the data's scale, so a range far
#     wider (1e20: on its own scale's grid every value rounded to 0, mean and sd 0) or narrower than
#     the data gives the moments' bits of the default range; a width that overflows is refused
moments() { python3 -c 'import json, sys; q = json.load(open(sys.argv[1]))["quantities"]["Pn"]; print(*(float(q[k]).hex() for k in ("mean", "sd", "min", "max")), q["count"])' "$1"; }
for r in "" Pn=0:1e20 Pn=0:3 Pn=-1e300:1e300; do
  "$IMPACT" reduce --law jia --n 2000 --backend serial -q --out "$T/r_${r:-none}.json" ${r:+--range $r}
done
check "--range: the moments of the default range, bit for bit" '[ "$(moments "$T/r_none.json")" = "$(moments "$T/r_Pn=0:1e20.json")" ] && [ "$(moments "$T/r_none.json")" = "$(moments "$T/r_Pn=0:3.json")" ] && [ "$(moments "$T/r_none.json")" = "$(moments "$T/r_Pn=-1e300:1e300.json")" ] && grep -q "\"hi\": 1e+20," "$T/r_Pn=0:1e20.json"'
check "--range 1e20: the values in its histogram, not at its edge" 'python3 -c "import json, sys; h = json.load(open(sys.argv[1]))[\"quantities\"][\"Pn\"][\"histogram\"]; assert h[\"counts\"][0] == sum(h[\"counts\"]) > 1900 and h[\"below\"] == 0" "$T/r_Pn=0:1e20.json"'
"$IMPACT" reduce --law jia --n 10 --range Pn=-1e308:1e308 2> "$T/err"; rc=$?
check "a range whose width overflows exits 2" '[ $rc -eq 2 ] && grep -q "Pn=-1e308:1e308: the width HI - LO overflows" "$T/err"'

# 5. a heavy tail beyond the pilot's range (vn lognormal, sigma 8: values 1e6 and more times the
#    histogram range's scale): summed on the exact sums' wide tier, so the mean and sd are numbers,
#    nothing is left out, and serial and omp write the same bits
for b in serial omp; do
  "$IMPACT" reduce --law newton --set vn=lognormal:0:8 --n 2000000 --backend $b -q --out "$T/tail_$b.json"; rc=$?
  check "heavy tail on $b exits 0" '[ $rc -eq 0 ]'
done
check "heavy tail: every value summed, mean and sd numbers" 'python3 - "$T/tail_omp.json" << "PY"
import json, sys
q = json.load(open(sys.argv[1]))["quantities"]
for k in ("Pn", "vfn"):
    assert q[k]["not_summed"] == 0 and q[k]["mean"] is not None and q[k]["sd"] is not None, q[k]
    assert q[k]["max"] > 2 ** 24 * max(abs(q[k]["histogram"]["lo"]), abs(q[k]["histogram"]["hi"])), q[k]
    assert q[k]["max"] / q[k]["count"] <= q[k]["mean"] <= q[k]["max"], q[k]
PY'
check "heavy tail: serial and omp the same bits" 'python3 - "$T/tail_serial.json" "$T/tail_omp.json" << "PY"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["quantities"] == b["quantities"] and a["status"] == b["status"]
PY'


# one statement of each scenario: `impact reduce` takes the study's contact parameters
# rx, ry, rz, and the same values give the same impulse in `impact reduce` and `impact study`
sets="w1=1.3 w2=0.7 w3=2.1 rx=0.3 ry=-0.2 rz=1.1 vn=1.2 vt=0.8 phi=0.4 mu=0.3 e=0.6 e_t=0.2 eta0=1.5"
args=(); for s in $sets; do args+=(--set "$s"); done
"$IMPACT" reduce --law chatterjee-ruina --scenario contact --n 1 --backend serial "${args[@]}" \
  --out "$T/rv.json" --cases-out "$T/rv.csv" > /dev/null 2> "$T/err"; rc=$?
check "reduce takes rx ry rz (rotation=vector)" \
  '[ $rc -eq 0 ] && grep -q "\"rotation\": \"vector\", \"rx\": \"fixed:0.3\", \"ry\": \"fixed:-0.2\", \"rz\": \"fixed:1.1\"" "$T/rv.json"'
check "and W is rotated" '[ "$(sed -n 2p "$T/rv.csv" | cut -d, -f3)" != 0 ]'
{ printf '[study]\nscenario = "contact"\nlaws = ["chatterjee-ruina"]\n[design]\nkind = "mc"\nn = 1\n[params]\n'
  for s in $sets; do echo "${s%%=*} = ${s#*=}"; done
  printf '[output]\nformats = ["csv"]\n'; } > "$T/c.toml"
"$IMPACT" study "$T/c.toml" --out "$T/cst" --no-plots -q 2> "$T/err"; rc=$?
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 { print $k }' "$T/cst/chatterjee-ruina.csv"; }
qmin() { grep -o "\"$1\": {[^}]*\"min\": [-0-9.e+]*" "$T/rv.json" | grep -o "[-0-9.e+]*$"; }
check "the study's contact with the same values: the same P_n, P_t, vf_n to the last bit" \
  '[ $rc -eq 0 ] && [ -n "$(qmin Pn)" ] && [ "$(col P_n)" = "$(qmin Pn)" ] && [ "$(col P_t)" = "$(qmin Pt)" ] && [ "$(col vf_n)" = "$(qmin vfn)" ]'
"$IMPACT" reduce --law newton --n 10 --backend serial --set rotation=sideways > /dev/null 2> "$T/err"; rc=$?
check "rotation takes random, vector or identity" '[ $rc -eq 2 ] && grep -q "rotation must be .random., .vector." "$T/err"'

finish
