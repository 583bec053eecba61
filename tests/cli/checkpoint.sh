#!/usr/bin/env bash
# `impact reduce --checkpoint DIR [--resume]` and `impact study --checkpoint DIR [--resume]`: a run
# killed (SIGKILL) half-way leaves whole chunk (piece) files and no output; resumed, it computes only
# the missing ones and ends with the outputs of an uninterrupted run, bit for bit. For reduce: a run
# killed (SIGKILL) half-way leaves whole chunk
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

# ---- impact study --checkpoint DIR [--resume]: the study in pieces, each finished piece's
# statistics kept with a CRC and its part of every table in the output folder
S=(study "$SRC/examples/studies/pencil-mc.toml" --set design.n=12000 --set run.chunk=1000 --backend omp --no-plots -q)
"$IMPACT" "${S[@]}" --out "$T/sfull"; rc=$?
check "study: uninterrupted, as one process, exits 0" '[ $rc -eq 0 ] && [ -s "$T/sfull/metadata.json" ]'
"$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck0" --out "$T/sck0.out"; rc=$?
check "study --checkpoint: the uninterrupted folder byte for byte, 12 pieces kept" '[ $rc -eq 0 ] && same_tree "$T/sfull" "$T/sck0.out" && [ $(ls "$T/sck0" | grep -c "^piece-.*\.sum$") -eq 12 ]'
"$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck0" --out "$T/sck0.out" 2> "$T/err"; rc=$?
check "study: without --resume a checkpoint with pieces is refused" '[ $rc -eq 2 ] && grep -q "holds pieces of an earlier run: add --resume" "$T/err"'
"$IMPACT" "${S[@]}" --resume --out "$T/x" 2> "$T/err"; rc=$?
check "study: --resume without --checkpoint is a usage error" '[ $rc -eq 2 ] && grep -q "needs --checkpoint" "$T/err"'

# killed (SIGKILL) after 3 pieces: no metadata.json; resumed: only the missing pieces computed
"$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck" --out "$T/sk" &
pid=$!
for _ in $(seq 1200); do [ "$(ls "$T/sck" 2> /dev/null | grep -c '^piece-')" -ge 3 ] && break; sleep 0.05; done
kill -9 $pid; wait $pid 2> /dev/null
n=$(ls "$T/sck" | grep -c '^piece-.*\.sum$')
check "study killed: whole piece files, no metadata.json, no parts.json" '[ $n -ge 3 ] && [ $n -lt 12 ] && [ ! -e "$T/sk/metadata.json" ] && [ ! -e "$T/sk/parts.json" ]'
"$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck" --resume --out "$T/sk" > /dev/null; rc=$?
check "study resumed: the uninterrupted folder byte for byte, no part or temporary left" '[ $rc -eq 0 ] && same_tree "$T/sfull" "$T/sk" && [ $(find "$T/sk" -name "*.part-*" | wc -l) -eq 0 ]'
"$PY" -c "import json,sys; n=[x for x in json.load(open(sys.argv[1]))['notes'] if 'read back' in x]; sys.exit(not (n and ('read back from the checkpoint: %s pieces, 0 bad' % sys.argv[2]) in n[0]))" "$T/sk/metadata.json" "$n"; rc=$?
check "study resumed: metadata says $n pieces were read back, none bad" '[ $rc -eq 0 ]'
"$PY" -c "import json,sys; a,b=(json.load(open(f))['summary'] for f in sys.argv[1:]); [d[l].pop(k) for d in (a,b) for l in d for k in ('law_seconds','instances_per_s')]; sys.exit(a!=b)" "$T/sfull/metadata.json" "$T/sk/metadata.json"; rc=$?
check "study resumed: the statistics bit for bit" '[ $rc -eq 0 ]'

# a corrupted piece file (a flipped byte) and a part file cut short: both pieces recomputed
"$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck2" --keep-parts --out "$T/sk2" > /dev/null
"$PY" -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(b)" "$T/sck2/piece-4.sum"
truncate -s -10 "$T/sk2/jia.part-00007.npy"
rm "$T/sk2/metadata.json"
"$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck2" --resume --out "$T/sk2" > /dev/null; rc=$?
check "study: a flipped byte in a piece file and a part cut short are recomputed; the folder byte for byte" '[ $rc -eq 0 ] && same_tree "$T/sfull" "$T/sk2" && grep -q "read back from the checkpoint: 10 pieces, 1 bad files recomputed, 1 recomputed for parts missing or changed" "$T/sk2/metadata.json"'

# the key: an imported design whose file changed after the kill (same rows, other values) and a
# resume with another --piece compute every piece again; parts of the earlier pieces are removed
"$IMPACT" "${S[@]}" --out "$T/dsrc" > /dev/null
head -n 3001 "$T/dsrc/design.txt" > "$T/d1.txt"
I=(study "$SRC/examples/studies/pencil-mc.toml" --set 'design.kind="imported"' --set "design.file=\"$T/d1.txt\"" --backend omp --no-plots -q)
"$IMPACT" "${I[@]}" --piece 1024 --checkpoint "$T/ick" --out "$T/io" > /dev/null
rm "$T/io/metadata.json"
"$PY" -c "import sys; L=open(sys.argv[1]).read().split('\n'); L[5]=' '.join(str(float(x)*1.01) for x in L[5].split()); open(sys.argv[1],'w').write('\n'.join(L))" "$T/d1.txt"
"$IMPACT" "${I[@]}" --out "$T/iref" > /dev/null
"$IMPACT" "${I[@]}" --piece 1024 --checkpoint "$T/ick" --resume --out "$T/io" > /dev/null; rc=$?
check "study: the design file changed before --resume: every piece recomputed, the new file's folder" '[ $rc -eq 0 ] && same_tree "$T/iref" "$T/io" && grep -q "read back from the checkpoint: 0 pieces, 3 bad files recomputed" "$T/io/metadata.json"'
"$IMPACT" "${I[@]}" --piece 2048 --checkpoint "$T/ick" --resume --out "$T/io" > /dev/null; rc=$?
check "study: --resume with another --piece: recomputed, no part of the earlier pieces left" '[ $rc -eq 0 ] && same_tree "$T/iref" "$T/io" && [ $(find "$T/io" -name "*.part-*" | wc -l) -eq 0 ]'
"$IMPACT" "${I[@]}" --piece 18446744073709551615 --checkpoint "$T/ick2" --out "$T/io2" > /dev/null; rc=$?
check "study: --piece 2^64-1 is one piece of the whole design" '[ $rc -eq 0 ] && same_tree "$T/iref" "$T/io2" && grep -q "1 pieces of 3000 rows" "$T/io2/metadata.json"'

if command -v mpirun > /dev/null && ldd "$IMPACT" 2> /dev/null | grep -q libmpi; then
  # the pieces do not depend on the number of processes: a single process's checkpoint finished by 3
  rm -rf "$T/sk" && rm -f "$T"/sck/piece-[5-9].sum
  mpirun --oversubscribe -n 3 "$IMPACT" "${S[@]}" --piece 1024 --checkpoint "$T/sck" --resume --out "$T/sk" > /dev/null; rc=$?
  check "study: mpirun -n 3 --resume of a single process's checkpoint (parts gone: recomputed): byte for byte" '[ $rc -eq 0 ] && same_tree "$T/sfull" "$T/sk"'
fi
finish
