#!/usr/bin/env bash
# `impact calibrate --checkpoint DIR [--resume]`: a calibration killed (SIGKILL) in the middle of its
# chain (ensemble) or its stages (SMC) goes on from its last checkpoint and writes the uninterrupted
# run's files byte for byte (metadata.json but for its date and timings), and says the step or stage it
# went on from (not the start: the files alone cannot tell); a finished run removes its
# checkpoint; --resume refuses another run's checkpoint (naming what differs), a damaged one, a link
# and a folder without one; a run without --resume refuses a folder that holds one; --laws keeps one
# checkpoint per law.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
PY=$(bash "$SRC/scripts/find_python.sh") || exit 1
CFG="$SRC/examples/calibration/ball-synthetic.toml"

same_meta() {  # metadata.json equal but for the date, the timings and the output folder's name
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop("date"), d.pop("timings")
    d["config"]["output"].pop("dir")
sys.exit(0 if a == b else 1)
PYEOF
}

# kill -9 after the checkpoint has been written a few times, then --resume
killed_then_resumed() {  # METHOD, then the run's arguments
  local m=$1
  shift
  "$IMPACT" calibrate "$CFG" --out "$T/full-$m" "$@" -q --no-plots; rc=$?
  check "$m: the uninterrupted run exits 0" '[ $rc -eq 0 ]'
  "$IMPACT" calibrate "$CFG" --out "$T/run-$m" "$@" -q --no-plots --checkpoint "$T/ck-$m" --checkpoint-every 0 &
  local pid=$! sum="" seen=0
  for _ in $(seq 2000); do
    if [ -s "$T/ck-$m/checkpoint.bin" ]; then
      s=$(cksum < "$T/ck-$m/checkpoint.bin")
      [ "$s" != "$sum" ] && sum=$s && seen=$((seen + 1))
      [ $seen -ge 3 ] && break
    fi
    sleep 0.01
  done
  kill -9 $pid 2> /dev/null
  wait $pid 2> /dev/null
  check "$m: killed in the middle (a checkpoint, no metadata.json)" \
    '[ -s "$T/ck-$m/checkpoint.bin" ] && [ ! -e "$T/run-$m/metadata.json" ]'
  "$IMPACT" calibrate "$CFG" --out "$T/run-$m" "$@" -q --no-plots --checkpoint "$T/ck-$m" 2> "$T/err"; rc=$?
  check "$m: without --resume a folder holding a checkpoint is refused" \
    '[ $rc -ne 0 ] && grep -q "holds a checkpoint of a run that did not finish: go on from it with --resume" "$T/err"'
  "$IMPACT" calibrate "$CFG" --out "$T/run-$m" "$@" --no-plots --checkpoint "$T/ck-$m" --resume > /dev/null 2> "$T/log"
  rc=$?
  check "$m: resumed, exit 0" '[ $rc -eq 0 ]'
  # it went on from where the killed run was, not from the start (the same files either way)
  check "$m: it said where it went on from: a step or stage past the first" \
    'grep -Eq "going on from .*/checkpoint.bin at (step|stage) [1-9][0-9]* of" "$T/log" || { cat "$T/log"; false; }'
  check "$m: the uninterrupted run's files, byte for byte" 'same_tree "$T/full-$m" "$T/run-$m"'
  check "$m: metadata.json the same but for date and timings" 'same_meta "$T/full-$m/metadata.json" "$T/run-$m/metadata.json"'
  check "$m: the finished run removed its checkpoint and manifest" '[ -z "$(ls -A "$T/ck-$m")" ]'
}
killed_then_resumed ensemble --set 'calibrate.method="ensemble"' --set mcmc.steps=4000 --backend omp
killed_then_resumed smc --set smc.particles=4096 --backend omp

