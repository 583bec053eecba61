#!/usr/bin/env bash
# benches/peers: the NumPy peer reproduces `impact eval` (chatterjee-ruina exactly, jia with the same
# fixed-step scheme), and the harness's correctness check fails on a planted wrong peer result:
# check.py on a value off by 1e-6 relative, a flipped status, a dropped row and two swapped rows
# (non-zero exit, the column / row named); run_peers.sh on a peer whose table was tampered with
# (status "wrong results", no throughput recorded, exit 1).
# NumPy is a declared dependency (scripts/bootstrap.sh installs python3-numpy; the interpreter is found by
# scripts/find_python.sh: IMPACT_PYTHON, python3 on PATH, /usr/bin/python3):
# without it this test fails, it does not skip.
set -u
source "$(dirname "$0")/common.bash"
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
PEERS="$SRC/benches/peers"
if ! PY=$(bash "$SRC/scripts/find_python.sh" numpy 2> "$T/np.err"); then
  echo "FAIL: $(cat "$T/np.err"): NumPy is a declared dependency" \
       "(scripts/bootstrap.sh installs python3-numpy); the peer benchmarks need it" >&2
  exit 1
fi
STEPS=40

"$IMPACT" reduce --law jia --scenario contact --n 200 --seed 1 --steps $STEPS --backend omp \
  --cases-out "$T/cases.csv" -q; rc=$?
check "cases generated" '[ $rc -eq 0 ] && [ $(wc -l < "$T/cases.csv") -eq 201 ]'

# 1. the true peer output passes the check (chatterjee-ruina: bit for bit; jia: to 1e-9 relative)
for law in chatterjee-ruina jia; do
  "$IMPACT" eval --law $law --steps $STEPS --backend omp --in "$T/cases.csv" --out "$T/ours_$law.csv" -q
  "$PY" "$PEERS/numpy_peer.py" --law $law --steps $STEPS --in "$T/cases.csv" --out "$T/peer_$law.csv" \
    --reps 1 --warmup 0 --timing-out "$T/timing_$law.json"; rc=$?
  check "numpy peer $law runs" '[ $rc -eq 0 ] && grep -q "\"instances_per_s\": [0-9]" "$T/timing_$law.json"'
  check "numpy peer $law writes the eval columns" \
    'head -1 "$T/peer_$law.csv" | grep -q "^index,P_x,P_y,P_z,vf_x,vf_y,vf_z,dE,status"'
  "$PY" "$PEERS/check.py" "$T/ours_$law.csv" "$T/peer_$law.csv" --json "$T/check_$law.json" > "$T/out" 2>&1; rc=$?
  check "check passes on the numpy peer ($law)" '[ $rc -eq 0 ] && grep -q "^PASSED" "$T/out"'
  check "check json ($law)" 'grep -q "\"passed\": true" "$T/check_$law.json"'
done
check "chatterjee-ruina agrees exactly" 'grep -q "\"max_rel_err\": 0.0" "$T/check_chatterjee-ruina.json"'
# jia in float: the same scheme in float32, within the float tolerance
"$IMPACT" eval --law jia --steps $STEPS --backend omp --precision float --in "$T/cases.csv" --out "$T/ours_f.csv" -q
"$PY" "$PEERS/numpy_peer.py" --law jia --steps $STEPS --precision float --in "$T/cases.csv" --out "$T/peer_f.csv" \
  --reps 1 --warmup 0 --timing-out "$T/timing_f.json"
"$PY" "$PEERS/check.py" "$T/ours_f.csv" "$T/peer_f.csv" --precision float > "$T/out" 2>&1; rc=$?
check "check passes on the float numpy peer (jia)" '[ $rc -eq 0 ]'

# 2. planted wrong results: each makes check.py exit non-zero naming the column / row
# plant SRC DST ROW COLUMN ACTION: ACTION scale (x (1 + 1e-6)), status (ok -> step_limit), drop, swap
plant() {
  "$PY" - "$@" <<'EOF'
import csv, sys
src, dst, row, col, action = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows = list(csv.reader(open(src, newline="")))
h = rows[0]
k = row + 1  # data row `row` (0-based) is line k of the list
if action == "scale":
    c = h.index(col)
    rows[k][c] = repr(float(rows[k][c]) * (1 + 1e-6))
elif action == "status":
    rows[k][h.index("status")] = "step_limit"
elif action == "drop":
    del rows[k]
elif action == "swap":
    rows[k], rows[k + 1] = rows[k + 1], rows[k]
csv.writer(open(dst, "w", newline=""), lineterminator="\n").writerows(rows)
EOF
}
ok_row=$(awk -F, 'NR>11 && $9=="ok" {print NR-2; exit}' "$T/peer_jia.csv")  # first ok row from row 10 on
check "an ok row to perturb" '[ -n "$ok_row" ]'
ok_index=$(awk -F, -v r=$((ok_row + 2)) 'NR==r{print $1}' "$T/peer_jia.csv")

