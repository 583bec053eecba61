#!/usr/bin/env bash
# Runs over several processes (host/dist, docs/distributed.md): `mpirun -n K impact reduce` gives
# the single process's summary bit for bit (counts, moments, histograms) for K = 2 and 3 (uneven
# splits, chunks handed out dynamically), on a shard with --first too, and reports each process's
# share; `mpirun impact eval` and `mpirun impact study` give the single process's files byte for
# byte (study: --keep-parts and impact study --merge too); `mpirun impact calibrate` gives the single
# process's chain and files byte for byte, for the sampler and the fit, and a refused output folder
# ends every process with rank 0's message; the other commands refuse to run
# distributed, saying so. Skipped (77) when impact was
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

# commands that do not run distributed say so, on rank 0, exit 2
"${MPIRUN[@]}" 2 "$IMPACT" compare --law newton --in "$SRC/examples/cases.csv" > "$T/out" 2> "$T/err"; rc=$?
check "mpirun impact compare: refused with a reason, once" '[ $rc -eq 2 ] && [ $(grep -c "only .impact reduce., .impact eval., .impact study. and .impact calibrate. run distributed" "$T/err") -eq 1 ]'

# ---- impact study over K processes ---------------------------------------------------------------
same_meta() {  # same_meta A B K: metadata.json's statistics and indices bit for bit, the split of K reported
  "$PY" - "$1/metadata.json" "$2/metadata.json" "$3" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
K = int(sys.argv[3])
for m in (a, b):
    for law in m["summary"].values():
        for k in ("law_seconds", "instances_per_s"):
            law.pop(k, None)
for k in ("summary", "sensitivity", "columns", "rows", "varied", "kept_columns", "files", "laws"):
    assert a.get(k) == b.get(k), k
note = [n for n in b.get("notes", []) if " pieces of " in n]
assert (K == 1 and not note) or (note and f"over {K} process(es) (rows per process:" in note[0]), b.get("notes")
PYEOF
}
# a Saltelli study with [sensitivity] and every format (tables, SALib files, design.txt): 2100
# rows in 9 pieces of 256 rows (4 statistics blocks of 64 each) handed out to 2 and 3 ranks as they
# finish, chunks of 500 rows that straddle the blocks; and a jia study in float of 100 rows
# (2 pieces of 64: the third rank gets none) in chunks of 30
STUDIES=("$SRC/examples/studies/ball-sobol.toml --set design.n=300 --set run.chunk=500 --piece 256"
         "$SRC/examples/studies/pencil-mc.toml --set design.n=100 --set run.chunk=30 --set run.precision=\"float\" --piece 64")
for st in "${STUDIES[@]}"; do
  one="${st% --piece *}"
  # shellcheck disable=SC2086
  "$IMPACT" study $one --backend omp --no-plots -q --out "$T/st1" 2> "$T/err"; rc=$?
  check "study ($one) as one process: exit 0" '[ $rc -eq 0 ] && [ -s "$T/st1/metadata.json" ]'
  for K in 2 3; do
    # shellcheck disable=SC2086
    "${MPIRUN[@]}" $K "$IMPACT" study $st --backend omp --no-plots -q --out "$T/st$K" > "$T/out" 2> "$T/err"; rc=$?
    check "mpirun -n $K study ($st): exit 0, every table, SALib file and report the single process's byte for byte" '[ $rc -eq 0 ] && same_tree "$T/st1" "$T/st$K"'
    check "mpirun -n $K study: statistics and Sobol indices bit for bit, the split in the notes, no part left" 'same_meta "$T/st1" "$T/st$K" $K && [ $(find "$T/st$K" -name "*.part-*" | wc -l) -eq 0 ] && [ ! -e "$T/st$K/parts.json" ]'
  done
done
# the summary on stdout: once (rank 0)
"${MPIRUN[@]}" 2 "$IMPACT" study "$SRC/examples/studies/ball-sobol.toml" --set design.n=100 --backend omp --no-plots \
  --out "$T/stp" > "$T/out" 2> "$T/err"; rc=$?
