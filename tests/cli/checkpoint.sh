#!/usr/bin/env bash
# `impact reduce --checkpoint DIR [--resume]`: a run killed (SIGKILL) half-way leaves whole chunk
# files and no output; resumed, it computes only the missing chunks and ends with the summary of an
# uninterrupted run, bit for bit; a corrupted chunk file (a flipped byte, a truncated file, a chunk of
# another run) is detected and recomputed; a folder with chunks is not reused without --resume.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh") || exit 1
A=(reduce --law jia --n 60000 --chunk 2048 --backend omp)

field() { "$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'][sys.argv[2]])" "$1" "$2"; }

"$IMPACT" "${A[@]}" --out "$T/full.json" -q; rc=$?
check "uninterrupted run exits 0" '[ $rc -eq 0 ]'

# killed after 5 chunks
"$IMPACT" "${A[@]}" --checkpoint "$T/ck" --out "$T/killed.json" -q &
pid=$!
for _ in $(seq 600); do [ "$(ls "$T/ck" 2> /dev/null | grep -c '^chunk-')" -ge 5 ] && break; sleep 0.05; done
kill -9 $pid; wait $pid 2> /dev/null
n=$(ls "$T/ck" | grep -c '^chunk-.*\.sum$')
check "the killed run left whole chunk files, no temporary, no output" '[ $n -ge 5 ] && [ $n -lt 30 ] && [ $(ls -A "$T/ck" | grep -vc "^chunk-.*\.sum$") -eq 0 ] && [ ! -e "$T/killed.json" ]'
"$IMPACT" "${A[@]}" --checkpoint "$T/ck" --out "$T/x.json" -q 2> "$T/err"; rc=$?
check "without --resume a folder with chunks is refused" '[ $rc -eq 2 ] && grep -q "holds chunks of an earlier run: add --resume" "$T/err"'
"$IMPACT" "${A[@]}" --checkpoint "$T/ck" --resume --out "$T/res.json" -q; rc=$?
check "resumed: exit 0, the uninterrupted run's summary bit for bit" '[ $rc -eq 0 ] && same_summary "$T/full.json" "$T/res.json"'
check "resumed: read back what the killed run finished" '[ "$(field "$T/res.json" chunks_loaded)" = "$n" ] && [ "$(field "$T/res.json" chunks_corrupt)" = 0 ]'

# corruption: a flipped byte, a truncated file, another run's chunk under this name
printf '\xff' | dd of="$T/ck/chunk-3.sum" bs=1 seek=200 conv=notrunc status=none
head -c 100 "$T/ck/chunk-7.sum" > "$T/t" && mv "$T/t" "$T/ck/chunk-7.sum"
"$IMPACT" reduce --law jia --n 60000 --chunk 2048 --backend omp --seed 2 --checkpoint "$T/ck2" --out /dev/null -q
cp "$T/ck2/chunk-9.sum" "$T/ck/chunk-9.sum"
"$IMPACT" "${A[@]}" --checkpoint "$T/ck" --resume --out "$T/res2.json" -q; rc=$?
check "corrupt chunks detected (3) and recomputed: the same summary" '[ $rc -eq 0 ] && [ "$(field "$T/res2.json" chunks_corrupt)" = 3 ] && same_summary "$T/full.json" "$T/res2.json"'
check "after that every chunk is read back" '"$IMPACT" "${A[@]}" --checkpoint "$T/ck" --resume --out "$T/res3.json" -q && [ "$(field "$T/res3.json" chunks_loaded)" = 30 ] && same_summary "$T/full.json" "$T/res3.json"'
"$IMPACT" "${A[@]}" --resume --out /dev/null -q 2> "$T/err"; rc=$?
check "--resume without --checkpoint: usage error" '[ $rc -eq 2 ] && grep -q "resume needs --checkpoint" "$T/err"'

# under mpirun (when built with MPI): a single process's interrupted run resumed by 3 processes
if command -v mpirun > /dev/null && ldd "$IMPACT" 2> /dev/null | grep -q libmpi; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  rm -f "$T"/ck/chunk-1[0-9].sum
  mpirun --oversubscribe -n 3 "$IMPACT" "${A[@]}" --checkpoint "$T/ck" --resume --out "$T/mpi.json" -q; rc=$?
  check "mpirun -n 3 --resume: the uninterrupted summary; 20 chunks read back by the ranks together" '[ $rc -eq 0 ] && same_summary "$T/full.json" "$T/mpi.json" && [ "$(field "$T/mpi.json" chunks_loaded)" = 20 ]'
fi
finish
