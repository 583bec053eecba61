#!/usr/bin/env bash
# perf/sass/sass_lines.py: SASS and local-memory (spill) instructions per source function from a
# kernel's line table, weighted by the SIMT model's runs per instance (docs/bench.md, "Spills on
# the step path"). Here on a saved disassembly written for the test (CI has no nvdisasm): known
# instructions at known lines of rk_step, IllinoisBracket::update and detail::Stronge::Run::step, with
# their inlining chains, so that the counts, the attribution to the innermost named function, the
# step path and the model's runs can be checked exactly.
set -u
source "$(dirname "$0")/common.bash"
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
need_simt

"$SIMT" --laws stronge --precisions double --steps 20 --warps 2 --rounds 2 \
  --json "$T/simt.json" -q; rc=$?
check "simt exits 0" '[ $rc -eq 0 ]'
python3 "$SRC/tests/cli/helpers/fake_sass.py" "$SRC" "$T/fake.sass"
python3 "$SRC/perf/sass/sass_lines.py" --sass "$T/fake.sass" --root "$SRC" --simt "$T/simt.json" --law stronge \
  --steps 20 --path rk_step --json "$T/out.json" > "$T/out.md"; rc=$?
check "sass_lines exits 0" '[ $rc -eq 0 ]'
check "counts, path and runs" 'python3 - "$T/out.json" "$T/simt.json" << "PY"
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["sass"], j["ldl"], j["stl"]) == (8, 2, 2), j
assert (j["path"]["sass"], j["path"]["ldl"], j["path"]["stl"]) == (2, 1, 0), j["path"]
f = {r["function"]: r for r in j["functions"]}
assert (f["rk_step"]["sass"], f["rk_step"]["ldl"], f["rk_step"]["stl"]) == (2, 1, 0), f
assert (f["update"]["sass"], f["update"]["stl"]) == (2, 2), f      # innermost named: not step
assert f["sampled_reduce_kernel"]["sass"] == 1 and f["sampled_reduce_kernel"]["runs_per_instance"] > 0, f
assert f["step"]["sass"] == 1 and f["step"]["ldl"] == 0, f  # through the outer "inlined at" frame
assert (f[""]["sass"], f[""]["ldl"]) == (2, 1) and f[""]["file"] == "<no line info>", f
m = json.load(open(sys.argv[2]))["simt"][0]["sorted_blocks"]
runs = max(b["lane_work"] / b["cost"] for b in m if "update" in b["code"].split())
assert abs(f["update"]["runs_per_instance"] - runs) < 1e-12 and abs(f["update"]["local_per_instance"] - 2 * runs) < 1e-9
PY'
check "markdown table" 'grep -q "| include/impact/illinois.hpp | update | 2 | 0 | 2 |" "$T/out.md"'
# --lines: per line of the kernel's own file (the innermost frame there): the kernel's line took the
# step's, the bracket's and its own instructions; axpy's chain and the slow path have no frame there
python3 "$SRC/perf/sass/sass_lines.py" --sass "$T/fake.sass" --root "$SRC" --lines kernels/cuda/sampled.cu \
  --json "$T/lines.json" > "$T/lines.md"; rc=$?
check "--lines exits 0" '[ $rc -eq 0 ]'
KLINE=$(cat "$T/fake.sass.kline")
check "--lines counts per line" 'python3 - "$T/lines.json" "$KLINE" << "PY"
import json, sys
j = json.load(open(sys.argv[1]))["lines"]
assert [(r["line"], r["sass"], r["ldl"], r["stl"]) for r in j] == [(int(sys.argv[2]), 5, 1, 2), (None, 3, 1, 0)], j
PY'
check "--lines table" 'grep -q "| $KLINE | 5 | 1 | 2 |" "$T/lines.md" && grep -q "| elsewhere | 3 | 1 | 0 |" "$T/lines.md"'
# --loops: back edges close address ranges; an inner loop nests in an outer one, a forward branch
# closes none, and MIN drops the small ones
cat > "$T/loops.sass" << 'SASS'
.L_x_1:
        /*0100*/                   LDL R2, [R1+0x10] ;
.L_x_2:
        /*0110*/                   MUFU.RCP64H R3, R5 ;
        /*0120*/                   STL [R1+0x10], R3 ;
        /*0130*/               @P0 BRA `(.L_x_2) ;
        /*0140*/              @!P1 BRA `(.L_x_1) ;
        /*0150*/                   BRA `(.L_x_3) ;
.L_x_3:
        /*0160*/                   EXIT ;
SASS
python3 "$SRC/perf/sass/sass_lines.py" --sass "$T/loops.sass" --root "$SRC" --loops 1 --json "$T/loops.json" \
  > "$T/loops.md"; rc=$?
check "--loops exits 0" '[ $rc -eq 0 ]'
check "--loops: both loops, nested, counted" 'python3 - "$T/loops.json" << "PY"
import json, sys
l = [(x["first"], x["last"], x["sass"], x["ldl"], x["stl"], x["rcp"]) for x in json.load(open(sys.argv[1]))["loops"]]
assert l == [(0x100, 0x140, 5, 1, 1, 1), (0x110, 0x130, 3, 0, 1, 1)], l
PY'
check "--loops table" 'grep -q "| 100-140 | 5 | 1 | 1 | 1 |" "$T/loops.md"'
python3 "$SRC/perf/sass/sass_lines.py" --sass "$T/loops.sass" --root "$SRC" --loops 4 --json "$T/loops4.json" \
  > /dev/null; rc=$?
check "--loops MIN drops the inner loop" '[ $rc -eq 0 ] && python3 -c "import json,sys; l=json.load(open(sys.argv[1]))[\"loops\"]; assert [x[\"sass\"] for x in l] == [5], l" "$T/loops4.json"'
python3 "$SRC/perf/sass/sass_lines.py" --root "$SRC" > /dev/null 2> "$T/err"; rc=$?
check "no input is an error" '[ $rc -ne 0 ] && grep -q "give a cubin and --kernel, or --sass" "$T/err"'
finish