check "mpirun study: the summary printed once, with the split" '[ $rc -eq 0 ] && [ $(grep -c "^study ball-sobol" "$T/out") -eq 1 ] && grep -q "note: 1 pieces of 700 rows over 2 process(es)" "$T/out"'

# --keep-parts: one part per piece (3 pieces of 768 rows) and parts.json; impact study --merge assembles the single
# process's files and removes the parts
st="$SRC/examples/studies/ball-sobol.toml --set design.n=300 --set run.chunk=500"
rm -rf "$T/st1" && "$IMPACT" study $st --backend omp --no-plots -q --out "$T/st1"
st="$st --piece 768"
# shellcheck disable=SC2086
"${MPIRUN[@]}" 3 "$IMPACT" study $st --backend omp --no-plots -q --keep-parts --out "$T/kp" 2> "$T/err"; rc=$?
check "--keep-parts: 3 parts of each of the 11 files, parts.json, metadata.json" '[ $rc -eq 0 ] && [ $(find "$T/kp" -name "*.part-0000[0-2].*" | wc -l) -eq 33 ] && [ -s "$T/kp/parts.json" ] && [ -s "$T/kp/metadata.json" ] && [ ! -e "$T/kp/jia.npy" ]'
NPY=$(bash "$SRC/scripts/find_python.sh" numpy) || NPY=$PY
"$NPY" -c "import numpy as np, sys; a = [np.load(sys.argv[1] + '/jia.part-0000%d.npy' % p) for p in range(3)]; b = np.load(sys.argv[2] + '/jia.npy'); assert (np.concatenate(a).tobytes() == b.tobytes())" "$T/kp" "$T/st1" 2> "$T/pyerr"; rc=$?
check "each .npy part loads in NumPy; concatenated they are the single process's table" '[ $rc -eq 0 ] || { cat "$T/pyerr" >&2; false; }'
cp -r "$T/kp" "$T/kp2"
rm "$T/kp2/stronge.part-00001.npy"
"$IMPACT" study --merge "$T/kp2" > "$T/out" 2> "$T/err"; rc=$?
check "--merge with a part missing: exit 2 naming it, nothing removed, no table" '[ $rc -eq 2 ] && grep -q "stronge.part-00001.npy" "$T/err" && [ -e "$T/kp2/parts.json" ] && [ -e "$T/kp2/jia.part-00000.npy" ] && [ ! -e "$T/kp2/jia.npy" ]'
printf 'x' >> "$T/kp2/jia.part-00002.csv"; cp "$T/kp/stronge.part-00001.npy" "$T/kp2/"
"$IMPACT" study --merge "$T/kp2" > "$T/out" 2> "$T/err"; rc=$?
check "--merge with a part that was written to: exit 2 naming it" '[ $rc -eq 2 ] && grep -q "jia.part-00002.csv" "$T/err" && [ ! -e "$T/kp2/jia.csv" ]'
"$IMPACT" study --merge "$T/kp" > "$T/out" 2> "$T/err"; rc=$?
check "impact study --merge: the single process's files byte for byte, parts and parts.json removed" '[ $rc -eq 0 ] && grep -q "merged 11 file(s) of 3 parts" "$T/out" && same_tree "$T/st1" "$T/kp" && [ $(find "$T/kp" -name "*.part-*" | wc -l) -eq 0 ] && [ ! -e "$T/kp/parts.json" ]'
"$IMPACT" study --merge "$T/st1" > "$T/out" 2> "$T/err"; rc=$?
check "--merge on a folder without parts: exit 2, saying so" '[ $rc -eq 2 ] && grep -q "no study parts" "$T/err"'
"${MPIRUN[@]}" 2 "$IMPACT" study --merge "$T/kp" > "$T/out" 2> "$T/err"; rc=$?
check "--merge under mpirun: a usage error, said once, no rank aborting the world" '[ $rc -eq 2 ] && [ $(grep -c "runs as one process" "$T/err") -eq 1 ] && grep -q "^impact study: error: --merge runs as one process" "$T/err" && ! grep -q "MPI_ABORT" "$T/err"'
"${MPIRUN[@]}" 2 "$IMPACT" study ${st% --piece *} --resume --out "$T/rs" -q > "$T/out" 2> "$T/err"; rc=$?
check "--resume without --checkpoint under mpirun: a usage error once, no abort, no output folder" '[ $rc -eq 2 ] && [ $(grep -c "needs --checkpoint" "$T/err") -eq 1 ] && ! grep -q "MPI_ABORT" "$T/err" && [ ! -e "$T/rs" ]'
"$IMPACT" study ${st% --piece *} --keep-parts --out "$T/kp3" -q > "$T/out" 2> "$T/err"; rc=$?
check "--keep-parts as one process without a checkpoint: usage error" '[ $rc -eq 2 ] && grep -q "for runs in pieces" "$T/err"'

