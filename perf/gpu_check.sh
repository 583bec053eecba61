#!/usr/bin/env bash
# One command that checks and measures the GPU path on a machine with an NVIDIA GPU and writes one
# markdown report (docs/bench.md, "GPU check").
#
# Usage: bash perf/gpu_check.sh [--build DIR] [--out REPORT.md] [--quick] [--dry-run]
#                                  [--only 1,2,...] [--skip 4,7] [--baseline DIR] [--no-ctest]
#                                  [--ncu-laws jia,stronge] [--python DIR]
#        bash perf/gpu_check.sh --goals [--baseline DIR] [--last DIR] [--build DIR] [--out REPORT.md]
#                                  [--only 1,5] [--dry-run]
#   --build DIR    the CUDA build (default: build). When DIR/impact is missing it is configured and
#                  built: cmake -S . -B DIR -DCMAKE_BUILD_TYPE=Release -DIMPACT_CUDA=ON && cmake --build DIR -j
#   --out REPORT   the report (default: gpu_check.md, with --goals gpu_goals.md); every raw log goes
#                  to the folder next to it named after it without .md (default: gpu_check/)
#   --quick        smaller throughput runs (jia and stronge n = 4e6, chatterjee-ruina n = 1e8), the double
#                  kernels only under ncu, and the bench matrix at 250 steps, --min-time 0.2 --reps 3
#   --dry-run      print every command it would run, run none (works without a GPU)
#   --only, --skip run only / skip these steps (numbers below; step 1 always runs), e.g. to split the
#                  work over several calls of a machine that limits one command's time
#   --baseline DIR a CUDA build of another revision (its DIR/impact): step 5 runs every case with it
#                  too, in the same call on the same device, and the ratios are against those runs
#                  (without it: against the figures of the nested-search build recorded on an H100,
#                  docs/perf-log.md "The first GPU measurements")
#   --no-ctest     step 2 runs the CUDA gtests only, not the whole ctest (a device machine without
#                  the Debian packages, MPI or the test tools)
#   --ncu-laws L   step 4 profiles these laws only (comma-separated), e.g. jia,stronge
#   --python DIR   the folder holding the impactbatch module for this machine's Python (step 9;
#                  default DIR = BUILD/python)
#   --goals        instead of steps 2..10: the seven goals, each measured once on this build, on the
#                  --baseline build and on the --last build (each DIR/impact, DIR/python), in one
#                  call that fits 8 minutes; prints the table path | measured | baseline | last
#                  measured build | goal | met? and writes it to the report (default gpu_goals.md).
#                  --only/--skip select goal rows. Never builds: DIR/impact must exist. Rows, their
#                  sizes (the smallest that give a stable rate) and budgets in seconds (all the
#                  builds' commands of a row share its budget, each under `timeout` with its share
#                  of what is left, this build's twice the others'; the rows add up to 420 s, and
#                  the whole call stays under GOALS_TOTAL_S = 450):
#                    1 chatterjee-ruina sampled reduce, double, n = 4e9 (>= 5e9/s)            30 s
#                    2 jia sampled reduce on identical ball instances, n = 4e7 (>= 4.3e7/s)   30 s
#                    3 evaluate on JAX device arrays, algebraic laws, n = 4e6, best of 5,
#                      against the JAX peer (every ratio >= 1)                                95 s
#                    4 eval path (`impact bench`), chatterjee-ruina double, rows in host
#                      memory: bytes/s over the pinned memcpy rate (>= 50%)                   60 s
#                    5 10^6-row study (examples/studies/pencil-mc.toml, jia and stronge):
#                      metadata.json's total_s over laws_s (<= 2)                            120 s
#                    6 fit on the Cornell data with jia (cornell-jia.toml, calibrate.method
#                      fit, a 512-point global design, 24-row batches): cuda total_s over
#                      omp total_s (<= 1)                                                    60 s
#                    7 stronge double sampled reduce, n = 4e7 (>= 1e8/s)                      25 s
#   --last DIR     with --goals: a CUDA build of the last revision a device measured (its column)
# Steps: 1 device facts (nvidia-smi), 2 CUDA tests (impact_tests Cuda*, the whole ctest),
#   3 compute-sanitizer (memcheck on eval and reduce, racecheck on reduce), 4 Nsight Compute on every
#   law's sampled_reduce_kernel, 5 throughput of `impact reduce` against a baseline (the recorded H100
#   figures, or the --baseline build) and the goals, 6 the SIMT model (CPU prediction), 7 the `impact
#   bench` matrix, 8 ptxas registers/spills (perf/ptxas/kernel_resources.py), 9 Python on device arrays
#   (pytest test_device.py, python_bench.py --device against the JAX peer), 10 `impact calibrate` on
#   cuda against omp (the ensemble's and SMC's evaluation rates beside `reduce`'s).
# Every step runs under `timeout`, its exit status and seconds recorded; a failing step does not stop
# the others. Exit status: 0 when every check passed, 1 when a check failed (measurements that fail
# are reported but do not change it; every goal row is a measurement), 2 usage error, 77 no usable
# GPU here (nvidia-smi fails or `impact` finds no CUDA device).
set -uo pipefail
T_START=$(date +%s)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CMDLINE="bash perf/gpu_check.sh"
for a in "$@"; do CMDLINE+=" $(printf '%q' "$a")"; done

