#!/usr/bin/env bash
# Nothing mixed, nothing stale (stale, foreign and swapped parts, killed runs' leftovers, and their
# variants): a study owns its output folder (an earlier study's files go, a folder that is not a
# study's is refused without --force), a part or checkpoint piece is tied to its run and position by
# the CRC-32 of its bytes (foreign or swapped parts of the same size are recomputed on --resume and
# refused by --merge), and what a killed run left (parts, temporaries) is removed by the next run,
# of `impact study` and of `impact eval`.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh" numpy) || exit 1
export OMP_NUM_THREADS=2
S=(study "$SRC/examples/studies/pencil-mc.toml" --set run.chunk=1000 --backend omp --no-plots -q)
files() { (cd "$1" && find . -type f ! -name '.impactbatch-outputs.json' | sed 's|^\./||' | sort | tr '\n' ' '); }

# ---- (a) a second study in the same folder leaves only its own files (study-stale-outputs) --------
"$IMPACT" "${S[@]}" --set design.n=3000 --set 'study.laws=["jia","stronge"]' \
  --set 'output.formats=["csv","npy","salib"]' --out "$T/S"
"$IMPACT" "${S[@]}" --set design.n=500 --set design.seed=9 --set 'output.formats=["npy"]' --out "$T/S"; rc=$?
check "a second study into the folder: exit 0, only its own files (jia.npy, stronge.npy, summary, metadata)" \
  '[ $rc -eq 0 ] && [ "$(files "$T/S")" = "jia.npy metadata.json stronge.npy summary.md " ] && [ ! -d "$T/S/salib" ]'
"$IMPACT" "${S[@]}" --set design.n=500 --set design.seed=9 --set 'output.formats=["npy"]' --out "$T/S1"
check "... byte for byte the tables of the same study in a new folder" 'cmp -s "$T/S/jia.npy" "$T/S1/jia.npy" && cmp -s "$T/S/stronge.npy" "$T/S1/stronge.npy"'
"$PY" -c "import json,sys; n=json.load(open(sys.argv[1]))['notes']; sys.exit(not any('of an earlier run removed' in x for x in n))" "$T/S/metadata.json"; rc=$?
check "... and its metadata notes the earlier files it removed" '[ $rc -eq 0 ]'

# a user's own file in a study's folder stays
echo "my notes" > "$T/S/notes.txt"
"$IMPACT" "${S[@]}" --set design.n=500 --out "$T/S"; rc=$?
check "a file the study did not write (notes.txt) is left alone" '[ $rc -eq 0 ] && [ "$(cat "$T/S/notes.txt")" = "my notes" ]'

# a folder without a manifest is no study's, whatever it holds: one from before manifests (its
# metadata.json lists its files) is refused, and with --force only this run's names are replaced
"$IMPACT" "${S[@]}" --set design.n=500 --set 'output.formats=["csv","npy","salib"]' --out "$T/old"
rm "$T/old/.impactbatch-outputs.json"
before=$(files "$T/old")
"$IMPACT" "${S[@]}" --set design.n=500 --set 'output.formats=["npy"]' --out "$T/old" 2> "$T/err"; rc=$?
check "a study folder without a manifest (its metadata.json lists its files): refused, every file kept" \
  '[ $rc -eq 1 ] && grep -q "no impactbatch study wrote there" "$T/err" && [ "$(files "$T/old")" = "$before" ]'
"$IMPACT" "${S[@]}" --set design.n=500 --set 'output.formats=["npy"]' --out "$T/old" --force; rc=$?
check "... with --force: its own names replaced, the earlier tables of other names kept" \
  '[ $rc -eq 0 ] && [ "$(files "$T/old")" = "$before" ] && [ -s "$T/old/jia.csv" ] && [ -d "$T/old/salib" ]'

# a folder that is not a study's: refused, unless --force (then only this study's names are replaced)
mkdir -p "$T/data" && echo "x,y" > "$T/data/measurements.csv" && echo 1 > "$T/data/jia.csv"
"$IMPACT" "${S[@]}" --set design.n=500 --out "$T/data" 2> "$T/err"; rc=$?
check "a non-empty folder that is not a study's is refused (exit 1, names its files, says --force)" \
  '[ $rc -eq 1 ] && grep -q "output.dir: .*data holds 2 file(s) that no impactbatch study wrote there (jia.csv, measurements.csv)" "$T/err" && grep -q -- "--force" "$T/err" && [ "$(cat "$T/data/jia.csv")" = 1 ]'