plant "$T/peer_jia.csv" "$T/bad1.csv" "$ok_row" P_z scale
"$PY" "$PEERS/check.py" "$T/ours_jia.csv" "$T/bad1.csv" > "$T/out" 2>&1; rc=$?
check "perturbed value (1e-6 rel) fails" '[ $rc -eq 1 ]'
check "perturbed value: column and row named" \
  'grep -q "FAIL: column P_z: 1 value(s) beyond tolerance: row $((ok_row + 1)) (index $ok_index): P_z" "$T/out"'
check "perturbed value: the error is about 1e-6" 'grep -Eq "rel err (9\.[0-9]*e-07|1(\.[0-9]*)?e-06) > 1e-09" "$T/out"'
# the same file passes with a looser tolerance (the check is a tolerance, not a diff)
"$PY" "$PEERS/check.py" "$T/ours_jia.csv" "$T/bad1.csv" --rtol 1e-5 > "$T/out" 2>&1; rc=$?
check "perturbed value passes with --rtol 1e-5" '[ $rc -eq 0 ]'

plant "$T/peer_jia.csv" "$T/bad2.csv" 17 - status
"$PY" "$PEERS/check.py" "$T/ours_jia.csv" "$T/bad2.csv" > "$T/out" 2>&1; rc=$?
check "flipped status fails" '[ $rc -eq 1 ]'
check "flipped status: row named" 'grep -q "FAIL: status differs on 1 row(s): row 18 (index 17): status ours=[a-z_]* peer=step_limit" "$T/out"'

plant "$T/peer_jia.csv" "$T/bad3.csv" 50 - drop
"$PY" "$PEERS/check.py" "$T/ours_jia.csv" "$T/bad3.csv" > "$T/out" 2>&1; rc=$?
check "dropped row fails" '[ $rc -eq 1 ]'
check "dropped row: counts and the missing id named" \
  'grep -q "row count differs: ours 200, peer 199" "$T/out" && grep -q "rows missing from the peer, first: index 50" "$T/out"'

plant "$T/peer_jia.csv" "$T/bad4.csv" 30 - swap
"$PY" "$PEERS/check.py" "$T/ours_jia.csv" "$T/bad4.csv" > "$T/out" 2>&1; rc=$?
check "swapped rows fail" '[ $rc -eq 1 ] && grep -q "row 31: index 30 in ours, 31 in the peer (rows reordered)" "$T/out"'

# 3. run_peers.sh: a peer whose results were tampered with gets no time and the run exits 1
cat > "$T/tamper.sh" <<EOF
#!/usr/bin/env bash
# a "python" that runs the peer, then perturbs P_x of row 3 of its table by 1e-6 relative
"$PY" "\$@" || exit \$?
out=; prev=
for a in "\$@"; do [ "\$prev" = --out ] && out=\$a; prev=\$a; done
[ -n "\$out" ] || exit 0
"$PY" - "\$out" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
c = rows[0].index("P_x")
rows[4][c] = repr(float(rows[4][c]) * (1 + 1e-6))
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)
PYEOF
EOF
chmod +x "$T/tamper.sh"
bash "$PEERS/run_peers.sh" "$IMPACT" "$T/good" --n 200 --laws chatterjee-ruina --precisions double --peers numpy \
  --reps 1 > "$T/good.out" 2>&1; rc=$?
check "run_peers passes with the true peer" '[ $rc -eq 0 ] && [ -s "$T/good/peers.json" ] && [ -s "$T/good/peers.md" ]'
check "run_peers records the checked peer" \
  '"$PY" -c "import json,sys; r=[x for x in json.load(open(sys.argv[1])) if x[\"peer\"]==\"numpy\"][0]; sys.exit(not (r[\"check\"][\"passed\"] and r[\"instances_per_s\"] > 0 and r[\"status\"] == \"ok\"))" "$T/good/peers.json"'
check "run_peers times impact eval --backend omp" \
  '"$PY" -c "import json,sys; r=[x for x in json.load(open(sys.argv[1])) if x[\"peer\"]==\"impact-omp\"][0]; sys.exit(not r[\"instances_per_s\"] > 0)" "$T/good/peers.json"'
NUMPY_PYTHON="$T/tamper.sh" bash "$PEERS/run_peers.sh" "$IMPACT" "$T/bad" --n 200 --laws chatterjee-ruina \
  --precisions double --peers numpy --reps 1 --no-omp-timing > "$T/bad.out" 2>&1; rc=$?
check "run_peers exits 1 on a wrong peer" '[ $rc -eq 1 ]'
check "run_peers names the wrong column and row" 'grep -q "FAIL: column P_x: 1 value(s) beyond tolerance: row 4 (index 3)" "$T/bad.out"'
check "run_peers records no time for the wrong peer" \
  '"$PY" -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; sys.exit(not (r[\"status\"] == \"wrong results\" and r[\"instances_per_s\"] is None and r[\"median_s\"] is None and not r[\"check\"][\"passed\"]))" "$T/bad/peers.json"'
check "run_peers keeps no timing file for the wrong peer" '[ ! -e "$T/bad/numpy_chatterjee-ruina_double.timing.json" ]'
check "peers.md says wrong results" 'grep -q "| numpy | chatterjee-ruina | double | - | 200 | FAILED .* | - | - | - | wrong results |" "$T/bad/peers.md"'

finish
