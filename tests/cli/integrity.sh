#!/usr/bin/env bash
# Nothing lost, nothing partial: every output appears whole
# or not at all, an input is never overwritten by its own output, read errors are errors, writes
# to a full device fail with exit 2, a killed run leaves no file behind, usage errors exit 2.
set -u
source "$(dirname "$0")/common.bash"
E="$(dirname "$0")/../../examples/cases.csv"
cp "$E" "$T/a.csv"
ROWS=$(wc -l < "$E")
repeat_rows() {  # repeat_rows OUT K: the header of $E, then its rows K times (a long input from the example)
  python3 - "$E" "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as f:
    f.write(lines[0] + "\n")
    for k in range(int(sys.argv[3])):
        f.write("\n".join(lines[1:]) + "\n")
PY
}

# 1. same file in and out (as given, through ./, through a link): refused, the input intact
ln -s a.csv "$T/link.csv"
for out in "$T/a.csv" "$T/./a.csv" "$T/link.csv"; do
  "$IMPACT" eval --law newton --in "$T/a.csv" --out "$out" -q 2> "$T/err"; rc=$?
  check "same file $out exits 2" '[ $rc -eq 2 ]'
  check "same file $out named" 'grep -q "name the same file" "$T/err"'
  check "input intact after $out" 'cmp -s "$E" "$T/a.csv"'
done
"$IMPACT" compare --law newton --in "$T/a.csv" --fail-out "$T/a.csv" > /dev/null 2> "$T/err"; rc=$?
check "compare --fail-out over --in refused" '[ $rc -eq 2 ] && cmp -s "$E" "$T/a.csv"'

# 2. read errors are errors: a directory, a binary stream; EIO injected into read() (strace)
mkdir "$T/dir"
"$IMPACT" eval --law newton --in "$T/dir" --out "$T/o.csv" -q 2> "$T/err"; rc=$?
check "directory as input exits 1" '[ $rc -eq 1 ] && grep -q "is a directory" "$T/err" && [ ! -e "$T/o.csv" ]'
head -c 100000 /dev/zero > "$T/zero.bin"
"$IMPACT" eval --law newton --in "$T/zero.bin" --out "$T/o.csv" -q 2> "$T/err"; rc=$?
check "binary input exits 1" '[ $rc -eq 1 ] && grep -q "zero.bin:1:1: NUL byte" "$T/err"'
if command -v strace > /dev/null && strace -f -o /dev/null true 2> /dev/null; then
  # 80000 rows (25 MB) in 1 MB reads (io::CsvReader's blocks): from the 20th read() of the process
  # on (the loader's reads of the libraries come first), read() fails with EIO
  repeat_rows "$T/big.csv" 40
  strace -f -e trace=read -e inject=read:error=EIO:when=20+ -o /dev/null \
    "$IMPACT" eval --law newton --in "$T/big.csv" --out "$T/o.csv" -q 2> "$T/err"; rc=$?
  check "EIO on read exits 1" '[ $rc -eq 1 ] && grep -q "read error: Input/output error" "$T/err"'
  check "EIO on read: no table" '[ ! -e "$T/o.csv" ]'
else
  echo "note: strace not usable here: the EIO injection is not tested"
fi

# 3. writes that fail: /dev/full, a file size limit (EFBIG, as a full disk), stdout full
"$IMPACT" eval --law newton --in "$E" --out /dev/full -q 2> "$T/err"; rc=$?
check "eval to /dev/full exits 2" '[ $rc -eq 2 ] && grep -q "No space left on device" "$T/err"'
(trap '' XFSZ; ulimit -f 64; "$IMPACT" eval --law newton --in "$T/a.csv" --out "$T/o.csv" -q 2> "$T/err"); rc=$?
check "full disk (eval) exits 2" '[ $rc -eq 2 ] && grep -q "o.csv: write failed" "$T/err"'
check "full disk (eval): neither table nor temporary" '[ -z "$(ls -A "$T" | grep -v -e "^a.csv$" -e "^link.csv$" -e "^dir$" -e "^zero.bin$" -e "^big.csv$" -e "^err$")" ]'
(trap '' XFSZ; ulimit -f 200; "$IMPACT" study "$(dirname "$0")/../../examples/studies/pencil-mc.toml" --set design.n=20000 \
  --backend omp --out "$T/study" --no-plots -q 2> "$T/err"); rc=$?
