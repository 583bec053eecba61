#!/usr/bin/env bash
# Peer implementations on the same instances as `impact`, checked before they are timed.
#
#   bash benches/peers/run_peers.sh IMPACT_BINARY OUTDIR [--n N] [--steps S...] [--reps R]
#        [--laws "newton chatterjee-ruina jia"] [--precisions "double float"] [--peers "numpy jax"]
#        [--ours-backend omp] [--no-omp-timing] [--warmup W] [--jax-check "CHECK.PY ARGS"]
#
# 1. OUTDIR/cases.csv: N instances of the contact scenario (`impact reduce --law jia --scenario
#    contact --n N --seed 1 --cases-out`).
# 2. For each law, precision and (jia) step count: our results with `impact eval --backend
#    OURS_BACKEND` (default omp: the fast-path code compiled for the host, without FMA contraction),
#    then each available peer (numpy_peer.py with $NUMPY_PYTHON or the Python scripts/find_python.sh
#    finds with NumPy; jax_peer.py with $JAX_PYTHON or the first of the same Pythons that
#    imports jax). check.py compares the peer's table with ours BEFORE its time is recorded: a peer
#    whose results are wrong gets status "wrong results" and no throughput, and the script exits 1
#    at the end. A peer that cannot run here (no NumPy / no JAX) is recorded as skipped.
# 3. For a quick ratio, `impact eval --backend omp` on the same file is timed too (law time from its
#    summary, median of the repetitions; --no-omp-timing to leave it out). Our own throughput
#    figures come from `impact bench`, not from here.
#    --jax-check passes extra arguments to check.py for the JAX peer, e.g. "--outliers 0.01
#    --outlier-rtol 1e-3" on a GPU, where XLA contracts FMAs and jia can take a discrete decision (an
#    event's step) the other way on a few rows; the JSON then says how many rows were let through.
# Output: OUTDIR/peers.json (a list of {peer, law, precision, steps, n, instances_per_s, median_s,
# reps, check: {passed, max_rel_err}, status, ...}), OUTDIR/peers.md (the same as a table), and per
# run the tables (ours_*.csv, <peer>_*.csv), timing (*.timing.json) and check (*.check.json/.txt).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
IMPACT=$1
OUT=$2
shift 2
N=20000
STEPS=()
REPS=3
LAWS="newton chatterjee-ruina jia"
PRECS="double float"
PEERS="numpy jax"
OURS_BACKEND=omp
OMP_TIMING=1
WARMUP=1
JAX_CHECK=
while [ $# -gt 0 ]; do
  case $1 in
    --n) N=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --laws) LAWS=$2; shift 2 ;;
    --precisions) PRECS=$2; shift 2 ;;
    --peers) PEERS=$2; shift 2 ;;
    --ours-backend) OURS_BACKEND=$2; shift 2 ;;
    --no-omp-timing) OMP_TIMING=0; shift ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --jax-check) JAX_CHECK=$2; shift 2 ;;
    --steps)
      shift
      while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do STEPS+=("$1"); shift; done ;;
    -h|--help) usage ;;
    *) echo "run_peers.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ ${#STEPS[@]} -gt 0 ] || STEPS=(100 250)