"$IMPACT" "${S[@]}" --set design.n=500 --out "$T/data" --force; rc=$?
check "--force writes into it: the study's files written, the other file kept" \
  '[ $rc -eq 0 ] && [ -s "$T/data/metadata.json" ] && [ "$(cat "$T/data/measurements.csv")" = "x,y" ] && [ "$(wc -l < "$T/data/jia.csv")" = 501 ]'
"$IMPACT" "${S[@]}" --set design.n=500 --out "$T/data"; rc=$?
check "... after which the folder is a study's (no --force needed), the other file still kept" '[ $rc -eq 0 ] && [ -s "$T/data/measurements.csv" ]'
mkdir -p "$T/empty"
"$IMPACT" "${S[@]}" --set design.n=500 --out "$T/empty"; rc=$?
check "an empty existing folder is taken" '[ $rc -eq 0 ] && [ -s "$T/empty/metadata.json" ]'

# ---- (b) what a killed run left is removed by the next (single-process) run -----------------------
# (a run in pieces lists its parts in its manifest, written before its first part: a killed one is
# the same folder as a run that kept its parts, less what it had not written yet)
"$IMPACT" "${S[@]}" --set design.n=2000 --set 'output.formats=["csv","npy","salib"]' --piece 512 \
  --checkpoint "$T/Kck" --keep-parts --out "$T/K"
dead=2147480000  # a pid no process has
while kill -0 $dead 2> /dev/null; do dead=$((dead - 1)); done
touch "$T/K/.jia.csv.tmp-$dead-4" "$T/K/.jia.part-00001.npy.tmp-$dead-2" "$T/K/salib/.jia_P_n.part-00002.txt.tmp-$dead-0"
rm "$T/K/metadata.json"
echo mine > "$T/K/jia.part-00099.npy" && echo mine > "$T/K/notes.part-00001.csv"  # no run's: unlisted
"$IMPACT" "${S[@]}" --set design.n=2000 --out "$T/K"; rc=$?
check "parts, parts.json and temporaries of a killed run are removed by a single-process rerun, unlisted names kept" \
  '[ $rc -eq 0 ] && [ "$(cd "$T/K" && find . -name "*part*" | sort | tr "\n" " ")" = "./jia.part-00099.npy ./notes.part-00001.csv " ] && [ $(find "$T/K" -name ".*tmp*" | wc -l) -eq 0 ]'
rm "$T/K/jia.part-00099.npy" "$T/K/notes.part-00001.csv"
"$IMPACT" "${S[@]}" --set design.n=2000 --out "$T/K0"
check "... and the folder is then the uninterrupted run's" 'same_tree "$T/K0" "$T/K"'

# a study killed by SIGKILL half-way: the next run leaves nothing of it
"$IMPACT" "${S[@]}" --set design.n=200000 --set 'output.formats=["csv","npy","salib"]' --out "$T/KK" &
pid=$!
for _ in $(seq 400); do [ -n "$(ls -A "$T/KK" 2> /dev/null | grep tmp)" ] && break; sleep 0.05; done
kill -9 $pid; wait $pid 2> /dev/null
check "SIGKILL: the killed study left its manifest (and no metadata.json)" '[ -s "$T/KK/.impactbatch-outputs.json" ] && [ ! -e "$T/KK/metadata.json" ]'
"$IMPACT" "${S[@]}" --set design.n=500 --set 'output.formats=["npy"]' --out "$T/KK"; rc=$?
check "... the next study removes its temporaries and tables" \
  '[ $rc -eq 0 ] && [ "$(files "$T/KK")" = "jia.npy metadata.json stronge.npy summary.md " ]'

# ---- (c) checkpoint pieces and parts are tied to their run and position (CRC-32 of the bytes) ----
N=(--set design.n=12000)
P=(--set design.n=12000 --piece 1024)
"$IMPACT" "${S[@]}" "${N[@]}" --out "$T/refA"
"$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/ckA" --keep-parts --out "$T/A"
"$IMPACT" "${S[@]}" "${P[@]}" --set design.seed=2 --checkpoint "$T/ckB" --keep-parts --out "$T/B"
# study-resume-foreign-parts: study B's parts (same sizes: the same study but the seed) under A's names
for k in 00002 00005; do cp "$T/B/jia.part-$k.npy" "$T/A/jia.part-$k.npy"; cp "$T/B/stronge.part-$k.npy" "$T/A/stronge.part-$k.npy"; done
check "the foreign parts have the sizes of A's own (so a size check cannot tell)" \
  '[ $(stat -c %s "$T/A/jia.part-00002.npy") = $(stat -c %s "$T/B/jia.part-00002.npy") ]'