# failures: a bad config (every rank's) said once, exit 1; an output folder that cannot be made:
# exit 2 said once, nothing written
printf '[study]\nname = "x"\nscenario = "nope"\n' > "$T/bad.toml"
"${MPIRUN[@]}" 2 "$IMPACT" study "$T/bad.toml" > "$T/out" 2> "$T/err"; rc=$?
check "mpirun study with a bad config: exit 1, the error once" '[ $rc -eq 1 ] && [ $(grep -c "error" "$T/err") -eq 1 ]'
touch "$T/afile"
"${MPIRUN[@]}" 2 "$IMPACT" study $st --backend omp --no-plots -q --out "$T/afile/sub" > "$T/out" 2> "$T/err"; rc=$?
check "mpirun study into a folder that cannot be made: exit 2, the error once" '[ $rc -eq 2 ] && [ $(grep -c "cannot create the folder" "$T/err") -eq 1 ]'
# a stale part of an earlier, killed run (no parts.json) is removed by the next run: the earlier
# run's manifest, written before its first table, lists the table whose part it is; a file named
# like a part in a folder without a study's manifest proves nothing: refused, the file kept
mkdir -p "$T/stale0" && echo junk > "$T/stale0/jia.part-00007.csv"
"${MPIRUN[@]}" 2 "$IMPACT" study $st --backend omp --no-plots -q --out "$T/stale0" 2> "$T/err"; rc=$?
check "a part-named file in a folder without a manifest: refused, kept" \
  '[ $rc -ne 0 ] && grep -q "no impactbatch study wrote there (jia.part-00007.csv)" "$T/err" && [ "$(cat "$T/stale0/jia.part-00007.csv")" = junk ]'
# (a run killed before its end: its parts listed by its manifest, no metadata.json, no parts.json)
"${MPIRUN[@]}" 2 "$IMPACT" study $st --backend omp --no-plots -q --keep-parts --out "$T/stale" 2> "$T/err"
rm "$T/stale/metadata.json" "$T/stale/parts.json" && echo junk > "$T/stale/jia.part-00099.csv"
n=$(ls "$T/stale" | grep -c "part-0000")
"${MPIRUN[@]}" 2 "$IMPACT" study $st --backend omp --no-plots -q --out "$T/stale" 2> "$T/err"; rc=$?
check "a killed run's $n parts are removed by the next run, an unlisted part-named file kept; the files are the single process's" \
  '[ $rc -eq 0 ] && [ $n -gt 0 ] && [ "$(ls "$T/stale" | grep part-)" = jia.part-00099.csv ] && rm "$T/stale/jia.part-00099.csv" && same_tree "$T/st1" "$T/stale"'
