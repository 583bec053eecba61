#!/usr/bin/env bash
# Runs over several processes (host/dist, docs/distributed.md): `mpirun -n K impact reduce` gives
# the single process's summary bit for bit (counts, moments, histograms) for K = 2 and 3 (uneven
# splits, chunks handed out dynamically), on a shard with --first too, and reports each process's
# share; the other commands refuse to run distributed, saying so. Skipped (77) when impact was
# built without MPI or mpirun is missing.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh") || exit 1
if ! command -v mpirun > /dev/null || ! ldd "$IMPACT" 2> /dev/null | grep -q libmpi; then
  echo "SKIPPED: impact built without MPI or no mpirun (scripts/bootstrap.sh installs Open MPI)"
  exit 77
fi
# CI runs as root; two cores: oversubscribe
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=(mpirun --oversubscribe -n)


for args in "--law jia --n 60000 --chunk 4096" "--law chatterjee-ruina --n 300000 --chunk 16384 --precision float" \
            "--law stronge --n 40000 --chunk 3000 --first 123457 --scenario ball"; do
  # shellcheck disable=SC2086
  "$IMPACT" reduce $args --backend omp --out "$T/one.json" -q 2> "$T/err"; rc=$?
  check "single process ($args) exits 0" '[ $rc -eq 0 ] && ! grep -q "\"processes\"" "$T/one.json"'
  for K in 2 3; do
    # shellcheck disable=SC2086
    "${MPIRUN[@]}" $K "$IMPACT" reduce $args --backend omp --out "$T/k$K.json" -q > "$T/out" 2> "$T/err"; rc=$?
    check "mpirun -n $K ($args): exit 0, one JSON" '[ $rc -eq 0 ] && [ -s "$T/k$K.json" ]'
    check "mpirun -n $K ($args): the single process's summary, bit for bit" 'same_summary "$T/one.json" "$T/k$K.json"'
    "$PY" - "$T/k$K.json" "$K" <<'EOF' 2> "$T/pyerr"; rc=$?
