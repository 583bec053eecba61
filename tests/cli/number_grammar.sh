#!/usr/bin/env bash
# One number grammar for every number read from text (docs/INTERFACE.md "Numbers in text",
# host/io/number.hpp): two readers with grammars of their own disagree at the edges (one taking
# 0x10 as 16 and refusing the subnormal 4.9e-324 as "not finite", the other the opposite), so the
# imported design of `impact study` and the CSV of `impact eval` read the same texts as the same
# numbers (the same results, bit for bit), refuse the same texts at their line and column, and the
# numbers inside config strings and --set values follow the same grammar.
set -u
source "$(dirname "$0")/common.bash"

col() {  # col FILE NAME [LINE]: the value of column NAME on line LINE (2) of a CSV file
  awk -F, -v c="$2" -v l="${3:-2}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == c) k = i} NR == l {print $k; exit}' "$1"
}
printf '[study]\nname = "imp"\nscenario = "ball"\nlaws = ["chatterjee-ruina"]\n[run]\nbackend = "serial"\n[design]\nkind = "imported"\nfile = "%s"\n[output]\nformats = ["csv"]\n' "$T/X.txt" > "$T/imp.toml"
study_v() {  # the imported design "V0x mu / VALUE 0.3": src, $T/serr, $T/O/chatterjee-ruina.csv
  printf 'V0x mu\n%s 0.3\n' "$1" > "$T/X.txt"
  rm -rf "$T/O"
  "$IMPACT" study "$T/imp.toml" --out "$T/O" -q --no-plots > /dev/null 2> "$T/serr"; src=$?
}
eval_v() {  # the same row as a CSV for `impact eval --scenario ball`: erc, $T/eerr, $T/E.csv
  printf 'V0x,mu\n%s,0.3\n' "$1" > "$T/X.csv"
  rm -f "$T/E.csv"
  "$IMPACT" eval --law chatterjee-ruina --scenario ball --backend serial --in "$T/X.csv" --out "$T/E.csv" -q 2> "$T/eerr"; erc=$?
}
same_results() {  # the study's row and eval's row: the same status and outputs, bit for bit
  local k
  for k in status P_x P_y P_z vf_x vf_y vf_z dE Vx Vy Vz wx wy wz; do
    [ "$(col "$T/O/chatterjee-ruina.csv" $k)" = "$(col "$T/E.csv" $k)" ] || { echo "differs in $k" >&2; return 1; }
  done
}

# 1. accepted by both, read as the same double: subnormals (the reproducer's 4.9e-324), underflow
# to zero, the largest double, the decimal forms. V0x as the study writes it back: the value read.
while read -r v want; do
  study_v "$v"; eval_v "$v"
  check "$v: study and eval both accept it" '[ $src -eq 0 ] && [ $erc -eq 0 ] || { cat "$T/serr" "$T/eerr" >&2; false; }'
  check "$v: read as $want, the same results in both" '[ "$(col "$T/O/chatterjee-ruina.csv" V0x)" = "$want" ] && same_results'
done <<'EOF'
4.9e-324 5e-324
-4.9e-324 -5e-324
2.4703282292062328e-324 5e-324
1e-310 1e-310
1e-400 0
-0 -0
0.5 0.5
.5 0.5
5. 5
+2 2
1E+2 100
2.5e-3 0.0025
007.25 7.25
1.7976931348623157e308 1.7976931348623157e+308
EOF

# 2. refused by both at the cell's line and column, saying why: hexadecimal (0x10 was 16 in the
# design), beyond double's range (1e400 was inf in the CSV: a row status, not an error), other forms
while read -r v hint; do
  study_v "$v"; eval_v "$v"
  ws="X.txt:2:1: expected a finite number, found '$v'"
  we="X.csv:2:1: expected a number in column 'V0x', got '$v'"
  check "'$v': study refuses it at 2:1" '[ $src -eq 1 ] && grep -qF "$ws" "$T/serr"'
  check "'$v': eval refuses it at 2:1" '[ $erc -eq 1 ] && grep -qF "$we" "$T/eerr" && [ ! -e "$T/E.csv" ]'
  [ "$hint" = "-" ] || check "'$v': both say '$hint'" 'grep -qF "$hint" "$T/serr" && grep -qF "$hint" "$T/eerr"'