BUILD=build
REPORT=""
GOALS=0
LAST=""
QUICK=0
DRY=0
ONLY=""
SKIP=""
BASELINE=""
CTEST=1
NCU_LAWS=""
PYDIR=""
# The name of the baseline whose figures are written into steps 4 and 5 (the baseline column of
# tp_cases): the first GPU measurements, of the nested-search build on an H100, so that a report made
# without --baseline still has ratios. The revision it was built from is in docs/perf-log.md ("The
# first GPU measurements"), not here: the report names the record, the log names the build.
RECORDED_BASE="H100 record"
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || { echo "gpu_check: --build needs a folder" >&2; exit 2; }; BUILD=$2; shift 2 ;;
    --build=*) BUILD=${1#*=}; shift ;;
    --out) [ $# -ge 2 ] || { echo "gpu_check: --out needs a file" >&2; exit 2; }; REPORT=$2; shift 2 ;;
    --out=*) REPORT=${1#*=}; shift ;;
    --quick) QUICK=1; shift ;;
    --dry-run) DRY=1; shift ;;
    --only) [ $# -ge 2 ] || { echo "gpu_check: --only needs a list" >&2; exit 2; }; ONLY=$2; shift 2 ;;
    --skip) [ $# -ge 2 ] || { echo "gpu_check: --skip needs a list" >&2; exit 2; }; SKIP=$2; shift 2 ;;
    --baseline) [ $# -ge 2 ] || { echo "gpu_check: --baseline needs a build folder" >&2; exit 2; }; BASELINE=$2; shift 2 ;;
    --no-ctest) CTEST=0; shift ;;
    --ncu-laws) [ $# -ge 2 ] || { echo "gpu_check: --ncu-laws needs a list" >&2; exit 2; }; NCU_LAWS=$2; shift 2 ;;
    --python) [ $# -ge 2 ] || { echo "gpu_check: --python needs a folder" >&2; exit 2; }; PYDIR=$2; shift 2 ;;
    --goals) GOALS=1; shift ;;
    --last) [ $# -ge 2 ] || { echo "gpu_check: --last needs a build folder" >&2; exit 2; }; LAST=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu_check: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
[ -z "$LAST" ] || [ $GOALS = 1 ] || { echo "gpu_check: --last is a column of --goals' table: add --goals" >&2; exit 2; }
if [ -z "$REPORT" ]; then if [ $GOALS = 1 ]; then REPORT=gpu_goals.md; else REPORT=gpu_check.md; fi; fi
BASELINE_ARG=$BASELINE
LAST_ARG=$LAST
BUILD=$(abspath "$BUILD")
REPORT=$(abspath "$REPORT")
[ -n "$PYDIR" ] || PYDIR=$BUILD/python
PYDIR=$(abspath "$PYDIR")
BASE_IMPACT=""
if [ -n "$BASELINE" ]; then
  BASELINE=$(abspath "$BASELINE")
  BASE_IMPACT=$BASELINE/impact
  [ -x "$BASE_IMPACT" ] || [ "$DRY" = 1 ] || { echo "gpu_check: --baseline $BASELINE: no $BASE_IMPACT" >&2; exit 2; }
fi
if [ -n "$LAST" ]; then
  LAST=$(abspath "$LAST")
  [ -x "$LAST/impact" ] || [ "$DRY" = 1 ] || { echo "gpu_check: --last $LAST: no $LAST/impact" >&2; exit 2; }
fi
LOGDIR=${REPORT%.md}
[ "$LOGDIR" != "$REPORT" ] || LOGDIR=$REPORT.logs
IMPACT=$BUILD/impact
# the Python with NumPy (scripts/find_python.sh: IMPACT_PYTHON, python3 on PATH, /usr/bin/python3)
PY=$(bash "$(dirname "$0")/../scripts/find_python.sh" numpy 2>/dev/null || echo python3)

STEP_TITLES=("" "device facts" "CUDA tests" "compute-sanitizer" "Nsight Compute" "throughput" "SIMT model"
             "bench matrix" "ptxas resources" "Python device arrays" "calibrate")
want() {  # want STEP_NUMBER: is this step selected? (a step left out gets a SKIP row in the summary)
  local n=$1
  [ "$n" = 1 ] && return 0
  [ $GOALS = 0 ] || return 1  # --goals runs its rows instead (--only/--skip select those)
  if { [ -n "$ONLY" ] && [[ ",$ONLY," != *",$n,"* ]]; } || { [ -n "$SKIP" ] && [[ ",$SKIP," == *",$n,"* ]]; }; then
    skip_step "$n. ${STEP_TITLES[n]}" - "not selected (--only/--skip)"
    return 1
  fi
  return 0
}

now() { date +%s.%N; }
secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
quote() {  # the arguments as a shell would read them back (plain words unquoted)
  local s="" a
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then s+="$a "; else s+="$(printf '%q' "$a") "; fi
  done
  printf '%s' "${s% }"
}
say() { echo "gpu_check: $*" >&2; }

# ---- steps: run, time, bound, record ------------------------------------------------------------
declare -a S_NAME=() S_KIND=() S_STATUS=() S_SECS=() S_NOTE=()
declare -A S_IDX=()
LAST_RC=0
LAST_LOG=""

record() {  # record NAME KIND STATUS SECS NOTE
  local i=${#S_NAME[@]}
  S_NAME+=("$1"); S_KIND+=("$2"); S_STATUS+=("$3"); S_SECS+=("$4"); S_NOTE+=("$5")
  S_IDX[$1]=$i
}
set_status() {  # set_status NAME STATUS [NOTE]
  local i=${S_IDX[$1]:-}
  [ -n "$i" ] || return 0
  S_STATUS[i]=$2
  [ $# -lt 3 ] || S_NOTE[i]=$3
}
status_of() { local i=${S_IDX[$1]:-}; [ -n "$i" ] && printf '%s' "${S_STATUS[i]}"; }

KILL_S=30  # timeout's -k: seconds between its TERM and its KILL
# step NAME KIND TIMEOUT [--stdout FILE] -- COMMAND...
#   KIND: check (a failure makes the exit status 1) or measure. The command's stdout and stderr go to
#   LOGDIR/NAME.log (stdout to FILE with --stdout). Sets LAST_RC and LAST_LOG; returns the exit status.
step() {
  local name=$1 kind=$2 tmo=$3 out=""
  shift 3
  if [ "${1:-}" = --stdout ]; then out=$2; shift 2; fi
  [ "${1:-}" = -- ] && shift
  LAST_LOG=$LOGDIR/$name.log
  if [ $DRY = 1 ]; then
    printf '[%s] timeout -k %s %s %s' "$name" "$KILL_S" "$tmo" "$(quote "$@")"
    if [ -n "$out" ]; then printf ' > %s 2> %s\n' "$(quote "$out")" "$(quote "$LAST_LOG")"; else printf ' > %s 2>&1\n' "$(quote "$LAST_LOG")"; fi
    LAST_RC=0
    return 0
  fi
  say "[$name] $(quote "$@")"
  printf '$ %s\n' "$(quote "$@")" > "$LAST_LOG"
  local t0 rc
  t0=$(now)
  if [ -n "$out" ]; then
    timeout -k "$KILL_S" "$tmo" "$@" > "$out" 2>> "$LAST_LOG"
  else
    timeout -k "$KILL_S" "$tmo" "$@" >> "$LAST_LOG" 2>&1
  fi
  rc=$?
  local secs status note=""
  secs=$(secs_since "$t0")
  printf '# exit %s after %s s\n' "$rc" "$secs" >> "$LAST_LOG"
  if [ $rc = 0 ]; then
    status=PASS
  elif [ $rc = 124 ] || [ $rc = 137 ]; then
    status=TIMEOUT; note="over ${tmo} s"
  else
    status=FAIL; note="exit $rc"
  fi
  record "$name" "$kind" "$status" "$secs" "$note"
  say "[$name] $status ($secs s)"
  LAST_RC=$rc
  return $rc
}

skip_step() {  # skip_step NAME KIND WHY
  if [ $DRY = 1 ]; then printf '[%s] skipped: %s\n' "$1" "$3"; return; fi
  record "$1" "$2" SKIP 0 "$3"
}

# ---- report -----------------------------------------------------------------------------------------
BODY=""
add() { BODY+="$*"$'\n'; }
addfile() {  # addfile FILE [MAXLINES]: the file's text into the report
  local f=$1 max=${2:-400}
  if [ -s "$f" ]; then
    BODY+="$(head -n "$max" "$f")"$'\n'
    local n
    n=$(wc -l < "$f")
    [ "$n" -le "$max" ] || BODY+=$'\n'"($n lines; the rest in \`$(basename "$LOGDIR")/$(basename "$f")\`)"$'\n'
  else
    BODY+="(no output: see \`$(basename "$LOGDIR")/$(basename "$f")\`)"$'\n'
  fi
}
DEVICE_NAME="(unknown)"
REV=""
STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
COMPLETE=0

write_report() {
  [ $DRY = 1 ] && return 0
  local tmp=$REPORT.tmp i
  {
    echo "# GPU check: impactbatch"
    echo
    echo "| | |"
    echo "| --- | --- |"
    echo "| date (UTC) | $STARTED |"
    echo "| revision | $REV |"
    echo "| device | $DEVICE_NAME |"
    echo "| build | \`$BUILD\` |"
    echo "| command | \`$CMDLINE\` |"
    echo "| mode | $(if [ $GOALS = 1 ]; then echo goals; elif [ $QUICK = 1 ]; then echo quick; else echo full; fi) |"
    echo "| raw logs | \`$(basename "$LOGDIR")/\` |"
    echo
    [ $COMPLETE = 1 ] || { echo "**Incomplete: the script was still running (or was stopped) when this was written.**"; echo; }
    printf '%s' "$BODY"
    echo "## Summary"
    echo
    echo "| step | kind | status | seconds | note |"
    echo "| --- | --- | --- | ---: | --- |"
    for i in "${!S_NAME[@]}"; do
      echo "| ${S_NAME[i]} | ${S_KIND[i]} | ${S_STATUS[i]} | ${S_SECS[i]} | ${S_NOTE[i]} |"
    done
    echo
    if [ $COMPLETE = 1 ]; then
      echo "Checks failed: $FAILED_CHECKS. Exit status $EXIT_STATUS."
    fi
  } > "$tmp" && mv "$tmp" "$REPORT"
}

# ---- report rows from the steps' files (JSON, ncu CSV and text): perf/gpu_check_rows.py ----------
ROWS=$ROOT/perf/gpu_check_rows.py

# ---- 0. preconditions: a GPU, a build with CUDA -------------------------------------------------
if [ $DRY = 1 ]; then
  echo "# gpu_check dry run: the commands it would run (none is run). Report: $REPORT, raw logs: $LOGDIR/"
  echo "[precheck] nvidia-smi -L   (fails: exit 77)"
fi
if [ $DRY = 0 ]; then
  if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi -L > /dev/null 2>&1; then
    say "no usable NVIDIA GPU here: nvidia-smi $(command -v nvidia-smi > /dev/null 2>&1 && echo "-L failed" || echo "is not on PATH"). Run this on a machine with an NVIDIA GPU (or use --dry-run to see the commands)."
    exit 77
  fi
  [ -d "$LOGDIR" ] && LOGDIR_EXISTED=1 || LOGDIR_EXISTED=0
  mkdir -p "$LOGDIR" || { say "cannot create $LOGDIR"; exit 1; }
fi
early_exit() {  # early_exit STATUS: leave no empty log folder behind
  [ "${LOGDIR_EXISTED:-1}" = 1 ] || rmdir "$LOGDIR" 2> /dev/null
  exit "$1"
}

if [ ! -x "$IMPACT" ] && [ $GOALS = 1 ]; then
  # a build takes longer than the call --goals has to fit in
  if [ $DRY = 1 ]; then echo "# $IMPACT is missing: --goals builds nothing (exit 2)"; else say "--goals: $IMPACT is missing; build it first (--goals builds nothing)"; early_exit 2; fi
elif [ ! -x "$IMPACT" ]; then
  if [ $DRY = 1 ]; then echo "# $IMPACT is missing: it would be built"; else say "$IMPACT is missing: configuring and building $BUILD"; fi
  step build_configure check 1800 -- cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DIMPACT_CUDA=ON &&
    step build check 3600 -- cmake --build "$BUILD" -j
  if [ $DRY = 0 ] && [ ! -x "$IMPACT" ]; then
    say "the build failed (logs: $LOGDIR/build_configure.log, $LOGDIR/build.log)"
    early_exit 1
  fi
elif [ $DRY = 1 ]; then
  echo "# $IMPACT exists: no build"
fi

if [ $DRY = 1 ]; then
  echo "[precheck] $(quote "$IMPACT" reduce --law newton --n 1 --backend cuda -q --out /dev/null)   (no CUDA device: exit 77)"
else
  why=$("$IMPACT" reduce --law newton --n 1 --backend cuda -q --out /dev/null 2>&1)
  rc=$?
  if [ $rc != 0 ]; then
    if [[ $why == *"no CUDA backend"* ]]; then
      say "$IMPACT was built without CUDA ($why). Rebuild it with -DIMPACT_CUDA=ON, or pass --build with a CUDA build."
      early_exit 1
    fi
    say "impact finds no usable CUDA device: $why"
    early_exit 77
  fi
fi

REV=$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null || true)
VERSION=$("$IMPACT" --version 2> /dev/null | head -n 1 || true)
if [ -n "$REV" ]; then REV="$REV (impact --version: ${VERSION:-?})"; else REV="impact --version: ${VERSION:-?} (no git here)"; fi
CSV_JIA=$LOGDIR/cases_jia_2000.csv

# ---- 1. device facts ------------------------------------------------------------------------------
add "## 1. Device"
add
if step device_query measure 60 --stdout "$LOGDIR/device_query.csv" -- \
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; then
  if [ $DRY = 0 ]; then
    IFS=, read -r g_name g_driver g_mem < <(head -n 1 "$LOGDIR/device_query.csv")
    DEVICE_NAME="${g_name# } (driver ${g_driver# }, ${g_mem# })"
    ngpu=$(wc -l < "$LOGDIR/device_query.csv")
    add "| GPU | driver | memory |"
    add "| --- | --- | --- |"
    while IFS=, read -r a b c; do add "| ${a# } | ${b# } | ${c# } |"; done < "$LOGDIR/device_query.csv"
    add
    [ "$ngpu" -le 1 ] || add "$ngpu GPUs; the runs below use the default device (0)."
  fi
fi
step device_smi measure 60 -- nvidia-smi
tools_log=$LOGDIR/tools.txt
if [ $DRY = 1 ]; then
  echo "[tools] nvcc --version; ncu --version; compute-sanitizer --version; cmake --version; python3 --version > $tools_log"
else
  {
    for t in nvcc ncu compute-sanitizer cmake; do
      printf '%s: ' "$t"
      if command -v "$t" > /dev/null 2>&1; then
        v=$("$t" --version 2>&1 | grep -iE 'release|version' | head -n 1)
        echo "${v:-(no version line)}"
      else
        echo "not on PATH"
      fi
    done
    printf 'python3: %s (%s)\n' "$($PY --version 2>&1)" "$(command -v $PY)"
    printf 'impact: %s\n' "$VERSION"
  } > "$tools_log"
  add '```'
  addfile "$tools_log" 20
  add '```'
  add
fi
write_report

# ---- --goals: the seven goals, every build, in one call ---------------------------------------------
# The whole call, precheck included, stays under the lent machine's 8 minutes less a margin; each row
# has its own budget (the --help table; they add up to 420 s), shared by its commands on every build:
# each command may take its weight's share of what is left (this build 2, the others 1 each), so
# the measured column, which decides met?, has the most time, and what a command leaves goes on.
GOALS_TOTAL_S=450
GOAL_PATH=(""
  "chatterjee-ruina sampled reduce (\`impact reduce --law chatterjee-ruina --backend cuda\`, double, n = 4e9), instances/s"
  "identical-ball jia (\`impact reduce --law jia --scenario ball\`, every parameter fixed, double, n = 4e7: the sort's cost on a coherent batch), instances/s"
  "\`impactbatch.evaluate\` on JAX device arrays, algebraic laws, double and float, n = 4e6, against the JAX peer (benches/python_bench.py --device, benches/peers/jax_peer.py)"
  "eval path, chatterjee-ruina double, rows in host memory (\`impact bench\`): bytes/s as a share of a pinned memcpy to the device"
  "10^6-row study (examples/studies/pencil-mc.toml, jia and stronge, cuda): total time over law time"
  "calibration fit on the Cornell data with jia (examples/calibration/cornell-jia.toml, 24-row batches): cuda time over omp time"
  "stronge double sampled reduce (\`impact reduce --law stronge --backend cuda\`, n = 4e7), instances/s")
GOAL_KIND=("" rate rate device-ratio eval-share study-ratio calibrate-ratio rate)  # gpu_check_rows.py goal-value
GOAL_OP=("" ">=" ">=" ">=" ">=" "<=" "<=" ">=")
GOAL_VAL=("" 5e9 4.3e7 1 50 2 1 1e8)
GOAL_TEXT=("" ">= 5e9/s" ">= 4.3e7/s" ">= 1x JAX on every law" ">= 50%" "<= 2" "cuda time <= omp time" ">= 1e8/s")
GOAL_BUDGET=("" 30 30 95 60 120 60 25)
# the identical ball instances of docs/bench.md ("SIMT model"): the ball scenario with every parameter fixed
BALL_FIXED=(--scenario ball --set V0x=-1 --set V0y=0 --set V0z=-5 --set w0x=0 --set w0y=2 --set mu=0.4 --set e=0.5)
declare -a G_KEYS=() G_FILES=()
declare -A G_DIR=() G_PYDIR=() G_CELL=()
ROW_BUDGET=0
ROW_END=0
ROW_WEIGHTS=0  # the weights of the row's commands not yet run
G_WEIGHT=1     # the weight of the build whose commands run now
DRY_SPENT=0    # --dry-run: the seconds the row's commands printed so far may take
STUDY_TMP=""

goal_selected() {  # goal_selected ROW: is this goal row selected by --only/--skip?
  if { [ -n "$ONLY" ] && [[ ",$ONLY," != *",$1,"* ]]; } || { [ -n "$SKIP" ] && [[ ",$SKIP," == *",$1,"* ]]; }; then
    return 1
  fi
  return 0
}

gstep() {  # gstep TAG COMMAND...: a measurement under its share of the row's and the call's budgets
  local tag=$1 t left share
  shift
  t=$(date +%s)
  left=$((ROW_END - t))
  [ $((T_START + GOALS_TOTAL_S - t)) -ge "$left" ] || left=$((T_START + GOALS_TOTAL_S - t))
  [ $DRY = 0 ] || left=$((ROW_BUDGET - DRY_SPENT))  # as if every command took all its time
  share=$((left * G_WEIGHT / (ROW_WEIGHTS > 0 ? ROW_WEIGHTS : 1)))
  ROW_WEIGHTS=$((ROW_WEIGHTS - G_WEIGHT))
  DRY_SPENT=$((DRY_SPENT + share))
  if [ "$share" -lt 5 ]; then
    skip_step "$tag" measure "not run: under 5 s left of the budget"
    return 1
  fi
  step "$tag" measure "$share" -- "$@"
}

goal_commands() {  # goal_commands ROW BUILD_DIR PYTHON_DIR TAG: one build's commands of a row; sets G_FILES
  local r=$1 b=$2 py=$3 tag=$4 be out
  local imp=$b/impact
  G_FILES=("$LOGDIR/$tag.json")
  case $r in
    1) gstep "$tag" "$imp" reduce --law chatterjee-ruina --backend cuda --precision double --n 4000000000 --steps 250 -q \
         --out "${G_FILES[0]}" ;;
    2) gstep "$tag" "$imp" reduce --law jia "${BALL_FIXED[@]}" --backend cuda --precision double --n 40000000 --steps 250 -q \
         --out "${G_FILES[0]}" ;;
    3) if [ $DRY = 0 ] && [ ! -d "$py" ]; then
         ROW_WEIGHTS=$((ROW_WEIGHTS - G_WEIGHT))
         skip_step "$tag" measure "no $py"
         return
       fi
       gstep "$tag" env PYTHONPATH="$py" "$PY" "$ROOT/benches/python_bench.py" --device --n 4000000 \
         --laws newton,chatterjee-ruina,aghili,morgan --precisions double,float --reps 5 --json "${G_FILES[0]}" ;;
    4) gstep "$tag" "$imp" bench --laws chatterjee-ruina --backends cuda --precisions double --max-n 16777216 \
         --min-time 0.5 --reps 3 -q --json "${G_FILES[0]}" ;;
    5) out=$STUDY_TMP/$tag
       G_FILES=("$LOGDIR/$tag.metadata.json")
       gstep "$tag" "$imp" study "$ROOT/examples/studies/pencil-mc.toml" --set design.n=1000000 --backend cuda --no-plots -q \
         --out "$out"
       # metadata.json is the measurement; the tables (about 2 GB) go
       if [ $DRY = 1 ]; then echo "[$tag] cp $out/metadata.json ${G_FILES[0]}; rm -rf $out"
       else cp "$out/metadata.json" "${G_FILES[0]}" 2> /dev/null; rm -rf "$out"; fi ;;
    6) G_FILES=("$LOGDIR/${tag}_cuda/metadata.json" "$LOGDIR/${tag}_omp/metadata.json")
       for be in cuda omp; do
         [ $DRY = 1 ] || rm -rf "${LOGDIR:?}/${tag}_$be"
         gstep "${tag}_$be" "$imp" calibrate "$ROOT/examples/calibration/cornell-jia.toml" --set 'calibrate.method="fit"' \
           --set fit.global=512 --backend "$be" -q --no-plots --out "$LOGDIR/${tag}_$be"
       done ;;
    7) gstep "$tag" "$imp" reduce --law stronge --backend cuda --precision double --n 40000000 --steps 250 -q \
         --out "${G_FILES[0]}" ;;
  esac
}