import json, sys
d, K = json.load(open(sys.argv[1])), int(sys.argv[2])
p = d["processes"]
assert len(p) == K, p
assert sum(x["instances"] for x in p) == d["n"], p
chunks = -(-d["n"] // d["chunk"])
assert sum(x["chunks"] for x in p) == chunks, (p, chunks)
assert d["busy_max_over_mean"] >= 1.0
EOF
    check "mpirun -n $K: every process's share reported, instances and chunks add up" '[ $rc -eq 0 ] || { cat "$T/pyerr" >&2; false; }'
  done
done

# the table on stdout reports the balance (rank 0 only prints)
"${MPIRUN[@]}" 2 "$IMPACT" reduce --law newton --n 100000 --chunk 10000 --backend omp > "$T/table" 2> "$T/err"; rc=$?
check "the table names the processes once" '[ $rc -eq 0 ] && [ $(grep -c "^impact reduce:" "$T/table") -eq 1 ] && grep -q "2 processes (chunks of 10000 handed out as they finish), busy time max/mean" "$T/table"'

# a rank that dies (SIGKILL) ends the job: non-zero exit, the launcher names the rank, no output;
# the chunks finished before are in the checkpoint and a resumed run ends with the full summary
"$IMPACT" reduce --law jia --n 60000 --chunk 2048 --backend omp --out "$T/full.json" -q
( "${MPIRUN[@]}" 2 "$IMPACT" reduce --law jia --n 60000 --chunk 2048 --backend omp --checkpoint "$T/ck" \
    --out "$T/dead.json" -q > "$T/dout" 2> "$T/derr"; echo $? > "$T/drc" ) &
for _ in $(seq 600); do [ "$(ls "$T/ck" 2> /dev/null | grep -c '^chunk-')" -ge 3 ] && break; sleep 0.05; done
for p in $(pgrep -f "reduce --law jia --n 60000 --chunk 2048 --backend omp --checkpoint $T/ck"); do
  if tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -q '^OMPI_COMM_WORLD_RANK=1$'; then kill -9 "$p"; fi
done
wait
check "a killed rank ends the job: non-zero exit naming rank 1, no output file" '[ "$(cat "$T/drc")" != 0 ] && grep -q "rank 1" "$T/derr" && [ ! -e "$T/dead.json" ]'
"${MPIRUN[@]}" 2 "$IMPACT" reduce --law jia --n 60000 --chunk 2048 --backend omp --checkpoint "$T/ck" --resume \
  --out "$T/resumed.json" -q; rc=$?
check "resumed after the dead rank: the uninterrupted summary" '[ $rc -eq 0 ] && same_summary "$T/full.json" "$T/resumed.json"'

# eval: each process a share of the lines, the table in input order, byte for byte the single
# process's (LF and CRLF files, blank lines); a bad cell is reported as one process reports it
"$IMPACT" reduce --law jia --n 9001 --cases-out "$T/cases.csv" -q > /dev/null
sed 's/$/\r/' "$T/cases.csv" | awk 'NR % 1000 == 0 { print "" } { print }' > "$T/crlf.csv"
for f in cases crlf; do
  for law in jia chatterjee-ruina; do
    "$IMPACT" eval --law $law --in "$T/$f.csv" --out "$T/e1.csv" -q
    for K in 2 3; do
      "${MPIRUN[@]}" $K "$IMPACT" eval --law $law --in "$T/$f.csv" --out "$T/e$K.csv" -q; rc=$?
      check "mpirun -n $K eval $law ($f): the single process's table byte for byte" '[ $rc -eq 0 ] && cmp -s "$T/e1.csv" "$T/e$K.csv"'
    done
  done
done
check "no share files left" '[ $(ls "$T" | grep -c "\.part") -eq 0 ]'
awk -F, 'NR == 7000 { $13 = "0.3x" } { print }' OFS=, "$T/cases.csv" > "$T/bad.csv"
"$IMPACT" eval --law jia --in "$T/bad.csv" --out "$T/b1.csv" -q 2> "$T/err1"; rc1=$?
"${MPIRUN[@]}" 3 "$IMPACT" eval --law jia --in "$T/bad.csv" --out "$T/b3.csv" -q 2> "$T/err3"; rc=$?
check "a bad cell in the last share: the single process's message (line 7000), exit non-zero, no output" '[ $rc1 -eq 1 ] && [ $rc -ne 0 ] && grep -q "bad.csv:7000:" "$T/err1" && [ "$(grep "impact: error" "$T/err3")" = "$(cat "$T/err1")" ] && [ ! -e "$T/b3.csv" ] && [ $(ls "$T" | grep -c "\.part") -eq 0 ]'
"${MPIRUN[@]}" 2 "$IMPACT" eval --law jia --in "$T/cases.csv" --out - -q > /dev/null 2> "$T/err"; rc=$?
check "eval --out - under mpirun: usage error said once" '[ $rc -eq 2 ] && [ $(grep -c "must be files" "$T/err") -eq 1 ]'

# commands that do not run distributed yet say so, on rank 0, exit 2
"${MPIRUN[@]}" 2 "$IMPACT" study "$SRC/examples/studies/jia-fig15b.toml" --dry-run > "$T/out" 2> "$T/err"; rc=$?
check "mpirun impact study: refused with a reason, once" '[ $rc -ne 0 ] && [ $(grep -c "only .impact reduce. and .impact eval. run distributed so far" "$T/err") -eq 1 ]'
# a usage error is every rank's, before any work: exit 2, no hang
timeout 60 "${MPIRUN[@]}" 2 "$IMPACT" reduce --law jia --n 1000 --range "Pn=3:1" > "$T/out" 2> "$T/err"; rc=$?
check "a usage error under mpirun ends the job (no hang)" '[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "finite LO < HI" "$T/err"'
finish
