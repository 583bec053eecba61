#!/usr/bin/env bash
# `impact eval` as a pipeline (engine/evaluate.hpp EvalPipeline): reading and parsing chunk k+1,
# the law on chunk k and writing chunk k-1 overlap, parse and format run over the OpenMP threads.
# The table written and the summary are the same bytes for every chunk size, pipeline depth,
# thread count and CPU backend (auto's trial among them); a bad cell is reported as a plain loop
# would (the first in the file, even when several bad rows are parsed at once), with nothing left
# behind; the timeline's stage times keep the pipeline's order.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh") || exit 1

# 5000 rows of contact-space instances, some quoted cells, CRLF line ends on a few, a blank line
"$PY" - "$T/in.csv" <<'PYEOF'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w", newline="") as f:
    f.write("case,W_xx,W_xy,W_xz,W_yy,W_yz,W_zz,n_x,n_y,n_z,v_x,v_y,v_z,mu,e,e_t,eta0\n")
    for i in range(5000):
        w = [3.5 + r.random(), 0.1 * r.random(), 0, 3.5 + r.random(), 0, 1 + r.random()]
        v = [r.gauss(0, 2), r.gauss(0, 2), -1 - 4 * r.random()]
        row = ['"c,%d"' % i if i % 97 == 0 else "c%d" % i] + [repr(x) for x in w] + ["0", "0", "1"] + \
              [repr(x) for x in v] + [repr(0.1 + 0.5 * r.random()), repr(r.random()), "0.3", "1.1"]
        f.write(",".join(row) + ("\r\n" if i % 13 == 0 else "\n"))
        if i == 2500: f.write("\n")
PYEOF

# 1. the same bytes for every chunk, depth, thread count and backend
for law in chatterjee-ruina jia; do
  OMP_NUM_THREADS=1 "$IMPACT" eval --law $law --in "$T/in.csv" --out "$T/ref.csv" --backend serial --steps 60 \
    --pipeline 1 --chunk 65536 2> "$T/ref.err"; rc=$?
  check "$law: the reference run exits 0" '[ $rc -eq 0 ]'
  check "$law: 5000 rows written" '[ $(wc -l < "$T/ref.csv") -eq 5001 ]'
  for cfg in "serial 1 1 1" "serial 7 2 2" "omp 999 3 2" "omp 1024 8 1" "omp 5000 2 2" "serial 4999 3 2"; do
    set -- $cfg
    OMP_NUM_THREADS=$4 "$IMPACT" eval --law $law --in "$T/in.csv" --out "$T/o.csv" --backend $1 --steps 60 \
      --chunk $2 --pipeline $3 2> "$T/o.err"; rc=$?
    check "$law backend $1 chunk $2 depth $3 threads $4: exits 0" '[ $rc -eq 0 ]'
    check "$law backend $1 chunk $2 depth $3 threads $4: the same bytes" 'cmp -s "$T/o.csv" "$T/ref.csv"'
    # the summary's numbers too (its first lines: rows, statuses, min/mean/max, modes; after the
    # note that --steps changes nothing for an algebraic law)
    check "$law backend $1 chunk $2 depth $3 threads $4: the same summary" \
      'diff <(grep -v "^impact eval: note: " "$T/o.err" | sed -n "2p;4,9p") <(grep -v "^impact eval: note: " "$T/ref.err" | sed -n "2p;4,9p") > /dev/null'
  done
  # auto with chunks under kParallelRows on 2 threads: a trial on the first chunk between omp and
  # serial (and cuda where usable), each backend's line in the summary; on the CPU, serial's bytes
  OMP_NUM_THREADS=2 "$IMPACT" eval --law $law --in "$T/in.csv" --out "$T/o.csv" --backend auto --steps 60 \
    --chunk 1000 2> "$T/o.err"; rc=$?
  check "$law auto chunk 1000: exits 0" '[ $rc -eq 0 ]'
  check "$law auto chunk 1000: the trial's lines and choice in the summary" \
    'grep -Eq "backend (omp|serial|cuda) \(auto: trial of batches of up to 1000 rows: omp [^;]+ = [^;]+; serial .* for a batch of 1000 rows: (omp|serial|cuda)" "$T/o.err" || { cat "$T/o.err" >&2; false; }'
  check "$law auto chunk 1000: on the CPU, serial's bytes" 'grep -q "backend cuda" "$T/o.err" || cmp -s "$T/o.csv" "$T/ref.csv"'
  check "$law auto chunk 1000: cuda has a line in the trial, or the reason it is not a candidate" \
    'grep -Eq "(; cuda [0-9.]+ [mu]?s |cuda not a candidate: )" "$T/o.err"'
done