[ -x "$IMPACT" ] || { echo "run_peers.sh: $IMPACT is not an executable" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
REC="$OUT/records.jsonl"
: > "$REC"

# Pythons (scripts/find_python.sh: IMPACT_PYTHON, python3 on PATH, /usr/bin/python3): the first that
# imports NumPy, the first that imports JAX, unless NUMPY_PYTHON / JAX_PYTHON name them.
FIND_PY="$(dirname "$0")/../../scripts/find_python.sh"
NUMPY_PY=${NUMPY_PYTHON:-$(bash "$FIND_PY" numpy 2>/dev/null)}
JAX_PY=${JAX_PYTHON:-$(bash "$FIND_PY" jax 2>/dev/null)}
PY=${NUMPY_PY:-python3}  # for check.py and the report (standard library only)
echo "run_peers: numpy python: ${NUMPY_PY:-none}; jax python: ${JAX_PY:-none}" >&2

# record PEER LAW PREC STEPS STATUS [TIMING_JSON] [CHECK_JSON]
record() {
  "$PY" - "$REC" "$@" <<'EOF'
import json, sys
rec, peer, law, prec, steps, status = sys.argv[1:7]
timing = sys.argv[7] if len(sys.argv) > 7 else ""
check = sys.argv[8] if len(sys.argv) > 8 else ""
r = {"peer": peer, "law": law, "precision": prec, "steps": int(steps) if steps not in ("", "-") else None,
     "n": None, "instances_per_s": None, "median_s": None, "reps": None, "check": None, "status": status}
if check:
    c = json.load(open(check))
    r["check"] = {"passed": c["passed"], "max_rel_err": c["max_rel_err"], "status_mismatches": c["status_mismatches"],
                  "rtol": c["rtol"], "outliers_tolerated": c.get("outliers_tolerated", 0)}
if timing:
    t = json.load(open(timing))
    r["n"] = t.get("n")
    if status == "ok":  # a time is recorded only for results that passed the check
        for k in ("instances_per_s", "median_s", "reps", "compile_s", "device", "backend", "cpu_isa_limit"):
            if k in t:
                r[k] = t[k]
open(rec, "a").write(json.dumps(r) + "\n")
EOF
}

echo "run_peers: generating $N instances" >&2
if ! "$IMPACT" reduce --law jia --scenario contact --n "$N" --seed 1 --cases-out "$OUT/cases.csv" -q; then
  echo "run_peers.sh: impact reduce failed" >&2
  exit 1
fi
NROWS=$(( $(wc -l < "$OUT/cases.csv") - 1 ))
failed=0

for law in $LAWS; do
  if [ "$law" = jia ]; then steps_list=("${STEPS[@]}"); else steps_list=(-); fi
  for steps in "${steps_list[@]}"; do
    sopt=(); tag=$law
    if [ "$steps" != - ]; then sopt=(--steps "$steps"); tag=${law}_s$steps; fi
    for prec in $PRECS; do
      ours="$OUT/ours_${tag}_$prec.csv"
      if ! "$IMPACT" eval --law "$law" --in "$OUT/cases.csv" --out "$ours" --precision "$prec" \
          --backend "$OURS_BACKEND" "${sopt[@]}" -q; then
        echo "run_peers.sh: impact eval --law $law --precision $prec failed" >&2
        failed=1
        continue
      fi
      if [ $OMP_TIMING -eq 1 ]; then  # law time of `impact eval --backend omp`, median of REPS runs
        tj="$OUT/impact-omp_${tag}_$prec.timing.json"
        for r in $(seq "$REPS"); do
          "$IMPACT" eval --law "$law" --in "$OUT/cases.csv" --out /dev/null --precision "$prec" --backend omp \
            "${sopt[@]}" 2>&1 | grep -o 'law time [0-9.e+-]* s' | awk '{print $3}'
        done > "$OUT/omp_times.txt"
        "$PY" - "$OUT/omp_times.txt" "$NROWS" "$tj" <<'EOF'
import json, statistics, sys
t = [float(x) for x in open(sys.argv[1]).read().split()]
n = int(sys.argv[2])
med = statistics.median(t) if t else None
json.dump({"n": n, "reps": len(t), "median_s": med, "times_s": t, "backend": "omp",
           "instances_per_s": n / med if med else None}, open(sys.argv[3], "w"))
EOF
        record impact-omp "$law" "$prec" "$steps" ok "$tj"
      fi
      for peer in $PEERS; do
        case $peer in
          numpy) py=$NUMPY_PY; script=numpy_peer.py; why="NumPy not available"; cargs=() ;;
          jax) py=$JAX_PY; script=jax_peer.py; why="JAX not available"; read -r -a cargs <<< "$JAX_CHECK" ;;
          *) echo "run_peers.sh: unknown peer '$peer'" >&2; exit 2 ;;
        esac
        if [ -z "$py" ]; then
          echo "run_peers: $peer $law $prec ${steps}: skipped ($why)" >&2
          record "$peer" "$law" "$prec" "$steps" "skipped ($why)"
          continue
        fi
        base="$OUT/${peer}_${tag}_$prec"
        echo "run_peers: $peer $law $prec steps ${steps}" >&2
        "$py" "$HERE/$script" --law "$law" --in "$OUT/cases.csv" --out "$base.csv" --precision "$prec" \
          "${sopt[@]}" --reps "$REPS" --warmup "$WARMUP" --timing-out "$base.timing.json" 2> "$base.err"
        rc=$?
        if [ $rc -eq 77 ]; then
          record "$peer" "$law" "$prec" "$steps" "skipped ($why)"
          continue
        elif [ $rc -ne 0 ]; then
          echo "run_peers.sh: $peer $law $prec failed (exit $rc):" >&2
          tail -5 "$base.err" >&2
          record "$peer" "$law" "$prec" "$steps" "failed (exit $rc)"
          failed=1
          continue
        fi
        # the check comes first; only a passing peer has its time recorded
        if "$PY" "$HERE/check.py" "$ours" "$base.csv" --precision "$prec" --json "$base.check.json" \
            "${cargs[@]}" --label "$peer $law $prec${sopt[*]:+ ${sopt[*]}}" > "$base.check.txt" 2>&1; then
          record "$peer" "$law" "$prec" "$steps" ok "$base.timing.json" "$base.check.json"
        else
          cat "$base.check.txt" >&2
          record "$peer" "$law" "$prec" "$steps" "wrong results" "$base.timing.json" "$base.check.json"
          rm -f "$base.timing.json"  # no time is kept for wrong results
          failed=1
        fi
      done
    done
  done
done

"$PY" - "$REC" "$OUT/peers.json" "$OUT/peers.md" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump(recs, open(sys.argv[2], "w"), indent=1)
lines = ["| peer | law | precision | steps | n | check (max rel err) | instances/s | median s | reps | status |",
         "| --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- |"]
for r in recs:
    c = r.get("check")
    chk = "-" if c is None else ("passed (%.2g)" % c["max_rel_err"] if c["passed"] else "FAILED (%.2g)" % c["max_rel_err"])
    if c and c.get("outliers_tolerated"):
        chk += ", %d outlier rows" % c["outliers_tolerated"]
    ips = "-" if r.get("instances_per_s") is None else "%.4g" % r["instances_per_s"]
    med = "-" if r.get("median_s") is None else "%.4g" % r["median_s"]
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["peer"], r["law"], r["precision"], r["steps"] if r["steps"] is not None else "-",
        r["n"] if r["n"] is not None else "-", chk, ips, med, r.get("reps") or "-", r["status"]))
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
if [ $failed -ne 0 ]; then
  echo "run_peers.sh: some peer gave wrong results or failed (see above); no time was recorded for it" >&2
  exit 1
fi
exit 0