done <<'EOF'
0x10 (hexadecimal is not accepted
0X10 (hexadecimal is not accepted
0x1p-2 (hexadecimal is not accepted
-0x10 (hexadecimal is not accepted
1e400 (beyond the range of double
-1e400 (beyond the range of double
1e309 (beyond the range of double
1.7976931348623159e308 (beyond the range of double
nan(1) -
1_000 -
1e -
.e1 -
1.2.3 -
+-1 -
1d5 -
0b1 -
EOF

# 3. inf and nan are numbers of the grammar: a CSV row takes them and gets the status non_finite;
# a design's values must be finite, and the study says so
for v in inf -inf nan Infinity; do
  study_v "$v"; eval_v "$v"
  ws="X.txt:2:1: expected a finite number, found '$v' (a design's values must be finite)"
  check "$v: eval exits 0, the row non_finite" '[ $erc -eq 0 ] && [ "$(col "$T/E.csv" status)" = non_finite ]'
  check "$v: the study refuses it as not finite" '[ $src -eq 1 ] && grep -qF "$ws" "$T/serr"'
done

# 4. a file without a header: a first field that begins like a number is a value, refused as one
# (0x10 there was taken for a header name, or read as 16)
printf '[study]\nscenario = "ball"\nlaws = ["newton"]\n[params]\nV0x = "uniform:-1:1"\n[design]\nkind = "imported"\nfile = "%s"\n' "$T/H.txt" > "$T/h.toml"
printf '0x10\n' > "$T/H.txt"
"$IMPACT" study "$T/h.toml" --out "$T/OH" -q --no-plots > /dev/null 2> "$T/err"; rc=$?
ws="H.txt:1:1: expected a finite number, found '0x10' (hexadecimal"
check "headerless 0x10: refused at 1:1" '[ $rc -eq 1 ] && grep -qF "$ws" "$T/err"'
printf '4.9e-324\n-1e-400\n' > "$T/H.txt"
"$IMPACT" study "$T/h.toml" --out "$T/OH" -q --no-plots > /dev/null 2> "$T/err"; rc=$?
check "headerless 4.9e-324 and -1e-400: two rows, read as 5e-324 and -0" '[ $rc -eq 0 ] && [ "$(col "$T/OH/newton.csv" V0x 2) $(col "$T/OH/newton.csv" V0x 3)" = "5e-324 -0" ] || { cat "$T/err" >&2; false; }'

# 5. numbers inside config strings and --set values: the same grammar
study_cfg() {  # a [params] entry for mu: rc, $T/err
  printf '[study]\nscenario = "ball"\nlaws = ["newton"]\n[params]\nmu = %s\n[design]\nkind = "mc"\nn = 4\n' "$1" > "$T/c.toml"
  "$IMPACT" study "$T/c.toml" --dry-run > /dev/null 2> "$T/err"; rc=$?
}
study_cfg '"uniform:0x1:2"'
w="params.mu: LO '0x1' is not a number (hexadecimal"
check "config string: 0x1 refused, hexadecimal named" '[ $rc -eq 1 ] && grep -qF "$w" "$T/err"'
study_cfg '"uniform:0:1e400"'
w="params.mu: HI '1e400' is not a number (beyond the range of double"
check "config string: 1e400 refused, the range named" '[ $rc -eq 1 ] && grep -qF "$w" "$T/err"'
study_cfg '"0x10"'
w="params.mu: '0x10' is not a number (hexadecimal"
check "config string: a bare 0x10 is a number refused, not an unknown distribution" '[ $rc -eq 1 ] && grep -qF "$w" "$T/err" && ! grep -q "unknown distribution" "$T/err"'
study_cfg '"uniform:4.9e-324:1"'
check "config string: 4.9e-324 accepted" '[ $rc -eq 0 ] || { cat "$T/err" >&2; false; }'
study_cfg '{dist = "uniform", lo = "0", hi = "0x1"}'
check "config table string: 0x1 refused" '[ $rc -eq 1 ] && grep -qF "hi: expected a number, got a string \"0x1\" (hexadecimal" "$T/err"'
"$IMPACT" reduce --law newton --n 10 --set mu=0x10 > /dev/null 2> "$T/err"; rc=$?
w="'0x10' is not a number (hexadecimal"
check "--set mu=0x10 refused" '[ $rc -eq 2 ] && grep -qF "$w" "$T/err"'
"$IMPACT" reduce --law newton --n 10 --set mu=uniform:0:1e999 > /dev/null 2> "$T/err"; rc=$?
w="--set mu=uniform:0:1e999: HI '1e999' is not a number (beyond the range of double"
check "--set mu=uniform:0:1e999 refused" '[ $rc -eq 2 ] && grep -qF -e "$w" "$T/err"'
"$IMPACT" reduce --law newton --n 10 --set e=4.9e-324 > /dev/null 2> "$T/err"; rc=$?
check "--set e=4.9e-324 accepted" '[ $rc -eq 0 ] || { cat "$T/err" >&2; false; }'
finish