# 2. the timeline: one line per chunk and stage; each stage takes the chunks in order; within a
#    chunk the stages follow one another; at depth d chunk k+d is read only after chunk k is written
for d in 1 2 3; do
  "$IMPACT" eval --law chatterjee-ruina --in "$T/in.csv" --out "$T/o.csv" --chunk 400 --pipeline $d \
    --timeline "$T/tl.csv" --backend omp 2> "$T/o.err"; rc=$?
  check "timeline depth $d: exits 0" '[ $rc -eq 0 ]'
  check "timeline depth $d: summary shows the stages" 'grep -q "idle: input" "$T/o.err" && grep -q "pipeline: 13 chunks (5000 rows), $d in flight" "$T/o.err"'
  "$PY" - "$T/tl.csv" $d <<'PYEOF' 2> "$T/pyerr"; rc=$?
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = int(sys.argv[2])
stages = ["read", "parse", "law", "format", "write"]
assert len(rows) == 13 * 5, len(rows)
t = {}
for r in rows:
    t[int(r["chunk"]), r["stage"]] = (float(r["begin_s"]), float(r["end_s"]))
assert sum(int(r["rows"]) for r in rows if r["stage"] == "law") == 5000
for k in range(13):
    for s in stages:
        b, e = t[k, s]
        assert 0 <= b <= e, (k, s)
    for a, b in zip(stages, stages[1:]):
        assert t[k, a][1] <= t[k, b][0], (k, a, b)       # a chunk's stages in order
    if k:
        for s in stages:
            assert t[k - 1, s][1] <= t[k, s][0], (k, s)  # each stage in chunk order
    if k >= d:
        assert t[k - d, "write"][1] <= t[k, "read"][0], (k, d)  # at most d chunks in flight
PYEOF
  check "timeline depth $d: the pipeline's order holds" '[ $rc -eq 0 ] || { cat "$T/pyerr" >&2; false; }'
done

# the Gantt chart of the last timeline (scripts/plot_timeline.py), where matplotlib is there
if MPL=$(bash "$SRC/scripts/find_python.sh" matplotlib 2> /dev/null); then
  "$MPL" "$SRC/scripts/plot_timeline.py" "$T/tl.csv" "$T/tl.png" 2> "$T/pyerr"; rc=$?
  check "plot_timeline.py draws the chart" '[ $rc -eq 0 ] && [ "$(head -c 4 "$T/tl.png" | tail -c 3)" = PNG ]'
else
  echo "note: no Python with matplotlib: plot_timeline.py not run"
fi

# 3. bad cells in a later chunk, several in one chunk: the first in the file is reported, exit 1,
#    no table and no timeline left
cp "$T/in.csv" "$T/bad.csv"
sed -i -e '3001s/,0.3,/,x0.3,/' -e '3050s/,0.3,/,zz,/' -e '4500s/,0.3,/,,/' "$T/bad.csv"
for d in 1 3; do
  for ch in 100 4096; do
    rm -f "$T/o.csv" "$T/tl.csv"
    "$IMPACT" eval --law chatterjee-ruina --in "$T/bad.csv" --out "$T/o.csv" --chunk $ch --pipeline $d \
      --timeline "$T/tl.csv" 2> "$T/o.err"; rc=$?
    check "bad cell, depth $d chunk $ch: exit 1" '[ $rc -eq 1 ]'
    check "bad cell, depth $d chunk $ch: the first bad cell, located" \
      'grep -q "bad.csv:3001:[0-9]*: expected a number in column .e_t., got .x0.3." "$T/o.err"'
    check "bad cell, depth $d chunk $ch: no table, no timeline" '[ ! -e "$T/o.csv" ] && [ ! -e "$T/tl.csv" ]'
  done
done

# bad cells in both threads' halves of one 4096-row chunk (static schedule: rows 0-2047 to thread 0,
# 2048-4095 to thread 1): the lower row is reported whichever thread met its own first
cp "$T/in.csv" "$T/bad2.csv"
sed -i -e '2000s/,0.3,/,q,/' -e '2100s/,0.3,/,w,/' "$T/bad2.csv"
for th in 2 4; do
  OMP_NUM_THREADS=$th "$IMPACT" eval --law chatterjee-ruina --in "$T/bad2.csv" --out "$T/o.csv" --chunk 4096 \
    2> "$T/o.err"; rc=$?
  check "bad cells in two threads' rows, $th threads: the first in the file" \
    '[ $rc -eq 1 ] && grep -q "bad2.csv:2000:[0-9]*: expected a number in column .e_t., got .q." "$T/o.err"'
done

# a reader error (a NUL byte) and a bad cell in one chunk: whichever comes first in the file, for
# every chunk size (the records are read before they are parsed)
for order in "3001 3500" "3500 3001"; do
  set -- $order
  cp "$T/in.csv" "$T/nul.csv"
  sed -i -e "$1s/,0.3,/,x0.3,/" "$T/nul.csv"
  "$PY" - "$T/nul.csv" $2 <<'PYEOF'