"$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/ckA" --resume --out "$T/A"; rc=$?
check "study-resume-foreign-parts: --resume recomputes the 2 pieces with B's parts; A's table byte for byte" \
  '[ $rc -eq 0 ] && same_tree "$T/refA" "$T/A" && grep -q "read back from the checkpoint: 10 pieces, 0 bad files recomputed, 2 recomputed for parts missing or changed" "$T/A/metadata.json"'
# two of A's own parts swapped (a part of the right run, the wrong position)
"$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/ckA2" --keep-parts --out "$T/A2"
mv "$T/A2/jia.part-00001.npy" "$T/x" && mv "$T/A2/jia.part-00004.npy" "$T/A2/jia.part-00001.npy" && mv "$T/x" "$T/A2/jia.part-00004.npy"
"$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/ckA2" --resume --out "$T/A2"; rc=$?
check "two of the run's own parts swapped: both pieces recomputed, byte for byte" \
  '[ $rc -eq 0 ] && same_tree "$T/refA" "$T/A2" && grep -q "2 recomputed for parts missing or changed" "$T/A2/metadata.json"'

# merge-swapped-parts: --merge refuses swapped parts (npy and csv), merges nothing; restored, it merges
M=(--set 'output.formats=["csv","npy"]')
"$IMPACT" "${S[@]}" "${N[@]}" "${M[@]}" --out "$T/mref"
"$IMPACT" "${S[@]}" "${P[@]}" "${M[@]}" --checkpoint "$T/mck" --keep-parts --out "$T/KP"
cp -r "$T/KP" "$T/KPsaved"
for ext in npy csv; do
  mv "$T/KP/jia.part-00001.$ext" "$T/x" && mv "$T/KP/jia.part-00002.$ext" "$T/KP/jia.part-00001.$ext" && mv "$T/x" "$T/KP/jia.part-00002.$ext"
done
"$IMPACT" study --merge "$T/KP" --no-plots -q 2> "$T/err"; rc=$?
check "merge-swapped-parts: --merge refuses (exit 2), names the part, nothing merged or removed" \
  '[ $rc -eq 2 ] && grep -q "jia.part-00001.*not the part parts.json lists as part 1" "$T/err" && [ ! -e "$T/KP/jia.npy" ] && [ ! -e "$T/KP/jia.csv" ] && [ -e "$T/KP/parts.json" ] && [ $(ls "$T/KP" | grep -c part-) -eq $(ls "$T/KPsaved" | grep -c part-) ]'
for ext in npy csv; do
  mv "$T/KP/jia.part-00001.$ext" "$T/x" && mv "$T/KP/jia.part-00002.$ext" "$T/KP/jia.part-00001.$ext" && mv "$T/x" "$T/KP/jia.part-00002.$ext"
done
cp "$T/KP/jia.part-00003.npy" "$T/KP/jia.part-00099.npy"  # a part parts.json does not list: a gap
"$IMPACT" study --merge "$T/KP" --no-plots -q 2> "$T/err"; rc=$?
check "a part beyond those parts.json lists: --merge refuses (exit 2), names it, nothing merged or removed" \
  '[ $rc -eq 2 ] && grep -q "jia.part-00099.npy is part 99 of jia.npy, beyond the .* parts listed" "$T/err" && [ ! -e "$T/KP/jia.npy" ] && [ -e "$T/KP/jia.part-00099.npy" ]'
rm "$T/KP/jia.part-00099.npy"
"$IMPACT" study --merge "$T/KP" --no-plots > "$T/out"; rc=$?
check "restored: --merge gives the one-process tables byte for byte, no part left" \
  '[ $rc -eq 0 ] && cmp -s "$T/mref/jia.npy" "$T/KP/jia.npy" && cmp -s "$T/mref/jia.csv" "$T/KP/jia.csv" && [ $(find "$T/KP" -name "*part*" | wc -l) -eq 0 ]'
