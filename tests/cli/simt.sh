#!/usr/bin/env bash
# impact-simt, the SIMT model of the performance room (perf/README.md, docs/bench.md "SIMT model"):
# the table and JSON of a small run, perf/sass/simt_beside_hotspots.py on its JSON, usage errors.
# Skipped (77) in a build without perf/ (IMPACT_PERF=OFF).
set -u
source "$(dirname "$0")/common.bash"
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
need_simt
bad() {  # name, expected message (grep pattern), options...
  local name=$1 msg=$2
  shift 2
  "$SIMT" "$@" > /dev/null 2> "$T/err"; rc=$?
  check "$name exits 2 with a message" '[ $rc -eq 2 ] && grep -q "$msg" "$T/err"'
}

# 1. the SIMT model (docs/bench.md) from CPU traces: one row per integrator law x precision x
#    steps, active threads per warp between 1 and 32, a refill and a sorted schedule; no timing
"$SIMT" --laws jia,stronge --precisions double --steps 20 --warps 2 --rounds 2 \
  --json "$T/simt.json" --markdown "$T/simt.md" -q; rc=$?
check "simt exits 0" '[ $rc -eq 0 ]'
check "simt json rows" 'python3 -c "
import json,sys
j = json.load(open(sys.argv[1]))
rows = j[\"simt\"]
assert [r[\"law\"] for r in rows] == [\"jia\", \"stronge\"], rows
for r in rows:
    assert r[\"instances\"] == 2 * 2 * 32
    for k in (\"grid_stride\", \"refill\", \"sorted\", \"nested_search\"):
        assert 1 <= r[k][\"active_threads\"] <= 32 and r[k][\"warp_issue\"] > 0, (k, r)
    assert r[\"blocks\"] and all(b[\"warp_issue\"] >= b[\"lane_work\"] / 32 for b in r[\"blocks\"])
    s = r[\"sorted\"]
    assert s[\"block_issue\"] >= s[\"warp_issue\"] > s[\"kernel_issue\"] > 0, s
    t = s[\"predicted_ms_per_1e6\"]
    assert 0 < t[\"occupancy_25\"] < t[\"occupancy_12.5\"], t  # latency-bound at both
" "$T/simt.json"'
check "simt markdown table" 'grep -q "| jia | double | 20 | 128 |" "$T/simt.md"'
check "simt markdown: where the issue goes, with code" 'grep -q "| step rate | \`rate\` |" "$T/simt.md"'

# 1b. --levers on a law with a descent phase: the two-pass table. Sorted by the true count, a pass's
#     warps of 32 hold the fewest lane-iterations (consecutive groups of the sorted counts minimise
#     the sum of the groups' maxima), so the oracle's active threads bound every other key's, pass by pass
"$SIMT" --laws stronge --precisions double --steps 40 --warps 2 --rounds 2 --levers --markdown "$T/levers.md" -q; rc=$?
check "simt --levers exits 0" '[ $rc -eq 0 ]'
check "simt --levers: two passes, each bounded by its oracle" 'python3 - "$T/levers.md" << "PY"
import sys
text = open(sys.argv[1]).read()
rows = [[c.strip() for c in l.strip().strip("|").split("|")]
        for l in text.split("Two passes (")[1].splitlines() if l.startswith("| stronge double 40 |")]
one = {r[2]: float(r[6]) for r in rows if r[1] == "one pass"}
two = [r for r in rows if r[1].startswith("two passes")]
assert len(one) == 2 and len(two) == 7, rows
assert one["the count (oracle)"] >= one["regime key"] > 0, one
oracle = [r for r in two if r[2] == r[3] == "the count (oracle)"][0]
for r in two:
    a, b, c = float(r[4]), float(r[5]), float(r[6])
    assert 0 < min(a, b, c) and max(a, b, c) <= 32, r
    assert min(a, b) <= c + 1e-9 <= max(a, b) + 2e-9, r  # the passes pooled lie between them
    assert float(oracle[4]) >= a - 1e-9 and float(oracle[5]) >= b - 1e-9, (r, oracle)
assert any("-step run (" in r[2] for r in two), two
PY'

# 2. perf/sass/simt_beside_hotspots.py: the model's blocks grouped by the functions they name, beside a
#    per-line profile summed per function (a synthetic one here: known shares and active threads)
cat > "$T/hot.csv" << 'EOF'
file,line,stall_samples,warp_insts,thread_insts,function,inlined_at
include/impact/laws/detail/stronge.hpp,130,10,100,1600,detail::stronge::System<double>::rate
include/impact/laws/detail/stronge.hpp,131,0,0,0,detail::stronge::System<double>::rate
include/impact/laws/detail/stronge.hpp,480,5,50,400,detail::Stronge::Run<double>::slip_control<impact::NoProbe>
kernels/cuda/sampled.cu,74,20,10,320,"cuda::{anon}::sampled_reduce_kernel<StrongeLaw, double>"
include/impact/other.hpp,1,65,40,1280,mystery<double>(…)::{lambda()#1}::operator()
EOF
# a helper inlined into the law: its lines go to the first call site (inlined_at, innermost first)
# whose function, in the source tree, a block names (rk_step, inside detail::Stronge::Run::step)
python3 - "$SRC" >> "$T/hot.csv" << 'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/scripts")
from check_layout import functions
def inside(rel, name):
    return next(a + 1 for n, a, b in functions(open(f"{sys.argv[1]}/{rel}").read()) if n.split("::")[-1] == name and b > a + 1)
rk, st = inside("include/impact/rk4.hpp", "rk_step"), inside("include/impact/laws/detail/stronge.hpp", "step")
print(f'include/impact/rk4.hpp,16,0,100,3200,"axpy<detail::stronge::State<double>, double>",'
      f'include/impact/rk4.hpp:{rk} <- include/impact/laws/detail/stronge.hpp:{st} <- kernels/cuda/sampled.cu:73')
PY
python3 "$SRC/perf/sass/simt_beside_hotspots.py" --simt "$T/simt.json" --hotspots "$T/hot.csv" --law stronge \
  --steps 20 --root "$SRC" > "$T/beside.md" 2> "$T/beside.err"; rc=$?
check "beside exits 0" '[ $rc -eq 0 ]'
check "beside: rate's lines, a third of the warp insts at 16 active" 'grep -E "^\| rate \|.*\| 33.3% \| 16.0 \| 10.0% \|$" "$T/beside.md"'
check "beside: slip_control at 8 active" 'grep -E "^\| slip_control \|.*\| 16.7% \| 8.0 \| 5.0% \|$" "$T/beside.md"'
check "beside: the inlined helper with its caller rk_step" 'grep -E "^\| [a-z_, ]*rk_step[a-z_, ]* \|.*\| 33.3% \| 32.0 \| 0.0% \|$" "$T/beside.md"'
check "beside: unnamed functions in other" 'grep -E "^\| other: mystery.*\| 13.3% \| 32.0 \| 65.0% \|$" "$T/beside.md"'
printf 'file,line,stall_samples,warp_insts,thread_insts,function\nx.hpp,1,5\nx.hpp,2,,1,1,f\n' > "$T/short.csv"
python3 "$SRC/perf/sass/simt_beside_hotspots.py" --simt "$T/simt.json" --hotspots "$T/short.csv" --law stronge \
  --steps 20 > /dev/null 2> "$T/short.err"; rc=$?
check "beside: damaged rows are an error, not a crash" '[ $rc -ne 0 ] && grep -q "no rows with numbers" "$T/short.err" && ! grep -q Traceback "$T/short.err"'
check "beside: the model shares add up to 100%" 'python3 - "$T/beside.md" << "PY"
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| ") and not l.startswith(("| other", "| functions", "| ---"))]
tot = sum(float(re.split(r"\s*\|\s*", l)[3].rstrip("%")) for l in rows)
assert abs(tot - 100) < 0.5, tot
PY'
python3 "$SRC/perf/sass/simt_beside_hotspots.py" --simt "$T/simt.json" --hotspots "$T/hot.csv" --law stronge \
  --steps 999 > /dev/null 2> "$T/beside.err"; rc=$?
check "beside: no model row is an error" '[ $rc -ne 0 ] && grep -q "no model row for stronge double 999 steps" "$T/beside.err"'
bad "simt on an algebraic law" "law .newton. has no path probes" --laws newton
bad "bad set" "unknown key .nosuchkey. for scenario contact" --laws jia --set nosuchkey=1
bad "zero warps" "warps and --rounds must be >= 1" --laws jia --warps 0

finish