import sys
p, n = sys.argv[1], int(sys.argv[2])
lines = open(p, "rb").read().split(b"\n")
lines[n - 1] = lines[n - 1][:10] + b"\0" + lines[n - 1][10:]
open(p, "wb").write(b"\n".join(lines))
PYEOF
  for ch in 1 500 4096 65536; do
    "$IMPACT" eval --law chatterjee-ruina --in "$T/nul.csv" --out "$T/o.csv" --chunk $ch 2> "$T/o.err"; rc=$?
    if [ $1 = 3001 ]; then want="nul.csv:3001:[0-9]*: expected a number"; else want="nul.csv:3001:11: NUL byte"; fi
    check "bad cell at line $1, NUL at line $2, chunk $ch: the first in the file" \
      '[ $rc -eq 1 ] && grep -q "$want" "$T/o.err" && [ ! -e "$T/o.csv" ]'
  done
done

# a table that cannot be written leaves no timeline; a timeline that cannot be written fails first
rm -f "$T/tl.csv"
"$IMPACT" eval --law newton --in "$T/in.csv" --out /dev/full --timeline "$T/tl.csv" 2> "$T/o.err"; rc=$?
check "table to /dev/full: exit 2, no timeline" '[ $rc -eq 2 ] && [ ! -e "$T/tl.csv" ]'
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o.csv" --timeline "$T/no/such/dir/tl.csv" 2> "$T/o.err"; rc=$?
check "timeline in a missing folder: fails, no table" '[ $rc -ne 0 ] && [ ! -e "$T/o.csv" ]'

# 4. bad options
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o.csv" --pipeline 0 2> "$T/o.err"; rc=$?
check "--pipeline 0 refused" '[ $rc -ne 0 ] && grep -q "pipeline must be between 1 and 8" "$T/o.err"'
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o.csv" --pipeline 9 2> "$T/o.err"; rc=$?
check "--pipeline 9 refused" '[ $rc -ne 0 ] && grep -q "pipeline must be between 1 and 8" "$T/o.err"'
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o.csv" --timeline "$T/o.csv" 2> "$T/o.err"; rc=$?
check "--timeline on --out refused" '[ $rc -ne 0 ] && grep -q "timeline must name a file of its own" "$T/o.err"'
# the same file under other names, existing or not: ./, sub/../, its absolute path, a link to it
# (dangling), a hard link
mkdir -p "$T/sub" && rm -f "$T/r.csv" && ln -sf r.csv "$T/lnk.csv"
for tl in "./r.csv" "sub/../r.csv" "$T/r.csv" "lnk.csv"; do
  (cd "$T" && "$IMPACT" eval --law newton --in in.csv --out r.csv --timeline "$tl" 2> o.err); rc=$?
  check "--timeline $tl on --out r.csv (not yet written) refused, nothing written" '[ $rc -eq 2 ] && grep -q "timeline must name a file of its own" "$T/o.err" && [ ! -e "$T/r.csv" ]'
done
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/r.csv" -q && ln "$T/r.csv" "$T/hard.csv"
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/r.csv" --timeline "$T/hard.csv" 2> "$T/o.err"; rc=$?
check "--timeline a hard link of --out refused" '[ $rc -eq 2 ] && grep -q "timeline must name a file of its own" "$T/o.err"'
# --pipeline -1 is a negative value like any other (no hidden "not given")
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o1.csv" --pipeline -1 2> "$T/o.err"; rc=$?
check "--pipeline -1 refused (exit 2), nothing written" '[ $rc -eq 2 ] && grep -q "pipeline must be between 1 and 8" "$T/o.err" && [ ! -e "$T/o1.csv" ]'
# both files or neither: a timeline that cannot be written leaves no results table
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o8.csv" --timeline /dev/full 2> "$T/o.err"; rc=$?
check "--timeline /dev/full: exit 2, no results table either" '[ $rc -eq 2 ] && grep -q "/dev/full: write failed" "$T/o.err" && [ ! -e "$T/o8.csv" ]'
printf 'V0x,mu\n-1,0.3\n' > "$T/ball.csv"
"$IMPACT" eval --law newton --scenario ball --in "$T/ball.csv" --out "$T/o.csv" --pipeline 2 2> "$T/o.err"; rc=$?
check "--pipeline with --scenario refused" '[ $rc -ne 0 ] && grep -q "pipeline: a --scenario table" "$T/o.err"'

# the depth is lowered so that at most max(chunk, 2^21) rows are in flight (engine::pipeline_depth)
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/o.csv" --chunk 1048576 --pipeline 8 2> "$T/o.err"; rc=$?
check "chunk 2^20 at depth 8 runs 2 deep" '[ $rc -eq 0 ] && grep -q "pipeline: 1 chunk (5000 rows), 2 in flight" "$T/o.err"'

finish