# a part changed in place (same size, one byte): refused
cp -r "$T/KPsaved" "$T/KP2"
"$PY" -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-3]^=1; open(p,'wb').write(b)" "$T/KP2/stronge.part-00006.csv"
"$IMPACT" study --merge "$T/KP2" --no-plots -q 2> "$T/err"; rc=$?
check "a part with one byte changed: --merge refuses naming it" '[ $rc -eq 2 ] && grep -q "stronge.part-00006.csv: not the part" "$T/err" && [ ! -e "$T/KP2/stronge.csv" ]'

# design-crc-second-read: the key holds the CRC-32 of the bytes the rows came from (one read). A FIFO
# gives the design once (V0x -1, mu 0.3), then other bytes to any second reader: the resume with a
# file of those other bytes must recompute, not read back the rows of the first
cat > "$T/fifo.toml" <<EOF
[study]
name = "imp"
scenario = "ball"
laws = ["chatterjee-ruina"]
[run]
backend = "serial"
[design]
kind = "imported"
file = "$T/F.txt"
[output]
formats = ["npy"]
EOF
mkfifo "$T/F.txt"
( printf 'V0x mu\n-1 0.3\n' > "$T/F.txt"; sleep 0.5; printf 'V0x mu\n-2 0.9\n' > "$T/F.txt" ) &
writer=$!
"$IMPACT" study "$T/fifo.toml" --out "$T/OF" -q --no-plots --checkpoint "$T/ckF" --keep-parts; rc1=$?
kill $writer 2> /dev/null; wait $writer 2> /dev/null
rm -f "$T/F.txt" && printf 'V0x mu\n-2 0.9\n' > "$T/F.txt"
"$IMPACT" study "$T/fifo.toml" --out "$T/OF" -q --no-plots --checkpoint "$T/ckF" --resume; rc=$?
row=$("$PY" -c "import numpy as np,sys; a=np.load(sys.argv[1]); print(a['V0x'][0], a['mu'][0])" "$T/OF/chatterjee-ruina.npy")
check "design-crc-second-read: the design changed before --resume: recomputed, the table has the new file's row" \
  '[ $rc1 -eq 0 ] && [ $rc -eq 0 ] && [ "$row" = "-2.0 0.9" ] && grep -q "read back from the checkpoint: 0 pieces, 1 bad files recomputed" "$T/OF/metadata.json"'

# checkpoint-file-not-regular: a piece file that is a link to /dev/zero, or a folder: an error naming it
"$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/zck" --out "$T/Z"
rm "$T/zck/piece-5.sum" && ln -s /dev/zero "$T/zck/piece-5.sum"
(ulimit -v 4000000; timeout 60 "$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/zck" --resume --out "$T/Z" 2> "$T/err"); rc=$?
check "study: a piece file linked to /dev/zero: an error naming it, at once, no metadata" \
  '[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "piece-5.sum: not a regular file" "$T/err" && [ ! -e "$T/Z/metadata.json" ]'
rm "$T/zck/piece-5.sum" && mkdir "$T/zck/piece-5.sum"
"$IMPACT" "${S[@]}" "${P[@]}" --checkpoint "$T/zck" --resume --out "$T/Z" 2> "$T/err"; rc=$?
check "study: a piece file that is a folder: an error naming it" '[ $rc -ne 0 ] && grep -q "piece-5.sum: not a regular file" "$T/err"'
R=(reduce --law newton --n 20000 --chunk 1000 --backend serial -q)
"$IMPACT" "${R[@]}" --checkpoint "$T/rck" --out "$T/r1.json"
rm "$T/rck/chunk-5.sum" && ln -s /dev/zero "$T/rck/chunk-5.sum"
(ulimit -v 2000000; timeout 60 "$IMPACT" "${R[@]}" --checkpoint "$T/rck" --resume --out "$T/r2.json" 2> "$T/err"); rc=$?
check "reduce: a chunk file linked to /dev/zero: an error naming it, at once" \
  '[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "chunk-5.sum: not a regular file" "$T/err" && [ ! -e "$T/r2.json" ]'
rm "$T/rck/chunk-5.sum" && mkdir "$T/rck/chunk-5.sum"
"$IMPACT" "${R[@]}" --checkpoint "$T/rck" --resume --out "$T/r2.json" 2> "$T/err"; rc=$?
check "reduce: a chunk file that is a folder: an error naming it" '[ $rc -ne 0 ] && grep -q "chunk-5.sum: not a regular file" "$T/err"'
rmdir "$T/rck/chunk-5.sum"
"$IMPACT" "${R[@]}" --checkpoint "$T/rck" --resume --out "$T/r3.json"; rc=$?
check "reduce: with the folder gone the chunk is recomputed, the same summary" '[ $rc -eq 0 ] && same_summary "$T/r1.json" "$T/r3.json"'

