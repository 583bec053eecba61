#!/usr/bin/env bash
# `impact eval --scenario NAME`: rows of a scenario's parameters give the law's results and the
# body-level outputs without a study: the same numbers as `impact study` on the same rows (an
# imported design), every scenario at its defaults, rows that cannot be built keep their row and
# status, bad headers and cells are located, the physics of the ball holds, and auto's trial
# counts a table's rows by their own length.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh" numpy) || exit 1

# 1. the ball over a spread of spins, speeds and friction: eval equals study on the same rows
"$PY" - "$T/ball.csv" <<'EOF'
import sys, numpy as np
r = np.random.default_rng(5)
n = 400
V0x, w0y, V0z, mu = r.uniform(-3, 3, n), r.uniform(-4, 4, n), r.uniform(-6, -1, n), r.uniform(0.05, 0.8, n)
V0z[7] = 0.5  # moving away: no_approach
with open(sys.argv[1], "w") as f:
    f.write("V0x,w0y,V0z,mu\n")
    for row in zip(V0x, w0y, V0z, mu):
        f.write(",".join(repr(float(x)) for x in row) + "\n")
EOF
printf '[study]\nscenario = "ball"\nlaws = ["jia", "stronge"]\n[design]\nkind = "imported"\nfile = "%s"\n[output]\nformats = ["npy"]\n' "$T/ball.csv" > "$T/s.toml"
"$IMPACT" study "$T/s.toml" --out "$T/st" --no-plots -q > /dev/null 2> "$T/err"; rc=$?
check "study on the same rows exits 0" '[ $rc -eq 0 ]'
for law in jia stronge; do
  "$IMPACT" eval --law $law --scenario ball --in "$T/ball.csv" --out "$T/$law.csv" -q 2> "$T/err"; rc=$?
  check "eval --scenario ball --law $law exits 0" '[ $rc -eq 0 ]'
  "$PY" "$SRC/tests/cli/helpers/ball_eval_vs_study.py" "$T/$law.csv" "$T/st/$law.npy" 2> "$T/pyerr"; rc=$?
  check "$law: same bits as the study; rebound and angular momentum about the contact" '[ $rc -eq 0 ] || { cat "$T/pyerr" >&2; false; }'
done

# 2. every scenario at its defaults (one column given), in both precisions, on CPU backends
for sc in contact ball ball-oblique pencil double-pendulum-2d double-pendulum-3d two-bodies; do
  p=$("$IMPACT" scenarios 2>/dev/null | awk -v s="$sc:" '$1 == s {getline; print $1; exit}')
  v=$("$IMPACT" scenarios 2>/dev/null | awk -v s="$sc:" '$1 == s {getline; print $2; exit}')
  printf '%s\n%s\n' "$p" "$v" > "$T/def.csv"
  for prec in double float; do
    "$IMPACT" eval --law stronge --scenario "$sc" --in "$T/def.csv" --precision $prec --backend serial -q > "$T/o.csv" 2> "$T/err"; rc=$?
    check "$sc at its defaults ($prec): ok" '[ $rc -eq 0 ] && [ "$(sed -n 2p "$T/o.csv" | grep -c ",ok,")" -eq 1 ]'
  done
done
check "the header gains the body outputs" '"$IMPACT" eval --law newton --scenario pencil --in <(printf "theta\n0.8\n") -q | head -1 | grep -q ",status,Vx,Vy,Vz,w1,w2,w3$"'

# 3. rows that cannot be built keep their row and status; CSV errors are located
printf 'r,m\n1,1\n-1,1\n1,0\n2,3\n' > "$T/bad.csv"
"$IMPACT" eval --law newton --scenario ball --in "$T/bad.csv" -q > "$T/o.csv" 2> "$T/err"; rc=$?
check "unbuildable rows: exit 0, every row, their status, empty results" '[ $rc -eq 0 ] && [ $(wc -l < "$T/o.csv") -eq 5 ] && [ "$(cut -d, -f10 "$T/o.csv" | tr "\n" " ")" = "status ok param_out_of_range param_out_of_range ok " ] && sed -n 3p "$T/o.csv" | grep -q "^-1,1,,,,,,,,param_out_of_range,,,,,,$"'
printf 'r,spin\n1,2\n' > "$T/e1.csv"
"$IMPACT" eval --law newton --scenario ball --in "$T/e1.csv" -q > /dev/null 2> "$T/err"; rc=$?
check "an unknown column: exit 1 at its line and column" '[ $rc -eq 1 ] && grep -q "e1.csv:1:3: expected a parameter of scenario ball (m, r, V0x.*found .spin." "$T/err"'
printf 'r,r\n1,2\n' > "$T/e2.csv"
"$IMPACT" eval --law newton --scenario ball --in "$T/e2.csv" -q > /dev/null 2> "$T/err"; rc=$?
check "a repeated column: exit 1" '[ $rc -eq 1 ] && grep -q "e2.csv:1:3: duplicate column .r." "$T/err"'
printf 'r,m\n1,2\n1,x2\n' > "$T/e3.csv"
"$IMPACT" eval --law newton --scenario ball --in "$T/e3.csv" --out "$T/e3.out" -q 2> "$T/err"; rc=$?
check "a bad number: exit 1 at its cell, no output file" '[ $rc -eq 1 ] && grep -q "e3.csv:3:3:" "$T/err" && [ ! -e "$T/e3.out" ]'
printf 'r,m\n1,2\n1\n' > "$T/e4.csv"
"$IMPACT" eval --law newton --scenario ball --in "$T/e4.csv" -q > /dev/null 2> "$T/err"; rc=$?
check "a short row: exit 1 located" '[ $rc -eq 1 ] && grep -q "e4.csv:3:2: expected 2 fields as in the header, found 1" "$T/err"'
"$IMPACT" eval --law newton --scenario nope --in "$T/bad.csv" -q > /dev/null 2> "$T/err"; rc=$?
check "an unknown scenario: usage error listing the scenarios" '[ $rc -eq 2 ] && grep -q "unknown scenario .nope. (known: contact, ball" "$T/err"'

# 4. auto counts a table's rows by its own rows' length: 5000 rows of one short column (about 6
#    bytes each, a thirtieth of a contact-space row) are more than two chunks of 1000, so on 2
#    threads auto weighs omp and serial by a trial; the bytes are serial's on the CPU
"$PY" -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('mu\n' + ''.join('%.2f\n' % (0.05 + 0.7 * (i % 97) / 96) for i in range(5000)))
" "$T/mu.csv"
"$IMPACT" eval --law stronge --scenario ball --in "$T/mu.csv" --backend serial --steps 40 -q > "$T/ref.csv" 2> "$T/err"
OMP_NUM_THREADS=2 "$IMPACT" eval --law stronge --scenario ball --in "$T/mu.csv" --steps 40 --chunk 1000 --out "$T/auto.csv" \
  2> "$T/err"; rc=$?
check "a scenario table of short rows: a trial among omp and serial" \
  '[ $rc -eq 0 ] && grep -q "(auto: trial of batches of up to 1000 rows: omp .*; serial " "$T/err" || { cat "$T/err" >&2; false; }'
check "a scenario table of short rows: serial's bytes on the CPU" 'grep -q "backend cuda" "$T/err" || cmp -s "$T/auto.csv" "$T/ref.csv"'
finish