# refusals: another run's checkpoint, a damaged one, none, a link
E=(--set 'calibrate.method="ensemble"' --set mcmc.steps=4000 --backend omp -q --no-plots)
"$IMPACT" calibrate "$CFG" --out "$T/o1" "${E[@]}" --checkpoint "$T/ck1" --checkpoint-every 0 &
pid=$!
for _ in $(seq 2000); do [ -s "$T/ck1/checkpoint.bin" ] && break; sleep 0.01; done
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
cp "$T/ck1/checkpoint.bin" "$T/saved.bin"
"$IMPACT" calibrate "$CFG" --out "$T/o1" "${E[@]}" --set mcmc.seed=2 --checkpoint "$T/ck1" --resume 2> "$T/err"; rc=$?
check "another run's checkpoint (another seed) is refused, naming what differs" \
  '[ $rc -ne 0 ] && grep -q "is the checkpoint of another run (these differ: config)" "$T/err"'
printf '\x01' | dd of="$T/ck1/checkpoint.bin" bs=1 seek=300 conv=notrunc status=none
"$IMPACT" calibrate "$CFG" --out "$T/o1" "${E[@]}" --checkpoint "$T/ck1" --resume 2> "$T/err"; rc=$?
check "a flipped byte is refused (CRC-32)" '[ $rc -ne 0 ] && grep -q "a damaged checkpoint (its CRC-32 does not match)" "$T/err"'
head -c 100 "$T/saved.bin" > "$T/ck1/checkpoint.bin"
"$IMPACT" calibrate "$CFG" --out "$T/o1" "${E[@]}" --checkpoint "$T/ck1" --resume 2> "$T/err"; rc=$?
check "a truncated file is refused" '[ $rc -ne 0 ] && grep -q "damaged checkpoint" "$T/err"'
"$IMPACT" calibrate "$CFG" --out "$T/o2" "${E[@]}" --checkpoint "$T/empty" --resume 2> "$T/err"; rc=$?
check "--resume without a checkpoint is refused" '[ $rc -ne 0 ] && grep -q "holds no checkpoint" "$T/err"'
mkdir -p "$T/ck3" && cp "$T/saved.bin" "$T/elsewhere.bin" && ln -s "$T/elsewhere.bin" "$T/ck3/checkpoint.bin"
"$IMPACT" calibrate "$CFG" --out "$T/o3" "${E[@]}" --checkpoint "$T/ck3" --resume 2> "$T/err"; rc=$?
check "a checkpoint that is a link is never read through (and the link's target is kept)" \
  '[ $rc -ne 0 ] && cmp -s "$T/saved.bin" "$T/elsewhere.bin"'
"$IMPACT" calibrate "$CFG" --out "$T/o4" "${E[@]}" --resume 2> "$T/err"; rc=$?
check "--resume needs --checkpoint" '[ $rc -eq 2 ] && grep -q "resume needs --checkpoint DIR" "$T/err"'
"$IMPACT" calibrate "$CFG" --out "$T/o4" "${E[@]}" --checkpoint-every 5 2> "$T/err"; rc=$?
check "--checkpoint-every needs --checkpoint (it would change nothing)" '[ $rc -eq 2 ] && grep -q "checkpoint-every needs --checkpoint DIR" "$T/err" && [ ! -e "$T/o4" ]'
"$IMPACT" calibrate "$CFG" --out "$T/o5" --set 'calibrate.method="fit"' -q --no-plots --checkpoint "$T/ck5" 2> "$T/err"; rc=$?
check "the fit refuses a checkpoint" '[ $rc -ne 0 ] && grep -q "the fit keeps no checkpoint" "$T/err"'

# --laws: a checkpoint per law in DIR/LAW
L=(--laws newton,chatterjee-ruina --set smc.particles=2048 --backend omp -q --no-plots)
"$IMPACT" calibrate "$CFG" --out "$T/lawsA" "${L[@]}"; rc=$?
"$IMPACT" calibrate "$CFG" --out "$T/lawsB" "${L[@]}" --checkpoint "$T/ckL" --checkpoint-every 0 &
pid=$!
for _ in $(seq 3000); do [ -s "$T/ckL/chatterjee-ruina/checkpoint.bin" ] && break; sleep 0.01; done
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
"$IMPACT" calibrate "$CFG" --out "$T/lawsB" "${L[@]}" --checkpoint "$T/ckL" --resume; rc2=$?
check "--laws resumed: every law's files as the uninterrupted comparison's" \
  '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && same_tree "$T/lawsA/newton" "$T/lawsB/newton" && same_tree "$T/lawsA/chatterjee-ruina" "$T/lawsB/chatterjee-ruina"'
finish