# ---- (d) impact eval: what a killed run left beside OUT goes, a live writer's temporary stays ----
head -n 50 "$SRC/examples/cases.csv" > "$T/in.csv"
echo mine > "$T/res.csv.part1"  # a user's file named like a share: its name proves nothing
touch "$T/.res.csv.part1.tmp-$dead-0" "$T/.res.csv.tmp-$dead-7" "$T/.res.csv.tmp-$$-1"
"$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/res.csv" -q; rc=$?
check "eval: temporaries of a killed run removed; a running process's temporary and a share-like file kept" \
  '[ $rc -eq 0 ] && [ -s "$T/res.csv" ] && [ ! -e "$T/.res.csv.part1.tmp-$dead-0" ] && [ ! -e "$T/.res.csv.tmp-$dead-7" ] && [ -e "$T/.res.csv.tmp-$$-1" ] && [ "$(cat "$T/res.csv.part1")" = mine ]'
rm "$T/res.csv.part1"

if command -v mpirun > /dev/null && ldd "$IMPACT" 2> /dev/null | grep -q libmpi; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  echo mine > "$T/m.csv.part1"  # a user's file named like the shares of old: kept, never read
  touch "$T/.m.csv.part1.tmp-$dead-0"
  mpirun --oversubscribe -n 2 "$IMPACT" eval --law newton --in "$T/in.csv" --out "$T/m.csv" -q; rc=$?
  check "mpirun eval: a killed run's shares removed, this run's merged and removed, a user's file kept" \
    '[ $rc -eq 0 ] && cmp -s "$T/m.csv" "$T/res.csv" && [ "$(ls -A "$T" | grep "m.csv.part")" = "m.csv.part1" ] && [ "$(cat "$T/m.csv.part1")" = mine ]'
  rm "$T/m.csv.part1"
  # a killed mpirun study, then a single-process run in the same folder (study-stale-outputs b)
  mpirun --oversubscribe -n 2 "$IMPACT" "${S[@]}" "${P[@]}" --keep-parts --out "$T/MK" > /dev/null
  touch "$T/MK/.jia.part-00003.npy.tmp-$dead-2"
  rm "$T/MK/metadata.json"
  "$IMPACT" "${S[@]}" --set design.n=12000 --out "$T/MK"; rc=$?
  check "a single-process study after an mpirun study's parts: no part or temporary left, the one-process folder" \
    '[ $rc -eq 0 ] && [ $(find "$T/MK" -name "*part*" | wc -l) -eq 0 ] && [ $(find "$T/MK" -name ".*tmp*" | wc -l) -eq 0 ] && same_tree "$T/refA" "$T/MK"'
fi
# ---- (e) the folder rule end to end (resume/owned_folder.hpp; the property test is FolderRule.*) ------
F=(study "$SRC/examples/studies/jia-fig15c.toml" --no-plots -q)
# an empty or blank folder name: a usage or config error, never the filesystem's root
"$IMPACT" "${F[@]}" --out "" 2> "$T/err"; rc=$?
check "--out \"\": exit 2, an empty folder name" '[ $rc -eq 2 ] && grep -q "an empty folder name" "$T/err"'
"$IMPACT" study --merge "" 2> "$T/err"; rc=$?
check "--merge \"\": exit 2, an empty folder name" '[ $rc -eq 2 ] && grep -q "merge: an empty folder name" "$T/err"'
"$IMPACT" "${F[@]}" --set 'output.dir=""' 2> "$T/err"; rc=$?
check "output.dir = \"\": exit 1 naming the key" '[ $rc -eq 1 ] && grep -q "output.dir: an empty folder name" "$T/err"'
"$IMPACT" "${F[@]}" --set 'output.dir=""' --dry-run > /dev/null 2> "$T/err"; rc=$?
check "... and --dry-run says so too" '[ $rc -eq 1 ] && grep -q "output.dir: an empty folder name" "$T/err"'
# salib/ linked to a shared folder: nothing there removed, the link kept
mkdir -p "$T/shared" && echo "someone else's split file" > "$T/shared/results.part-00001.csv"
"$IMPACT" "${F[@]}" --out "$T/La" && ln -s ../shared "$T/La/salib"
"$IMPACT" "${F[@]}" --out "$T/La"; rc=$?
check "a salib/ link: the shared folder's files and the link stay" '[ $rc -eq 0 ] && [ -s "$T/shared/results.part-00001.csv" ] && [ -L "$T/La/salib" ]'
# a manifest naming a file through a link: refused, naming the entry, the file outside kept
mkdir -p "$T/outside" "$T/Lb" && echo victim > "$T/outside/victim.txt" && ln -s ../outside "$T/Lb/lnk"
printf '{"impactbatch_outputs":1,"files":["lnk/victim.txt","parts.json"]}\n' > "$T/Lb/.impactbatch-outputs.json"
"$IMPACT" "${F[@]}" --out "$T/Lb" 2> "$T/err"; rc=$?
check "a manifest entry lnk/victim.txt: refused naming it, the file outside kept" \
  '[ $rc -eq 1 ] && grep -q "lists .lnk/victim.txt." "$T/err" && [ "$(cat "$T/outside/victim.txt")" = victim ]'
