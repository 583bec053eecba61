#!/usr/bin/env bash
# perf/sass/local_traffic.py and `impact-simt --local-traffic` (docs/bench.md, "Local memory in
# the model"). A saved disassembly written for the test (CI has no nvdisasm): a kernel loop over
# instances holding a law loop, with local loads and stores at known lines of laws/detail/stronge.hpp
# inside and outside the law loop, and line counts given as a file; then the same line counts taken
# by gcov from the host driver (g++ --coverage), and the model's table from the script's JSON.
set -u
source "$(dirname "$0")/common.bash"
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
need_simt
H="$SRC/include/impact/laws/detail/stronge.hpp"
K="$SRC/kernels/cuda/sampled.cu"
cat > "$T/fake.sass" << EOF
	//## File "$K", line 150
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
	//## File "$H", line 600 inlined at "$K", line 160
        /*0010*/                   LDL R2, [R1+0x10] ;
.L_x_1:
	//## File "$SRC/include/impact/rk4.hpp", line 40 inlined at "$H", line 700
	//## File "$H", line 700 inlined at "$K", line 160
        /*0020*/                   LDL.64 R4, [R1+0x20] ;
        /*0030*/                   DFMA R4, R4, R4, R4 ;
	//## File "$H", line 701 inlined at "$K", line 160
        /*0040*/                   STL.64 [R1+0x20], R4 ;
        /*0050*/              @!P0 STL [R1+0x8], R3 ;
	//## File "$K", line 161
        /*0060*/                   LDL R6, [R1+0x30] ;
        /*0070*/               @P1 BRA \`(.L_x_1) ;
	//## File "$H", line 702 inlined at "$K", line 160
        /*0080*/                   STL [R1+0x40], R2 ;
        /*0090*/               @P2 BRA \`(.L_x_0) ;
        /*00a0*/                   EXIT ;
EOF
# 100 instances: line 700 ran 400 times (4 per instance), 701 200 times, 600 and 702 once each per instance
cat > "$T/counts.json" << 'EOF'
{"law": "stronge", "precision": "double", "steps": 20, "instances": 100,
 "lines": {"600": 100, "700": 400, "701": 200, "702": 100}}
EOF
python3 "$SRC/perf/sass/local_traffic.py" --law stronge --precision double --steps 20 --root "$SRC" \
  --counts "$T/counts.json" --json "$T/lt.json" --about "test" "$T/fake.sass:4:as built" "$T/fake.sass:3:three" \
  > "$T/lt.md"; rc=$?
check "local_traffic exits 0" '[ $rc -eq 0 ]'
# the law loop is .L_x_1 (nested in .L_x_0): 4 loads (line 700, through rk4's frame), 2 x 2 stores
# (line 701); the kernel's own LDL at line 161 has no line of the law (weight 0); 600 and 702 lie
# outside the law loop
check "loads and stores of the law loop" 'python3 - "$T/lt.json" << "PY"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["about"] == "test", j
r = j["local_traffic"]
assert [(c["label"], c["blocks"], c["loads"], c["stores"], c["steps"]) for c in r] == \
    [("as built", 4, 4.0, 4.0, 20), ("three", 3, 4.0, 4.0, 20)], r
PY'
check "markdown row" 'grep -q "| as built | 4 | 6 | 2 / 2 | 4 / 4 |" "$T/lt.md"'
python3 "$SRC/perf/sass/local_traffic.py" --law stronge --counts "$T/counts.json" "$T/fake.sass:0" > /dev/null 2>&1
check "blocks 0 refused" '[ $? -eq 2 ]'

# the model's table from the JSON
"$SIMT" --laws stronge --precisions double --steps 20 --warps 2 --rounds 2 \
  --local-traffic "$T/lt.json" --markdown "$T/simt.md" --json "$T/simt.json" -q; rc=$?
check "impact-simt --local-traffic exits 0" '[ $rc -eq 0 ]'
check "a row per configuration" 'grep -q "| stronge | double | 20 | as built | 4 | 25.00% | 4 / 4 |" "$T/simt.md" &&
  grep -q "| stronge | double | 20 | three | 3 | 18.75% | 4 / 4 |" "$T/simt.md"'
check "JSON rows, the same traffic slower at fewer blocks" 'python3 - "$T/simt.json" << "PY"
import json, sys
r = json.load(open(sys.argv[1]))["simt"][0]["local_traffic"]
assert [c["label"] for c in r] == ["as built", "three"], r
assert r[1]["predicted_ms_per_1e6"] > r[0]["predicted_ms_per_1e6"] > 0, r
PY'
# errors: a configuration of a law or steps this run does not trace, a bad value (file:line:col),
# and --local-traffic given to the product's bench, which has no model
"$SIMT" --laws stronge --precisions double --steps 30 --warps 2 --rounds 2 \
  --local-traffic "$T/lt.json" -q 2> "$T/err1"; rc=$?
check "untraced configuration: exit 2, named" '[ $rc -eq 2 ] && grep -q "does not trace" "$T/err1" && grep -q "lt.json:" "$T/err1"'
printf '{"local_traffic": [\n {"law": "stronge", "precision": "double", "steps": 20,\n  "blocks": 4, "loads": -1, "stores": 0}]}\n' > "$T/bad.json"
"$SIMT" --laws stronge --precisions double --steps 20 --warps 2 --rounds 2 \
  --local-traffic "$T/bad.json" -q 2> "$T/err2"; rc=$?
check "negative loads: exit 2 at its line" '[ $rc -eq 2 ] && grep -q "bad.json:3:.*loads" "$T/err2"'
"$IMPACT" bench --local-traffic "$T/lt.json" -q 2> "$T/err3"; rc=$?
check "impact bench has no --local-traffic" '[ $rc -ne 0 ] && grep -q "local-traffic" "$T/err3"'

# gcov's line counts from the host driver (20 instances sampled by impact reduce): the law's
# per-instance lines ran once per instance, the step's lines more often
if command -v g++ > /dev/null && command -v gcov > /dev/null; then
  PATH="$(dirname "$(readlink -f "$IMPACT")"):$PATH" python3 "$SRC/perf/sass/local_traffic.py" --law stronge \
    --precision double --steps 20 --root "$SRC" --instances 20 --counts-out "$T/gcov.json" "$T/fake.sass:4" \
    > /dev/null; rc=$?
  check "gcov counts exit 0" '[ $rc -eq 0 ]'
  check "gcov counts: eval once per instance, the rate more often" 'python3 - "$T/gcov.json" "$H" << "PY"
import json, re, sys
c = json.load(open(sys.argv[1]))
assert c["instances"] == 20, c["instances"]
src = open(sys.argv[2]).read().split("\n")
def line(pattern):
    return next(i + 1 for i, l in enumerate(src) if re.search(pattern, l))
ev = line(r"Run<T> m;")                       # eval_unit: one Run per instance
rate = line(r"const T rr = w1 \* w1 \+ w2")    # Speed::of: every rate stage of every step
lines = {int(k): v for k, v in c["lines"].items()}
assert lines[ev] == 20, (ev, lines.get(ev))
assert lines[rate] > 20 * 20, (rate, lines.get(rate))
PY'
else
  echo "local_traffic: no g++ or gcov here: the gcov counts are not checked"
fi
finish