check "full disk (study) exits 2" '[ $rc -eq 2 ] && grep -q "write failed" "$T/err"'
check "full disk (study): no partial or temporary file" '[ -z "$(find "$T/study" -type f -name "*.tmp-*")" ] && [ ! -e "$T/study/metadata.json" ]'
# a complete earlier run in the folder: the failed run takes its metadata.json (the completion
# marker) away before writing anything
"$IMPACT" study "$(dirname "$0")/../../examples/studies/pencil-mc.toml" --set design.n=200 --backend omp \
  --out "$T/study2" --no-plots -q 2> "$T/err"
check "a complete study has metadata.json" '[ -e "$T/study2/metadata.json" ]'
(trap '' XFSZ; ulimit -f 200; "$IMPACT" study "$(dirname "$0")/../../examples/studies/pencil-mc.toml" --set design.n=20000 \
  --backend omp --out "$T/study2" --no-plots -q 2> "$T/err"); rc=$?
check "failed study over a complete one: exit 2, no metadata.json left" '[ $rc -eq 2 ] && [ ! -e "$T/study2/metadata.json" ]'
for cmd in "laws" "scenarios" "reduce --law newton --n 1000" "study $(dirname "$0")/../../examples/studies/jia-fig15c.toml --dry-run"; do
  $IMPACT $cmd > /dev/full 2> "$T/err"; rc=$?
  check "'$cmd' to a full stdout exits 2" '[ $rc -eq 2 ] && grep -q "standard output: write failed" "$T/err"'
done

# 4. standard output is all or nothing: a bad row at the end leaves stdout empty
cp "$T/a.csv" "$T/bad_end.csv"
sed -i "${ROWS}s/^[^,]*,[^,]*/x,oops/" "$T/bad_end.csv"
"$IMPACT" eval --law newton --in "$T/bad_end.csv" --out - -q > "$T/stdout" 2> "$T/err"; rc=$?
check "bad last row: exit 1, nothing on stdout" '[ $rc -eq 1 ] && [ ! -s "$T/stdout" ] && grep -q "bad_end.csv:$ROWS:" "$T/err"'
"$IMPACT" eval --law newton --in "$E" --out - -q > "$T/stdout"; rc=$?
check "good input on stdout: every row" '[ $rc -eq 0 ] && [ $(wc -l < "$T/stdout") -eq $ROWS ]'
head -1 "$E" > "$T/header_only.csv"
"$IMPACT" eval --law jia --in "$T/header_only.csv" --out "$T/h.csv" -q; rc=$?
check "header-only input: exit 0, a header line" '[ $rc -eq 0 ] && [ $(wc -l < "$T/h.csv") -eq 1 ]'

# 5. a killed run leaves neither the table nor a temporary
repeat_rows "$T/long.csv" 200
mkdir "$T/kill"
"$IMPACT" eval --law jia --steps 2000 --backend serial --in "$T/long.csv" --out "$T/kill/o.csv" -q & pid=$!
for i in $(seq 50); do [ -n "$(ls -A "$T/kill")" ] && break; sleep 0.1; done
check "the run had started its temporary" '[ -n "$(ls -A "$T/kill")" ]'
kill -TERM $pid; wait $pid; rc=$?
check "SIGTERM: exit by the signal" '[ $rc -eq 143 ]'
check "SIGTERM: nothing left" '[ -z "$(ls -A "$T/kill")" ]'