# the output folder a link: refused, naming its target
ln -s "$T/La" "$T/Lc"
"$IMPACT" "${F[@]}" --out "$T/Lc" 2> "$T/err"; rc=$?
check "an output folder that is a link: refused" '[ $rc -eq 1 ] && grep -q "Lc is a link (to $T/La)" "$T/err"'
# a running eval writing into a study's folder: its temporary is no name of the study's, left
# alone, and the eval's table is whole; a running process's temporary of one of the study's own
# names refuses the study, naming the process
{ head -1 "$SRC/examples/cases.csv"; for _ in $(seq 60); do tail -n +2 "$SRC/examples/cases.csv"; done; } > "$T/big.csv"
"$IMPACT" "${F[@]}" --out "$T/Ld"
"$IMPACT" eval --law jia --steps 400 --in "$T/big.csv" --out "$T/Ld/x.csv" --backend serial --pipeline 1 -q & ev=$!
for _ in $(seq 200); do ls -A "$T/Ld" | grep -q "x.csv.tmp" && break; sleep 0.02; done
live=$(ls -A "$T/Ld" | grep "x.csv.tmp")
"$IMPACT" "${F[@]}" --out "$T/Ld" 2> "$T/err"; rc=$?
wait $ev; erc=$?
check "a running eval's temporary in a study's folder: the study runs, the temporary was there, the eval's table whole" \
  '[ -n "$live" ] && [ $rc -eq 0 ] && [ $erc -eq 0 ] && [ $(wc -l < "$T/Ld/x.csv") -eq $(wc -l < "$T/big.csv") ]'
sleep 30 & holder=$!
touch "$T/Ld/.jia.csv.tmp-$holder-0"
"$IMPACT" "${F[@]}" --out "$T/Ld" 2> "$T/err"; rc=$?
kill $holder; wait $holder 2> /dev/null
check "a running process's temporary of the study's own name: refused, naming it, kept" \
  '[ $rc -eq 1 ] && grep -q "process $holder is writing jia.csv there now" "$T/err" && [ -e "$T/Ld/.jia.csv.tmp-$holder-0" ]'
"$IMPACT" "${F[@]}" --out "$T/Ld"; rc=$?
check "... and once that process has ended, its temporary goes" '[ $rc -eq 0 ] && [ ! -e "$T/Ld/.jia.csv.tmp-$holder-0" ]'
# a trailing / or /. on a link is the link: refused, nothing written or removed in its target
mkdir -p "$T/Lt" && echo mine > "$T/Lt/notes.txt" && ln -s Lt "$T/Lt-link"
for sp in "$T/Lt-link/" "$T/Lt-link/." "$T/Lt-link//./"; do
  "$IMPACT" "${F[@]}" --out "$sp" 2> "$T/err"; rc=$?
  check "--out $sp: the link refused" '[ $rc -eq 1 ] && grep -q "is a link" "$T/err" && [ "$(ls -A "$T/Lt")" = notes.txt ]'
done
"$IMPACT" "${F[@]}" --out "$T/Lt-link/x/.." 2> "$T/err"; rc=$?
check "--out LINK/x/..: refused, nothing made or removed in the link's target" \
  '[ $rc -eq 1 ] && grep -q "after a folder.s name" "$T/err" && [ "$(ls -A "$T/Lt")" = notes.txt ]'