# a usage error is every rank's, before any work: exit 2, no hang
timeout 60 "${MPIRUN[@]}" 2 "$IMPACT" reduce --law jia --n 1000 --range "Pn=3:1" > "$T/out" 2> "$T/err"; rc=$?
check "a usage error under mpirun ends the job (no hang)" '[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "finite LO < HI" "$T/err"'
# ---- impact calibrate over K processes: every batch shared, the chain the single process's ---------
CAL="$SRC/examples/calibration/ball-synthetic.toml"
ENS=(--set 'calibrate.method="ensemble"' --set mcmc.steps=400)
"$IMPACT" calibrate "$CAL" --backend omp --out "$T/cal0" -q --no-plots "${ENS[@]}"; rc1=$?
"$IMPACT" calibrate "$CAL" --backend omp --out "$T/fit0" -q --no-plots --set 'calibrate.method="fit"'; rc2=$?
SMC=(--set 'calibrate.method="smc"' --set smc.particles=512)
"$IMPACT" calibrate "$CAL" --backend omp --out "$T/smc0" -q --no-plots "${SMC[@]}"; rc3=$?
check "calibrate, one process: exit 0" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ]'
for K in 1 2 3; do  # the single process's runs above are without mpirun: -n 1 is a run of its own
  procs=""; [ $K -gt 1 ] && procs=" x $K processes"
  "${MPIRUN[@]}" $K "$IMPACT" calibrate "$CAL" --backend omp --out "$T/cal$K" --no-plots "${ENS[@]}" > "$T/out" 2> "$T/err"; rc=$?
  check "mpirun -n $K calibrate: exit 0, rank 0 speaks once" '[ $rc -eq 0 ] && [ $(grep -c "^calibration ball-synthetic (ensemble): .*'"$procs"'" "$T/out") -eq 1 ] || cat "$T/err" >&2'
  check "mpirun -n $K calibrate: the single process's samples, predictive and summary, byte for byte" 'cmp -s "$T/cal0/samples.npy" "$T/cal$K/samples.npy" && cmp -s "$T/cal0/samples.csv" "$T/cal$K/samples.csv" && cmp -s "$T/cal0/predictive.csv" "$T/cal$K/predictive.csv" && diff -q <(sed 1,4d "$T/cal0/summary.md") <(sed 1,4d "$T/cal$K/summary.md") > /dev/null && grep -q "\"processes\": '$K'" "$T/cal$K/metadata.json"'
  "${MPIRUN[@]}" $K "$IMPACT" calibrate "$CAL" --backend omp --out "$T/fit$K" -q --no-plots --set 'calibrate.method="fit"'; rc=$?
  check "mpirun -n $K calibrate, fit: the single process's estimate, starts and predictive, byte for byte" '[ $rc -eq 0 ] && cmp -s "$T/fit0/estimate.csv" "$T/fit$K/estimate.csv" && cmp -s "$T/fit0/starts.csv" "$T/fit$K/starts.csv" && cmp -s "$T/fit0/predictive.csv" "$T/fit$K/predictive.csv"'
  "${MPIRUN[@]}" $K "$IMPACT" calibrate "$CAL" --backend omp --out "$T/smc$K" -q --no-plots "${SMC[@]}"; rc=$?
  check "mpirun -n $K calibrate, smc: the single process's draws, predictive and evidence, byte for byte" \
    '[ $rc -eq 0 ] && cmp -s "$T/smc0/samples.npy" "$T/smc$K/samples.npy" && cmp -s "$T/smc0/predictive.csv" "$T/smc$K/predictive.csv" && diff -q <(grep -A3 log_evidence "$T/smc0/metadata.json") <(grep -A3 log_evidence "$T/smc$K/metadata.json") > /dev/null'
done
mkdir -p "$T/theirs" && echo precious > "$T/theirs/notes.txt"
"${MPIRUN[@]}" 2 "$IMPACT" calibrate "$CAL" --backend omp --out "$T/theirs" -q --no-plots "${ENS[@]}" > "$T/out" 2> "$T/err"; rc=$?
check "mpirun calibrate into a foreign folder: every process ends, rank 0 says why once, nothing written" '[ $rc -eq 1 ] && [ $(grep -c "force" "$T/err") -eq 1 ] && [ "$(ls "$T/theirs")" = notes.txt ] || cat "$T/err" >&2'
# a fault on one rank only (its copy of the data is missing): every rank ends, none waits
timeout 120 mpirun --oversubscribe -n 1 "$IMPACT" calibrate "$CAL" --backend omp --out "$T/onefault" -q --no-plots : \
  -n 1 "$IMPACT" calibrate "$CAL" --backend omp --out "$T/onefault" -q --no-plots --set 'data.file="nope.csv"' > "$T/out" 2> "$T/err"; rc=$?
check "mpirun calibrate, data missing on rank 1 only: every rank ends (no hang), rank 0 names it once" '[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $(grep -c "process 1: .*nope.csv" "$T/err") -eq 1 ] && [ ! -e "$T/onefault/metadata.json" ] || cat "$T/err" >&2'
finish