# 6. usage errors exit 2 with a message; signs are refused by unsigned options
for args in "bogus" "eval --law jia" "eval --law jia --in $E --out /dev/null --steps abc" \
            "eval --law jia --in $E --out /dev/null --bogus" "eval --law jia --law newton --in $E --out /dev/null" \
            "eval --law jia --in $E --out /dev/null --chunk -1" "reduce --law jia --n -1 -q" \
            "reduce --law newton --seed -3" "eval --law jia --in $E --out /dev/null --chunk 99999999999"; do
  timeout 20 $IMPACT $args > /dev/null 2> "$T/err"; rc=$?
  check "'$args' exits 2" '[ $rc -eq 2 ] && grep -q "^impact: error: " "$T/err"'
done
$IMPACT bogus 2> "$T/err"
check "unknown command named" 'grep -q "unknown command .bogus. (known: eval" "$T/err"'
$IMPACT --help > /dev/null; rc=$?
check "--help exits 0" '[ $rc -eq 0 ]'

# 7. text encodings: a UTF-8 BOM, CR-only and CRLF line ends read as the LF file; decimal commas named
"$IMPACT" eval --law newton --in "$E" --out "$T/lf.csv" -q
{ printf '\xef\xbb\xbf'; cat "$E"; } > "$T/bom.csv"
tr '\n' '\r' < "$E" > "$T/cr.csv"
sed 's/$/\r/' "$E" > "$T/crlf.csv"
for f in bom cr crlf; do
  "$IMPACT" eval --law newton --in "$T/$f.csv" --out "$T/o_$f.csv" -q; rc=$?
  check "$f file: exit 0, the LF file's results" '[ $rc -eq 0 ] && cmp -s "$T/lf.csv" "$T/o_$f.csv"'
done
H=$(head -1 "$E" | cut -d, -f2-)
printf 'W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0\n3,5,0,0,3,5,0,1,0,0,1,-3,0,-5,0,4,0,5,0,3,1,1\n' > "$T/locale.csv"
"$IMPACT" eval --law newton --in "$T/locale.csv" --out "$T/o.csv" -q 2> "$T/err"; rc=$?
check "decimal commas: exit 1, located, explained" '[ $rc -eq 1 ] && grep -q "locale.csv:2:35: expected 16 fields as in the header, found 22 (decimal commas" "$T/err"'

# 8. a number beyond double's range is refused at its cell like any text outside the number grammar
# (docs/INTERFACE.md "Numbers in text": one grammar for every reader, so that a text the imported
# design refuses is not read here as inf); 'inf' marks its row non_finite; a number below the
# subnormals reads as zero
printf 'W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,0.5,0.3,1.1\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-1e999,0.4,0.5,0.3,1.1\n' > "$T/range.csv"
"$IMPACT" eval --law newton --in "$T/range.csv" --out "$T/o.csv" -q 2> "$T/err"; rc=$?
check "1e999: exit 1 at its cell, no output" '[ $rc -eq 1 ] && grep -q "range.csv:3:28: expected a number in column .v_z., got .-1e999. (beyond the range of double" "$T/err" && [ ! -e "$T/o.csv" ]'
printf 'W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-5,0.4,0.5,0.3,1.1\n3.5,0,0,3.5,0,1,0,0,1,-3,0,-inf,0.4,0.5,0.3,1.1\n3.5,0,0,3.5,0,1,0,0,1e-999,-3,0,-5,0.4,0.5,0.3,1.1\n' > "$T/range.csv"
"$IMPACT" eval --law newton --in "$T/range.csv" --out "$T/o.csv" -q; rc=$?
check "-inf: exit 0, three rows" '[ $rc -eq 0 ] && [ $(wc -l < "$T/o.csv") -eq 4 ]'
check "-inf: its row non_finite, the first ok" 'sed -n 2p "$T/o.csv" | grep -q ",ok$" && sed -n 3p "$T/o.csv" | grep -q ",non_finite$"'
check "1e-999: underflows to zero (the normal: bad_normal)" 'sed -n 4p "$T/o.csv" | grep -q ",bad_normal$"'
finish