# --merge draws plots only under the study's own names, never through a link, never outside
P2=(study "$SRC/examples/studies/pencil-mc.toml" --set design.n=3000 --set run.chunk=1000 --backend omp -q --piece 1024)
"$IMPACT" "${P2[@]}" --checkpoint "$T/Mpck" --keep-parts --out "$T/Mp" --no-plots
png=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['config']['plots'][0]['file'])" "$T/Mp/metadata.json")
echo "the user's picture" > "$T/outside/victim.png" && ln -s ../outside/victim.png "$T/Mp/$png"
"$PY" - "$T/Mp/metadata.json" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["config"]["plots"].append(dict(m["config"]["plots"][0], file="../outside/evil.png"))
json.dump(m, open(sys.argv[1], "w"))
PYEOF
"$IMPACT" study --merge "$T/Mp" -q 2> "$T/err"; rc=$?
check "--merge: a plot's link replaced (its target kept), a plot named outside not drawn" \
  '[ $rc -eq 0 ] && [ "$(cat "$T/outside/victim.png")" = "the user'"'"'s picture" ] && [ ! -e "$T/outside/evil.png" ] && { [ ! -L "$T/Mp/$png" ] || [ ! -e "$T/Mp/$png" ]; }'
# --merge with a table dropped from parts.json: refused, every part kept
"$IMPACT" "${P2[@]}" --checkpoint "$T/Mdck" --keep-parts --out "$T/Md" --no-plots
"$PY" - "$T/Md/parts.json" <<'PYEOF'
import json, sys
p = json.load(open(sys.argv[1]))
k = p["files"].index("stronge.npy")
p["files"].pop(k)
for part in p["parts"]:
    part["files"].pop(k)
json.dump(p, open(sys.argv[1], "w"))
PYEOF
n=$(ls "$T/Md" | grep -c part-)
"$IMPACT" study --merge "$T/Md" --no-plots 2> "$T/err"; rc=$?
check "--merge with a table dropped from parts.json: refused (exit 2), naming it, every part kept" \
  '[ $rc -eq 2 ] && grep -q "stronge.npy.*parts.json lacks a table; nothing merged" "$T/err" && [ $(ls "$T/Md" | grep -c part-) -eq $n ]'
# ... and with metadata.json gone too, the manifest's parts of that table still say so
rm "$T/Md/metadata.json"
"$PY" - "$T/Md/parts.json" <<'PYEOF'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["rows"] == 3000
PYEOF
"$IMPACT" study --merge "$T/Md" --no-plots 2> "$T/err"; rc=$?
check "... without metadata.json: refused naming a part of the dropped table" \
  '[ $rc -eq 2 ] && grep -q "stronge.part-0000[0-9].npy: a part of stronge.npy, a table parts.json does not list" "$T/err" && [ $(ls "$T/Md" | grep -c part-) -eq $n ]'
# a folder of files named like parts and temporaries: refused, and with --force kept
mkdir -p "$T/Le" && echo vol1 > "$T/Le/backup.part-00001.rar" && echo notes > "$T/Le/.notes.tmp-1-2"
"$IMPACT" "${F[@]}" --out "$T/Le" 2> "$T/err"; rc=$?
check "part-like names prove nothing: refused" '[ $rc -eq 1 ] && grep -q "holds 2 file(s)" "$T/err"'
"$IMPACT" "${F[@]}" --out "$T/Le" --force; rc=$?
check "... and --force keeps them" '[ $rc -eq 0 ] && [ "$(cat "$T/Le/backup.part-00001.rar")" = vol1 ] && [ -e "$T/Le/.notes.tmp-1-2" ] && [ -s "$T/Le/jia.csv" ]'
# a plot file name is a picture's own name
for f in "" "." ".." ".png" "metadata.json" "summary.md" "a/b.png"; do
  { cat "$SRC/examples/studies/jia-fig15c.toml"; printf '[[plots]]\nkind = "hist"\ny = ["P_n"]\nfile = "%s"\n' "$f"; } > "$T/plot.toml"
  "$IMPACT" study "$T/plot.toml" --out "$T/Lf" --no-plots -q 2> "$T/err"; rc=$?
  check "plot file '$f' refused naming the key" '[ $rc -eq 1 ] && grep -q "plots\[.\]\.file: a picture.s file name" "$T/err" && [ ! -e "$T/Lf" ]'
done

finish