runs_of() {  # runs_of TAG: the status and note of the steps TAG and TAG_*, for a cell without a value
  local i out=""
  for i in "${!S_NAME[@]}"; do
    case ${S_NAME[i]} in "$1" | "$1"_*) out+="${out:+, }${S_NAME[i]} ${S_STATUS[i]}${S_NOTE[i]:+: ${S_NOTE[i]}}" ;; esac
  done
  printf '%s' "${out:-not run}"
}

goal_row() {  # goal_row ROW: the row's commands on every build, then its line of the table (GOAL_LINES)
  local r=$1 k tag val v=""
  ROW_BUDGET=${GOAL_BUDGET[r]}
  ROW_END=$(($(date +%s) + ROW_BUDGET))
  ROW_WEIGHTS=$((${#G_KEYS[@]} + 1))  # this build 2, the others 1
  [ "$r" != 6 ] || ROW_WEIGHTS=$((ROW_WEIGHTS * 2))  # cuda and omp
  DRY_SPENT=0
  [ $DRY = 0 ] || echo "# goal $r: ${GOAL_PATH[r]}; goal ${GOAL_TEXT[r]}; budget $ROW_BUDGET s shared by the commands below (timeouts: the worst case)"
  for k in "${G_KEYS[@]}"; do
    tag=goal${r}_$k
    G_WEIGHT=1
    [ "$k" != this ] || G_WEIGHT=2
    goal_commands "$r" "${G_DIR[$k]}" "${G_PYDIR[$k]}" "$tag"
    [ $DRY = 0 ] || continue
    if val=$($PY "$ROWS" goal-value "${GOAL_KIND[r]}" "${G_FILES[@]}" 2>> "$LOGDIR/goal_values.log") && [ -n "$val" ]; then
      G_CELL[$k]=${val#*$'\t'}
      [ "$k" != this ] || v=${val%%$'\t'*}
    else
      G_CELL[$k]="no value ($(runs_of "$tag"); \`$(basename "$LOGDIR")/$tag*.log\`)"
    fi
  done
  [ $DRY = 0 ] || return 0
  local met
  met=$($PY "$ROWS" goal-met "$v" "${GOAL_OP[r]}" "${GOAL_VAL[r]}")
  GOAL_LINES+="| $r. ${GOAL_PATH[r]} | ${G_CELL[this]} | ${G_CELL[base]:-no --baseline} | ${G_CELL[last]:-no --last} | ${GOAL_TEXT[r]} | $met |"$'\n'
}

run_goals() {  # the goals table in place of steps 2..10
  G_KEYS=(this)
  G_DIR=([this]=$BUILD)
  G_PYDIR=([this]=$PYDIR)  # --python, or BUILD/python
  [ -z "$BASELINE" ] || { G_KEYS+=(base); G_DIR[base]=$BASELINE; G_PYDIR[base]=$BASELINE/python; }
  [ -z "$LAST" ] || { G_KEYS+=(last); G_DIR[last]=$LAST; G_PYDIR[last]=$LAST/python; }
  KILL_S=5
  if [ $DRY = 1 ]; then
    STUDY_TMP=${TMPDIR:-/tmp}/gpu_check_study.XXXXXX
    echo "# --goals: the call within $GOALS_TOTAL_S s; builds: ${G_KEYS[*]} (this = $BUILD${BASELINE:+, base = $BASELINE}${LAST:+, last = $LAST})"
  else
    STUDY_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check_study.XXXXXX") || { say "cannot create a temporary folder"; return 1; }
    trap 'rm -rf "$STUDY_TMP"' EXIT
  fi
  local body0=$BODY r head
  head="| path | measured | baseline (${BASELINE_ARG:-none}) | last measured build (${LAST_ARG:-none}) | goal | met? |"
  GOAL_LINES=""
  for r in 1 2 3 4 5 6 7; do
    if goal_selected "$r"; then
      goal_row "$r"
    elif [ $DRY = 1 ]; then
      echo "# goal $r: not selected (--only/--skip)"
    else
      GOAL_LINES+="| $r. ${GOAL_PATH[r]} | not selected (--only/--skip) | | | ${GOAL_TEXT[r]} | - |"$'\n'
    fi
    [ $DRY = 0 ] || continue
    BODY=$body0  # the report so far: the device, then the table as far as it goes
    add "## Goals"
    add
    add "Each build's own run on this device in this call; \`met?\` reads the measured column. Raw files: \`$(basename "$LOGDIR")/goalROW_BUILD*\`."
    add
    add "$head"
    add "| --- | --- | --- | --- | --- | --- |"
    BODY+=$GOAL_LINES
    add
    write_report
  done
  [ $DRY = 1 ] || printf '%s\n%s\n%s' "$head" "| --- | --- | --- | --- | --- | --- |" "$GOAL_LINES"
}

if [ $GOALS = 1 ]; then
  run_goals
fi

# ---- 2. CUDA tests ----------------------------------------------------------------------------------
if want 2; then
  add "## 2. CUDA tests"
  add
  if [ $DRY = 0 ] && [ ! -x "$BUILD/impact_tests" ]; then
    skip_step gtest_cuda check "no $BUILD/impact_tests"
    set_status gtest_cuda FAIL "no $BUILD/impact_tests"
    add "- \`impact_tests\`: missing in $BUILD."
  else
    step gtest_cuda check 900 -- "$BUILD/impact_tests" --gtest_filter='Cuda*:*Cuda*'
    if [ $DRY = 0 ]; then
      pass=$(grep -o '^\[  PASSED  \] [0-9]* test' "$LAST_LOG" | grep -o '[0-9]*' | tail -n 1)
      failn=$(grep -o '^\[  FAILED  \] [0-9]* test' "$LAST_LOG" | grep -o '[0-9]*' | tail -n 1)
      skipn=$(grep -o '^\[  SKIPPED \] [0-9]* test' "$LAST_LOG" | grep -o '[0-9]*' | tail -n 1)
      total=$(grep -o '^\[==========\] [0-9]* tests* from' "$LAST_LOG" | grep -o '[0-9]*' | tail -n 1)
      note="${pass:-0} of ${total:-?} passed, ${failn:-0} failed, ${skipn:-0} skipped"
      set_status gtest_cuda "$(status_of gtest_cuda)" "$note"
      if [ "$(status_of gtest_cuda)" = PASS ] && [ "${pass:-0}" = 0 ]; then set_status gtest_cuda FAIL "no test ran ($note)"; fi
      failed=$(grep '^\[  FAILED  \] [A-Za-z]' "$LAST_LOG" | sed -E 's/^\[  FAILED  \] ([^ ]+).*/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//')
      add "- \`impact_tests --gtest_filter='Cuda*:*Cuda*'\`: $note ($(status_of gtest_cuda)).${failed:+ Failed: $failed}"
      add
      add '```'
      BODY+="$(grep -E '^(cuda vs|CUDA device|\[ +(OK|FAILED|SKIPPED) +\])' "$LAST_LOG" | head -n 60)"$'\n'
      add '```'
    fi
  fi
  if [ $CTEST = 0 ]; then
    skip_step ctest - "--no-ctest"
  else
    step ctest check 1800 -- ctest --test-dir "$BUILD" -j 8 --output-on-failure
  fi
  if [ $DRY = 0 ] && [ $CTEST = 1 ]; then
    summ=$(grep -E '[0-9]+% tests passed' "$LAST_LOG" | tail -n 1)
    nskip=$(grep -cE ' - .*\(Skipped\)\s*$' "$LAST_LOG")
    failed=$(sed -n '/The following tests FAILED:/,$p' "$LAST_LOG" | grep -E '^\s+[0-9]+ - ' | sed -E 's/^\s+[0-9]+ - //' | tr '\n' ';' | sed 's/;$//')
    set_status ctest "$(status_of ctest)" "${summ:-no summary line}; skipped $nskip"
    add
    add "- \`ctest --test-dir $(basename "$BUILD") -j 8\`: ${summ:-no summary line (see ctest.log)}; $nskip skipped ($(status_of ctest))."
    [ -z "$failed" ] || add "  Failed: $failed"
  fi
  add
  write_report
fi

# ---- 3. compute-sanitizer -------------------------------------------------------------------------
sanitizer_counts() {  # sanitizer_counts NAME TOOL: status and note from the log's summary line
  local name=$1 tool=$2 log=$LOGDIR/$1.log line errs note st
  st=$(status_of "$name")
  if [ "$tool" = racecheck ]; then
    line=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?, [0-9]+ warnings?\)' "$log" | tail -n 1)
    errs=$(printf '%s' "$line" | sed -nE 's/.*\(([0-9]+) error.*/\1/p')
  else
    line=$(grep -oE 'ERROR SUMMARY: [0-9]+ errors?' "$log" | tail -n 1)
    errs=$(printf '%s' "$line" | grep -oE '[0-9]+')
  fi
  note=${line:-no summary line}
  if [ -z "$line" ] || [ "${errs:-1}" != 0 ]; then st=FAIL; fi
  set_status "$name" "$st" "$note"
  add "| $tool | \`$3\` | $note | $st |"
}
if want 3; then
  add "## 3. compute-sanitizer"
  add
  if [ $DRY = 0 ] && ! command -v compute-sanitizer > /dev/null 2>&1; then
    for s in memcheck_eval_jia memcheck_reduce_jia racecheck_reduce_cr; do skip_step $s check "compute-sanitizer not on PATH"; set_status $s FAIL; done
    add "compute-sanitizer is not on PATH."
  else
    step cases_jia check 300 -- "$IMPACT" reduce --law jia --n 2000 --backend omp -q --out /dev/null --cases-out "$CSV_JIA"
    add "| tool | run | summary | status |"
    add "| --- | --- | --- | --- |"
    step memcheck_eval_jia check 900 -- compute-sanitizer --tool memcheck --print-limit 50 \
      "$IMPACT" eval --law jia --backend cuda --in "$CSV_JIA" --out /dev/null
    [ $DRY = 1 ] || sanitizer_counts memcheck_eval_jia memcheck "eval --law jia --backend cuda, 2000 sampled rows"
    step memcheck_reduce_jia check 900 -- compute-sanitizer --tool memcheck --print-limit 50 \
      "$IMPACT" reduce --law jia --backend cuda --n 20000 -q --out /dev/null
    [ $DRY = 1 ] || sanitizer_counts memcheck_reduce_jia memcheck "reduce --law jia --backend cuda --n 20000"
    step racecheck_reduce_cr check 900 -- compute-sanitizer --tool racecheck --print-limit 50 \
      "$IMPACT" reduce --law chatterjee-ruina --backend cuda --n 200000 -q --out /dev/null
    [ $DRY = 1 ] || sanitizer_counts racecheck_reduce_cr racecheck "reduce --law chatterjee-ruina --backend cuda --n 200000"
  fi
  add
  write_report
fi

# ---- 4. Nsight Compute ------------------------------------------------------------------------------
NCU_SECTIONS=(--section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats
              --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis
              --section MemoryWorkloadAnalysis)
NCU_METRICS="launch__registers_per_thread,sm__maximum_warps_per_active_cycle_pct,sm__warps_active.avg.pct_of_peak_sustained_active"
NCU_METRICS+=",smsp__thread_inst_executed_per_inst_executed.ratio,sm__inst_executed.avg.per_cycle_active"
NCU_METRICS+=",l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"
NCU_METRICS+=",smsp__average_warp_latency_per_inst_issued.ratio"
NCU_METRICS+=",regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio"
if want 4; then
  add "## 4. Nsight Compute: sampled_reduce_kernel on random instances"
  add
  if [ $DRY = 0 ] && ! command -v ncu > /dev/null 2>&1; then
    skip_step ncu measure "ncu not on PATH"
    add "ncu is not on PATH."
  else
    add "\`impact reduce --law L --backend cuda --n N --steps 250\` (contact scenario, default spreads; morgan: planar"
    add "balls), the first launch of \`sampled_reduce_kernel\`. Registers: \`launch__registers_per_thread\`; occupancy:"
    add "\`sm__maximum_warps_per_active_cycle_pct\` / \`sm__warps_active.avg.pct_of_peak_sustained_active\`; active threads"
    add "per warp: \`smsp__thread_inst_executed_per_inst_executed.ratio\`; IPC: \`sm__inst_executed.avg.per_cycle_active\`"
    add "(executed, per SM); local memory: \`l1tex__t_bytes_pipe_lsu_mem_local_op_ld/st.sum\` (spills and the stack frames"
    add "of out-of-line calls); top stall: the largest \`smsp__average_warps_issue_stalled_*_per_issue_active.ratio\`"
    add "(cycles per issued instruction; [text]: read from the section text). $RECORDED_BASE (--set full): jia double 255"
    add "regs + spills, 12.5%/12.4%, 6.96 threads, IPC 0.36, no_instruction 62%; stronge double 255, 11.6 threads,"
    add "IPC 1.21; chatterjee-ruina 128, 25%/24.2%, 27.7 threads, IPC 1.57."
    add
    add "| law, precision, n | regs | occupancy th. / ach. | active threads/warp | IPC | local mem ld / st (bytes) | top stall |"
    add "| --- | ---: | --- | ---: | ---: | --- | --- |"
    ncu_cases=("jia double 200000" "stronge double 200000" "newton double 2000000" "chatterjee-ruina double 2000000"
               "aghili double 2000000" "morgan double 2000000")
    [ $QUICK = 1 ] || ncu_cases+=("jia float 200000" "stronge float 200000")
    for c in "${ncu_cases[@]}"; do
      read -r law prec n <<< "$c"
      [ -z "$NCU_LAWS" ] || [[ ",$NCU_LAWS," == *",$law,"* ]] || continue
      tag=ncu_${law}_${prec}
      extra=()
      [ "$law" != morgan ] || extra=(--scenario ball --set V0y=0 --set w0x=0 --set w0z=0)
      app=("$IMPACT" reduce --law "$law" --backend cuda --precision "$prec" --n "$n" --steps 250 "${extra[@]}" -q --out /dev/null)
      ncu_base=(ncu --target-processes all --kernel-name regex:sampled_reduce_kernel --launch-count 1 "${NCU_SECTIONS[@]}")
      rep=$LOGDIR/$tag
      rm -f "$rep.ncu-rep" 2> /dev/null
      step "$tag" measure 900 -- "${ncu_base[@]}" --metrics "$NCU_METRICS" --export "$rep" --force-overwrite "${app[@]}"
      if [ $DRY = 0 ] && [ ! -s "$rep.ncu-rep" ]; then
        # an unknown metric name fails the whole run: again with the sections alone
        set_status "$tag" "$(status_of "$tag")" "exit $LAST_RC, no report: retried with the sections alone"
        step "${tag}_sections" measure 900 -- "${ncu_base[@]}" --export "$rep" --force-overwrite "${app[@]}"
      fi
      if [ $DRY = 1 ] || [ -s "$rep.ncu-rep" ]; then
        step "${tag}_text" measure 300 --stdout "$rep.txt" -- ncu --import "$rep.ncu-rep" --page details
        step "${tag}_raw" measure 300 --stdout "$rep.csv" -- ncu --import "$rep.ncu-rep" --page raw --csv --print-units base
      fi
      if [ $DRY = 0 ]; then
        row=$($PY "$ROWS" ncu-row "$law $prec, $n" "$rep.csv" "$rep.txt" 2>> "$LOGDIR/$tag.log")
        add "${row:-| $law $prec, $n | (ncu failed: see $(basename "$LOGDIR")/$tag.log) | | | | | |}"
        [ -s "$rep.ncu-rep" ] || set_status "$tag" FAIL "no report (see $tag.log)"
      fi
    done
    add
    add "Raw: \`$(basename "$LOGDIR")/ncu_LAW_PREC.txt\` (section text), \`.csv\` (every metric), \`.ncu-rep\` (open in Nsight Compute)."
  fi
  add
  write_report
fi

# ---- 5. throughput --------------------------------------------------------------------------------
if want 5; then
  add "## 5. Throughput: \`impact reduce\` (contact scenario, default spreads, 250 steps)"
  add
  add "instances/s = \`instances_per_second\` of \`--out F.json\` (the sampled study, without the range pilot)."
  if [ -n "$BASE_IMPACT" ]; then
    BASE_REV=$("$BASE_IMPACT" --version 2> /dev/null | head -n 1)
    add "Baseline: \`$BASE_IMPACT\` (${BASE_REV:-no version}), run here on the same device after the first case of each law,"
    add "precision and backend, with its arguments (a baseline older than the lane switch ignores IMPACT_CUDA_LANES). Goals: the H200's (docs/bench.md,"
    add "\"Where the kernels stand\": jia double >= 2.5e7/s, float >= 4e7/s; stronge double >= 1e8/s)."
    base_head=baseline
  else
    add "Baseline: $RECORDED_BASE, the nested-search build on an H100 80GB HBM3 (docs/perf-log.md, \"The first GPU"
    add "measurements\"). Goals: the H100's (jia double >= 1.7e7/s, stronge double >= 1.7e8/s)."
    base_head=$RECORDED_BASE
  fi
  add
  add "| law, precision, backend | n | instances/s | $base_head | ratio | goal |"
  add "| --- | ---: | ---: | ---: | ---: | --- |"
  # n large enough that a process's fixed costs stay under ~5% of the study time: the first launch
  # loads the kernel's module (about 30 ms on an H200, 60 ms from a -lineinfo build: stronge double
  # at 4e6 spent a third of its 0.09 s there, docs/bench.md "Fixed costs of a process")
  if [ $QUICK = 1 ]; then n_jia=4000000; n_st=4000000; n_cr=100000000; n_omp=200000
  else n_jia=40000000; n_st=40000000; n_cr=1000000000; n_omp=1000000; fi
  # law precision backend n baseline goal lanes (IMPACT_CUDA_LANES: grid-stride, or persistent lanes
  # with a work counter; "+at-once": IMPACT_CUDA_SEARCH=at-once, every lane searching its
  # events at once instead of the warp's vote, impact/search_vote.hpp; the summaries are the same
  # bits, compare the rates). The recorded
  # baseline and goal columns are $RECORDED_BASE's on an H100; with --baseline, the baseline is measured
  # and the goals are the H200's (goal_h200).
  tp_cases=("jia double cuda $n_jia 1.69e6 1.7e7 grid-stride" "jia double cuda $n_jia 1.69e6 1.7e7 persistent"
            "jia float cuda $n_jia 3.14e6 - grid-stride" "jia float cuda $n_jia 3.14e6 - persistent"
            "stronge double cuda $n_st 1.72e7 1.7e8 grid-stride" "stronge double cuda $n_st 1.72e7 1.7e8 persistent"
            "stronge double cuda $n_st 1.72e7 1.7e8 persistent+at-once"
            "stronge float cuda $n_st 4.49e7 - grid-stride" "stronge float cuda $n_st 4.49e7 - persistent"
            "stronge float cuda $n_st 4.49e7 - persistent+at-once"
            "chatterjee-ruina double cuda $n_cr 1.68e9 - grid-stride" "chatterjee-ruina double cuda $n_cr 1.68e9 - persistent"
            "jia double omp $n_omp 1.64e5 - grid-stride")
  declare -A goal_h200=([jia_double]=2.5e7 [jia_float]=4e7 [stronge_double]=1e8)
  declare -A base_rate=()
  for c in "${tp_cases[@]}"; do
    read -r law prec be n base goal lanes <<< "$c"
    search=deferred
    [ "${lanes#*+}" = at-once ] && search=at-once
    tag=reduce_${law}_${prec}_${be}
    label="$law $prec $be"
    if [ "$be" = cuda ]; then tag=${tag}_${lanes/+/_}; label="$label, $lanes"; fi
    lanes=${lanes%%+*}
    args=(reduce --law "$law" --backend "$be" --precision "$prec" --n "$n" --steps 250 -q)
    step "$tag" measure 900 -- env IMPACT_CUDA_LANES="$lanes" IMPACT_CUDA_SEARCH="$search" "$IMPACT" "${args[@]}" \
      --out "$LOGDIR/$tag.json"
    if [ -n "$BASE_IMPACT" ]; then
      goal=${goal_h200[${law}_$prec]:--}
      [ "$be" = cuda ] || goal=-
      bkey=${law}_${prec}_$be
      if [ -z "${base_rate[$bkey]:-}" ]; then  # the baseline once per law, precision and backend
        step "base_$tag" measure 900 -- env IMPACT_CUDA_LANES="$lanes" "$BASE_IMPACT" "${args[@]}" --out "$LOGDIR/base_$tag.json"
        [ $DRY = 1 ] || base_rate[$bkey]=$($PY "$ROWS" rate "$LOGDIR/base_$tag.json" 2> /dev/null)
        [ -n "${base_rate[$bkey]:-}" ] || base_rate[$bkey]=-
      fi
      base=${base_rate[$bkey]}
    fi
    if [ $DRY = 0 ]; then
      row=$($PY "$ROWS" throughput-row "$label" "$LOGDIR/$tag.json" "$base" "$goal" 2>> "$LOGDIR/$tag.log")
      add "${row:-| $label | $n | (failed: see $(basename "$LOGDIR")/$tag.log) | $base | | |}"
      r=$($PY "$ROWS" rate "$LOGDIR/$tag.json" 2> /dev/null)
      [ -z "$r" ] || set_status "$tag" "$(status_of "$tag")" "$r instances/s"
    fi
  done
  add
  [ -n "$BASE_IMPACT" ] || add "The omp baseline is $RECORDED_BASE, on that machine's 16 cores; compare it only on a like machine."
  add
  write_report
fi

# ---- 6. SIMT model ----------------------------------------------------------------------------------
if want 6; then
  add "## 6. SIMT model (CPU-side prediction of the warp coherence, docs/bench.md)"
  add
  step simt measure 900 -- "${IMPACT_SIMT:-$(dirname "$IMPACT")/impact-simt}" --laws jia,stronge --steps 250 --markdown "$LOGDIR/simt.md" \
    --json "$LOGDIR/simt.json"
  if [ $DRY = 0 ]; then
    add "\`impact-simt --laws jia,stronge --steps 250\`: compare its predicted active threads per warp with the"
    add "Nsight Compute column of step 4 (the model counts issue slots only)."
    add
    addfile "$LOGDIR/simt.md" 200
  fi
  add
  write_report
fi

# ---- 7. bench matrix --------------------------------------------------------------------------------
if want 7; then
  add "## 7. \`impact bench\` matrix"
  add
  bench_opts=(--max-n 16777216)
  [ $QUICK = 0 ] || bench_opts+=(--steps 250 --min-time 0.2 --reps 3)
  step bench measure 1800 -- "$IMPACT" bench "${bench_opts[@]}" --markdown "$LOGDIR/bench.md" --json "$LOGDIR/bench.json"
  if [ $DRY = 0 ]; then
    add "\`impact bench $(quote "${bench_opts[@]}")\` (eval path: the batch in host memory, streamed over PCIe; --max-n as"
    add "benches/run_matrix.sh uses with a GPU)."
    add
    addfile "$LOGDIR/bench.md" 300
  fi
  add
  write_report
fi

# ---- 8. ptxas resources -----------------------------------------------------------------------------
if want 8; then
  add "## 8. Registers and spills (ptxas, perf/ptxas/kernel_resources.py)"
  add
  # the budgets of the ctest cli.kernel_resources (one list, in tests/cli/kernel_resources.sh)
  step kernel_resources check 300 --stdout "$LOGDIR/kernel_resources.md" -- \
    bash "$ROOT/tests/cli/kernel_resources.sh" "$BUILD/impact" "$ROOT"
  if [ $DRY = 0 ]; then
    if [ "$LAST_RC" = 77 ]; then set_status kernel_resources FAIL "no ptxas logs in $BUILD/ptxas (exit 77)"; fi
    add "Check (tests/cli/kernel_resources.sh, as ctest's cli.kernel_resources): no spill store or load in a jia or stronge kernel or device function, but the sampled reduction and eval kernels, whose launch bounds trade spills for occupancy, each within its register and spill budget ($(status_of kernel_resources))."
    add
    addfile "$LOGDIR/kernel_resources.md" 200
  fi
  add
fi

# ---- 9. Python device arrays ------------------------------------------------------------------------
if want 9; then
  add "## 9. Python: evaluate() on device arrays (CuPy / PyTorch / JAX)"
  add
  step py_device check 900 -- env PYTHONPATH="$PYDIR" IMPACT_BINARY="$BUILD/impact" IMPACT_SOURCE_DIR="$ROOT" \
    "$PY" -m pytest -q -rs -p no:cacheprovider "$ROOT/python/tests/test_device.py"
  if [ $DRY = 0 ]; then
    summary=$(grep -E '[0-9]+ (passed|failed)' "$LAST_LOG" | tail -n 1)
    if [ "$(status_of py_device)" = PASS ] && ! grep -qE '[0-9]+ passed' "$LAST_LOG"; then set_status py_device FAIL "no test ran"; fi
    add "- \`pytest python/tests/test_device.py\`: ${summary:-no summary} ($(status_of py_device)); a skip names its reason (no framework with a GPU):"
    add '```'
    BODY+="$(grep -E '^SKIPPED' "$LAST_LOG" | sort | uniq -c | head -n 12)"$'\n'
    add '```'
  fi
  step py_device_bench measure 900 -- env PYTHONPATH="$PYDIR" \
    "$PY" "$ROOT/benches/python_bench.py" --device --n "$([ $QUICK = 1 ] && echo 1000000 || echo 4000000)" \
    --json "$LOGDIR/python_device.json"
  if [ $DRY = 0 ]; then
    add "- \`python_bench.py --device\` (evaluate on JAX device arrays against the JAX peer on the same arrays; exit 77: no JAX GPU):"
    add '```'
    BODY+="$(grep -E 'evaluate on device arrays' "$LAST_LOG" | head -n 8)"$'\n'
    add '```'
  fi
  add
fi

# ---- 10. calibrate ---------------------------------------------------------------------------------
if want 10; then
  add "## 10. \`impact calibrate\`: the methods' evaluation rate on cuda and omp"
  add
  add "The ensemble: examples/calibration/ball-synthetic.toml (24 experiments) with the law and the walkers x steps"
  add "below (each step of the stretch move evaluates half the walkers x 24 experiments as one batch). SMC:"
  add "examples/calibration/cornell-jia.toml (24 experiments), the particles below on both backends (each stage's"
  add "moves evaluate every particle x 24 experiments as one batch). rows/s = \`timings.rows_per_s\` of"
  add "metadata.json (impacts evaluated per second of the whole run, the method included)."
  add
  add "| case, backend | rows | seconds | rows/s | law share |"
  add "| --- | ---: | ---: | ---: | ---: |"
  cal_cases=("ensemble chatterjee-ruina 64 2000 cuda" "ensemble chatterjee-ruina 64 2000 omp" "ensemble jia 64 300 cuda"
             "ensemble jia 64 300 omp" "ensemble jia 4096 50 cuda" "ensemble jia 4096 50 omp"
             "smc jia 32768 0 cuda" "smc jia 32768 0 omp")
  for c in "${cal_cases[@]}"; do
    read -r method law walkers steps be <<< "$c"
    tag=calibrate_${method}_${law}_${walkers}x${steps}_$be
    [ $DRY = 1 ] || rm -rf "${LOGDIR:?}/$tag"  # no metadata.json of an earlier check in its place
    if [ "$method" = smc ]; then
      what=(--set "smc.particles=$walkers")
      config=cornell-jia.toml
    else
      what=(--set 'calibrate.method="ensemble"' --set "calibrate.law=$law" --set "mcmc.walkers=$walkers" --set "mcmc.steps=$steps")
      config=ball-synthetic.toml
    fi
    step "$tag" measure 600 -- "$IMPACT" calibrate "$ROOT/examples/calibration/$config" "${what[@]}" \
      --backend "$be" -q --force --no-plots --out "$LOGDIR/$tag"
    if [ $DRY = 0 ]; then
      row=$($PY "$ROWS" calibrate-row "$LOGDIR/$tag/metadata.json" 2>> "$LOGDIR/$tag.log")
      if [ "$method" = smc ]; then label="smc, $law on Cornell, $walkers particles"; else label="ensemble, $law, $walkers x $steps"; fi
      add "| $label, $be | ${row:-(failed: see $(basename "$LOGDIR")/$tag.log) | | |} |"
    fi
  done
  add
  write_report
fi

# ---- summary ----------------------------------------------------------------------------------------
if [ $DRY = 1 ]; then
  if [ $GOALS = 1 ]; then
    echo "# then: the goals table (path | measured | baseline | last measured build | goal | met?) on stdout and in $REPORT"
  else
    echo "# then: the report $REPORT (header, one section per step, summary table step | kind | status | seconds | note)"
  fi
  exit 0
fi
FAILED_CHECKS=0
for i in "${!S_NAME[@]}"; do
  if [ "${S_KIND[i]}" = check ] && [ "${S_STATUS[i]}" != PASS ]; then FAILED_CHECKS=$((FAILED_CHECKS + 1)); fi
done
EXIT_STATUS=0
[ $FAILED_CHECKS = 0 ] || EXIT_STATUS=1
COMPLETE=1
write_report
say "report: $REPORT (raw logs in $LOGDIR/); checks failed: $FAILED_CHECKS; exit $EXIT_STATUS"
exit $EXIT_STATUS
