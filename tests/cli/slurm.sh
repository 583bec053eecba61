#!/usr/bin/env bash
# The Slurm examples (examples/slurm/*.sbatch) run as batch scripts under `set -euo pipefail`, with
# a stand-in srun that runs its command once (one process): study-cpu.sbatch end to end (pieces,
# checkpoint, merge), and calibrate.sbatch killed (SIGKILL) in the middle and submitted again, which
# goes on from its checkpoint (--resume, chosen by the script) to the uninterrupted run's files.
# Every script parses, and none expands an empty array as "${A[@]}" (an unbound variable under
# set -u before bash 4.4).
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
mkdir -p "$T/bin"
cat > "$T/bin/srun" <<'SH'
#!/usr/bin/env bash
# srun's options before the command are the scheduler's: dropped
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
exec "$@"
SH
chmod +x "$T/bin/srun"
export PATH="$T/bin:$PATH" IMPACT SLURM_CPUS_PER_TASK=2
for s in "$SRC"/examples/slurm/*.sbatch; do
  check "$(basename "$s") parses" 'bash -n "$s"'
  check "$(basename "$s") expands no array bare under set -u" '! grep -n "\"\${[A-Z_]*\[@\]}\"" "$s" | grep -v "+\"" | grep -v "^[0-9]*: *#" | grep -q .'
done

cd "$SRC" || exit 1
OUT="$T/study" N=3000 bash examples/slurm/study-cpu.sbatch > "$T/log" 2>&1; rc=$?
check "study-cpu.sbatch: exit 0, the merged tables and metadata" \
  '[ $rc -eq 0 ] && [ -s "$T/study/jia.npy" ] && [ -s "$T/study/metadata.json" ] || { cat "$T/log"; false; }'

CFG=examples/calibration/ball-synthetic.toml
X='--set smc.particles=4096 -q --no-plots'
"$IMPACT" calibrate $CFG --backend omp --out "$T/full" $X; rc=$?
check "the uninterrupted calibration exits 0" '[ $rc -eq 0 ]'
OUT="$T/cal" CKPT="$T/cal.ckpt" CONFIG=$CFG BACKEND=omp EVERY=0 EXTRA="$X" bash examples/slurm/calibrate.sbatch &
pid=$!
for _ in $(seq 3000); do [ -s "$T/cal.ckpt/checkpoint.bin" ] && break; sleep 0.01; done
sleep 0.3
pkill -9 -f -- "--out $T/cal " 2> /dev/null
wait $pid 2> /dev/null
check "calibrate.sbatch killed in the middle: a checkpoint, no metadata.json" \
  '[ -s "$T/cal.ckpt/checkpoint.bin" ] && [ ! -e "$T/cal/metadata.json" ]'
OUT="$T/cal" CKPT="$T/cal.ckpt" CONFIG=$CFG BACKEND=omp EVERY=0 EXTRA="$X" bash examples/slurm/calibrate.sbatch > "$T/log" 2>&1
rc=$?
check "submitted again: it goes on (--resume) to the uninterrupted run's files" \
  '[ $rc -eq 0 ] && same_tree "$T/full" "$T/cal" || { cat "$T/log"; false; }'
finish
