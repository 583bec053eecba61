#!/usr/bin/env bash
# The whole benchmark matrix in one command (docs/bench.md):
#   1. builds ./build/impact with scripts/build.sh when it is missing, has no `bench`, or lacks the
#      CUDA backend on a machine with an NVIDIA GPU;
#   2. `impact bench`: every law x backend (serial, omp, cuda when usable) x precision x steps in ONE
#      run -> OUT/bench.json, OUT/bench.md;
#   3. the NumPy/JAX peers when benches/peers/run_peers.sh exists (skipped, with a note, when it is
#      absent or fails) -> OUT/peers/peers.json;
#   4. benches/RESULTS.md (write_results.py): machine, device, driver, versions, the tables, the
#      peer table with ours/peer ratios, and on a GPU the GPU/CPU (cuda/omp) ratios for jia and
#      chatterjee-ruina. A measurement record: no date or git revision in it (OUT/bench.json keeps
#      them, and the run prints them last, for docs/perf-log.md where a run worth keeping is logged).
#
# Usage: benches/run_matrix.sh [--quick] [--no-peers] [--no-build] [--out DIR] [--results FILE]
#                              [-- EXTRA impact bench OPTIONS]
# Env: IMPACT (binary; default ./build/impact), MIN_TIME (0.5), REPS (5), WARMUP (1), STEPS (250,1000),
#      PEERS_ARGS (extra run_peers.sh options; default with a GPU "--steps STEPS", without one
#      "--n 4000 --steps FIRST_STEP"), PEERS_TIMEOUT (seconds, 1800).
# About 2 minutes for `impact bench` with the defaults on a CPU (32 configurations x ~7 x MIN_TIME;
# 48 with CUDA), plus the peers (3 minutes on 2 cores: 5 minutes in all); --quick: MIN_TIME 0.1, REPS 3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
args="$*"

out=out/bench
results=benches/RESULTS.md
peers=1
build=1
extra=()
MIN_TIME=${MIN_TIME:-0.5}
REPS=${REPS:-5}
WARMUP=${WARMUP:-1}
STEPS=${STEPS:-250,1000}
PEERS_TIMEOUT=${PEERS_TIMEOUT:-1800}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) MIN_TIME=0.1; REPS=3; shift ;;
    --no-peers) peers=0; shift ;;
    --no-build) build=0; shift ;;
    --out) out=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_matrix.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
log() { echo "run_matrix: $*" >&2; }

# ---- 1. the binary ----------------------------------------------------------------------------------
have_gpu=0
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then have_gpu=1; fi
if [ -n "${IMPACT:-}" ]; then
  build=0
else
  IMPACT=$root/build/impact
fi
if [ $build = 1 ]; then
  if [ ! -x "$IMPACT" ] || ! "$IMPACT" bench --help > /dev/null 2>&1; then
    log "building $IMPACT (scripts/build.sh)"
    bash scripts/build.sh
  elif [ $have_gpu = 1 ] && ! "$IMPACT" reduce --law newton --n 1 --backend cuda -q > /dev/null 2>&1; then
    log "an NVIDIA GPU is present but $IMPACT has no usable CUDA backend: rebuilding with -DIMPACT_CUDA=ON"
    bash scripts/build.sh -DIMPACT_CUDA=ON
  fi
fi
[ -x "$IMPACT" ] || { log "no impact binary at $IMPACT"; exit 1; }
IMPACT=$(cd "$(dirname "$IMPACT")" && pwd)/$(basename "$IMPACT")

# ---- 2. impact bench --------------------------------------------------------------------------------
mkdir -p "$out"
# with a GPU, larger batches amortize each call's pinned-buffer setup (memory allowing: impact bench
# caps the pool at 30% of MemAvailable)
maxn=()
if [ $have_gpu = 1 ]; then maxn=(--max-n 16777216); fi
cmd=("$IMPACT" bench --min-time "$MIN_TIME" --reps "$REPS" --warmup "$WARMUP" --steps "$STEPS" "${maxn[@]}"
     --json "$out/bench.json" --markdown "$out/bench.md" "${extra[@]}")
log "${cmd[*]}"
start=$(date +%s)
# progress lines on stderr, the table in the file (printed at the end)
"${cmd[@]}" > /dev/null
log "impact bench: $(($(date +%s) - start)) s"

# ---- 3. peers ---------------------------------------------------------------------------------------
peers_note=""
peers_json=""
if [ $peers = 0 ]; then
  peers_note="peers not run (--no-peers)"
elif [ ! -f benches/peers/run_peers.sh ]; then
  peers_note="peers not run: benches/peers/run_peers.sh is absent"
else
  mkdir -p "$out/peers"
  # The peers' step counts are ours, so that their rows have a counterpart. JAX's jia on a CPU
  # takes ~4 ms per instance at 250 steps on 2 cores: without a GPU the peers run on 4000 instances
  # and the first step count only (PEERS_ARGS overrides).
  if [ -z "${PEERS_ARGS+x}" ]; then
    if [ $have_gpu = 1 ]; then PEERS_ARGS="--steps ${STEPS//,/ }"; else PEERS_ARGS="--n 4000 --steps ${STEPS%%,*}"; fi
  fi
  peers_note="peers: run_peers.sh ${PEERS_ARGS}"
  log "peers: benches/peers/run_peers.sh $IMPACT $out/peers $PEERS_ARGS"
  start=$(date +%s)
  set +e
  # shellcheck disable=SC2086
  timeout "$PEERS_TIMEOUT" bash benches/peers/run_peers.sh "$IMPACT" "$out/peers" $PEERS_ARGS 2>&1 |
    tee "$out/peers.log" >&2
  rc=${PIPESTATUS[0]}
  set -e
  log "peers: exit $rc, $(($(date +%s) - start)) s"
  if [ -s "$out/peers/peers.json" ]; then
    peers_json=$out/peers/peers.json
    [ $rc = 0 ] || peers_note="$peers_note; exited with $rc (see $out/peers.log), its peers.json is shown"
  else
    peers_note="peers failed: run_peers.sh exited with $rc and wrote no peers.json (see $out/peers.log)"
  fi
fi

# ---- 4. RESULTS.md ----------------------------------------------------------------------------------
python3 benches/write_results.py "$out/bench.json" "$peers_json" "$results" "$peers_note" "benches/run_matrix.sh $args"
cat "$out/bench.md"
