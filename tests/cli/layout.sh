#!/usr/bin/env bash
# The architecture of the tree (docs/architecture.md): no file includes a header of a layer that its
# layer's row of the layer table (a DAG) does not list, CMake links the same graph, CLI11 only in the
# command layer, no Eigen in device code, no function in host/, include/
# or kernels/ over 150 lines (no exception: the integrators' solvers too), no libm
# transcendental or Boost.Math distribution outside rmath, no host folder over 3000 lines, no Python
# or bash function over 150 lines and no program of more than 20 lines in a heredoc in the scripts'
# folders, no history (commit hashes, issue, stop and session numbers, dates) in the code
# (scripts/check_layout.py).
set -u
SRC=$2
source "$(dirname "$0")/common.bash"
PY=${IMPACT_PYTHON:-python3}
"$PY" "$SRC/scripts/check_layout.py" "$SRC" --report > "$T/out" 2>&1; rc=$?
cat "$T/out"
check "layers, dependencies and function sizes" '[ $rc -eq 0 ]'
# the checker itself: an upward include and a long function are caught
mkdir -p "$T/tree/host/io" "$T/tree/host/engine" "$T/tree/include/impact" "$T/tree/kernels"
printf '#include "engine/registry.hpp"\n' > "$T/tree/host/io/bad.hpp"
{ echo 'int f() {'; for i in $(seq 1 160); do echo "  int a$i = $i;"; done; echo '  return 0;'; echo '}'; } > "$T/tree/host/engine/long.cpp"
"$PY" "$SRC/scripts/check_layout.py" "$T/tree" > "$T/out2" 2>&1; rc=$?
check "an upward include is a violation" '[ $rc -eq 1 ] && grep -q "io layer includes engine/registry.hpp" "$T/out2"'
check "a 163-line function is a violation" 'grep -q "function f is 163 lines" "$T/out2"'
# in include/ and kernels/ too, and libm or Boost.Math where rmath must be used
{ echo 'inline int g() {'; for i in $(seq 1 155); do echo "  int a$i = $i;"; done; echo '  return 0;'; echo '}'; } > "$T/tree/include/impact/long.hpp"
printf '#include <cmath>\ndouble h(double x) { return std::atan2(x, 1.0) + exp(x) + rmath::exp(x); }\n' > "$T/tree/kernels/libm.hpp"
printf '#include <boost/math/distributions/normal.hpp>\n' > "$T/tree/host/engine/boost.cpp"
printf '// std::exp(x) in a comment is no call\nconst char* s = "sin(x)";\n' > "$T/tree/host/engine/quiet.cpp"
"$PY" "$SRC/scripts/check_layout.py" "$T/tree" > "$T/out3" 2>&1; rc=$?
check "a 158-line function in include/ is a violation" '[ $rc -eq 1 ] && grep -q "include/impact/long.hpp:1: function g is 158 lines" "$T/out3"'
check "std::atan2 and exp in kernels/ are violations, rmath::exp is not" \
  '[ $(grep -c "kernels/libm.hpp:2: libm" "$T/out3") -eq 2 ] && grep -q "libm.s atan2()" "$T/out3" && grep -q "libm.s exp()" "$T/out3"'
check "Boost.Math's distributions are a violation" 'grep -q "host/engine/boost.cpp:1: Boost.Math" "$T/out3"'
check "a libm name in a comment or a string is not" '! grep -q "quiet.cpp" "$T/out3"'
# the integrators' solvers have no exception: a long solver is cut into short phases like any function
mkdir -p "$T/tree/include/impact/laws"
{ echo 'template <class T> T solve(T x) {'; for i in $(seq 1 152); do echo "  x += T($i);"; done; echo '  return x;'; echo '}'; } > "$T/tree/include/impact/laws/jia.hpp"
"$PY" "$SRC/scripts/check_layout.py" "$T/tree" > "$T/out4" 2>&1
check "a 155-line JiaLaw-style solve in laws/jia.hpp is a violation" 'grep -q "include/impact/laws/jia.hpp:1: function solve is 155 lines" "$T/out4"'
# no host folder over 3000 lines (a folder that grows past it holds several roles: split it by role);
# the layers as folders, each a room: study below sampled, systems below study
mkdir -p "$T/big/host/study" "$T/big/host/systems"
for k in 1 2 3 4; do
  { for i in $(seq 1 760); do echo "int s${k}_$i = $i;"; done; } > "$T/big/host/study/part$k.cpp"
done
printf '#include "study/run.hpp"\n' > "$T/big/host/systems/up.hpp"
printf '#include "sampled/reduce.hpp"\n' > "$T/big/host/study/up.hpp"
"$PY" "$SRC/scripts/check_layout.py" "$T/big" > "$T/out5" 2>&1; rc=$?
check "a host folder of 3041 lines is a violation" '[ $rc -eq 1 ] && grep -q "host/study: 3041 lines (at most 3000)" "$T/out5"'
check "systems may not include study, nor study sampled" \
  'grep -q "the systems layer includes study/run.hpp" "$T/out5" && grep -q "the study layer includes sampled/reduce.hpp" "$T/out5"'
"$PY" "$SRC/scripts/check_layout.py" "$T/big" --max-folder-lines 4000 > "$T/out6" 2>&1
check "and 3041 lines pass a bound of 4000" '! grep -q "host/study: 3041" "$T/out6"'
# the layers are a DAG, the table USES: an include outside a layer's row is a violation that names the
# edge and the table (design, once drawn above reference, uses only core and io); one in it is not, and
# an impact_layer(...) line of CMakeLists.txt links exactly its layer's row
mkdir -p "$T/dag/host/design" "$T/dag/host/dist"
printf '#include "reference/compare.hpp"\n#include "io/csv.hpp"\n#include "design/design.hpp"\n' > "$T/dag/host/design/side.hpp"
printf '#include "resume/process_group.hpp"\n' > "$T/dag/host/dist/ok.hpp"
printf 'impact_layer(impact_design design impact_io)\nimpact_layer(impact_dist dist impact_calibrate MPI::MPI_CXX)\n' > "$T/dag/CMakeLists.txt"
"$PY" "$SRC/scripts/check_layout.py" "$T/dag" > "$T/out10" 2>&1; rc=$?
check "an include outside the layer table is a violation that names the edge and the table" \
  '[ $rc -eq 1 ] && grep -q "host/design/side.hpp:1: the design layer includes reference/compare.hpp: the edge design -> reference is not in the layer table (USES in scripts/check_layout.py, drawn in docs/architecture.md)" "$T/out10"'
check "includes in the table are not" '! grep -q "side.hpp:[23]\|ok.hpp" "$T/out10"'
check "an impact_layer(...) line linking other layers than its row is a violation" \
  'grep -q "CMakeLists.txt:2: impact_dist links other layer libraries than dist.s row of the layer table (USES, docs/architecture.md): not listed \[.calibrate.\], listed but not linked \[.resume.\]" "$T/out10" && ! grep -q "CMakeLists.txt:1" "$T/out10"'
"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import check_layout as c; print(c.table_errors(c.USES))
print(c.table_errors({"a": {"b"}, "b": {"c"}, "c": {"a"}, "cli": {"python"}, "python": {"dist"}, "dist": set()}))' \
  "$SRC/scripts" > "$T/out11" 2>&1
check "the layer table is a DAG; a cycle, a front end listed by a layer and dist in python are violations" \
  '[ "$(head -1 "$T/out11")" = "[]" ] && grep -q "cycle, a -> b -> c -> a" "$T/out11" &&
   grep -q "cli lists the front end python" "$T/out11" && grep -q "python lists dist" "$T/out11"'
# the scripts (python/, scripts/, benches/, perf/, tests/, examples/): no Python or bash function over
# 150 lines, no program of more than 20 lines in a heredoc (a module instead); a data heredoc, a
# 20-line program and a one-line function with a brace in a string pass
check "the report names the longest function per language" \
  'grep -q "^longest C++ function: [0-9]* lines, " "$T/out" && grep -q "^longest Python function: [0-9]* lines, " "$T/out" && grep -q "^longest bash function: [0-9]* lines, " "$T/out"'
mkdir -p "$T/sc/scripts" "$T/sc/perf" "$T/sc/tests/cli" "$T/sc/host/engine"
{ echo '@property'; echo 'def long_py(x):'; for i in $(seq 1 150); do echo "    x += $i"; done; echo '    return x'
  echo 'class K:'; echo '    def short(self):'; echo '        return 1'; } > "$T/sc/scripts/long.py"
printf 'def broken(:\n' > "$T/sc/scripts/broken.py"
{ echo 'long_sh() {'; for i in $(seq 1 150); do echo "  echo $i"; done; echo '}'; echo "brace() { echo '{'; }"; } > "$T/sc/perf/long.sh"
{ echo 'python3 - "$1" << '"'PY'"; for i in $(seq 1 21); do echo "x$i = $i"; done; echo 'PY'
  echo 'cat > "$T/data.csv" << EOF'; for i in $(seq 1 30); do echo "$i,$i"; done; echo 'EOF'
  echo 'cat > "$T/ok.py" << EOF'; for i in $(seq 1 20); do echo "y$i = $i"; done; echo 'EOF'; } > "$T/sc/tests/cli/here.sh"
"$PY" "$SRC/scripts/check_layout.py" "$T/sc" --report > "$T/out7" 2>&1; rc=$?
check "a 152-line Python function (its decorator not counted) is a violation" \
  '[ $rc -eq 1 ] && grep -q "scripts/long.py:2: Python function long_py is 152 lines (at most 150)" "$T/out7"'
check "a 152-line bash function is a violation" 'grep -q "perf/long.sh:1: bash function long_sh is 152 lines (at most 150)" "$T/out7"'
check "a 21-line Python program in a heredoc is a violation" \
  'grep -q "tests/cli/here.sh:1: a 21-line program in a heredoc (<<PY; at most 20): make it a module" "$T/out7"'
check "a data heredoc, a 20-line program and short functions are not" \
  '[ $(grep -c "check_layout: .*here.sh" "$T/out7") -eq 1 ] && ! grep -q "brace\|short" "$T/out7"'
check "a Python file that does not parse is a violation" 'grep -q "scripts/broken.py:1: not parsed as Python" "$T/out7"'
check "the report: the longest Python and bash functions" \
  'grep -q "^longest Python function: 152 lines, scripts/long.py:2 long_py" "$T/out7" && grep -q "^longest bash function: 152 lines, perf/long.sh:1 long_sh" "$T/out7"'
# no history in the code (rule 6): a commit hash, an issue, stop or session number and a date in a
# comment or a string are violations at FILE:LINE, every one printed; not data: 0x-constants, a
# sha256 digest, numbers in scientific notation, words in code, tests/data/ and the fuzz corpora.
# The words are cut in pieces here ("36""80a0a") so that this file holds none itself.
H="3680""a0a" D="2026-""11-27" I="iss""ue 21" S="st""op 4" N="sess""ion 7" W="abc""1234"
mkdir -p "$T/hist/host/engine" "$T/hist/scripts" "$T/hist/tests/data" "$T/hist/tests/fuzz/corpus/law" \
  "$T/hist/tests/fuzz/findings"
{ echo '// the rule and its reason'; echo "// as the $H kernels ran it"; echo "const char* s = \"see $I\";"
  echo "int $W = 0;  // on an H200, $D"; echo '// 0x3680a0a1, 1.7976931348623157e308, 2.4703282292062328e-324'
  echo "// e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 (sha256)"; } > "$T/hist/host/engine/hist.cpp"
{ echo "\"\"\"The $S notes.\"\"\""; echo "$W = 1"; echo "x = 2  # $N"; } > "$T/hist/scripts/hist.py"
echo "row,$H,$D" > "$T/hist/tests/data/rows.csv"
echo "$H" > "$T/hist/tests/fuzz/corpus/law/seed"
echo "found by the CI run of $H" > "$T/hist/tests/fuzz/findings/README.md"
"$PY" "$SRC/scripts/check_layout.py" "$T/hist" > "$T/out8" 2>&1; rc=$?
check "a commit hash, an issue number and a date in C++ comments and strings are violations at FILE:LINE" \
  '[ $rc -eq 1 ] && grep -q "host/engine/hist.cpp:2: a commit hash ($H): state the rule and its reason" "$T/out8" &&
   grep -q "host/engine/hist.cpp:3: an issue number ($I)" "$T/out8" && grep -q "host/engine/hist.cpp:4: a date ($D)" "$T/out8"'
check "a stop and a session number in a Python docstring and comment are violations" \
  'grep -q "scripts/hist.py:1: a stop number ($S)" "$T/out8" && grep -q "scripts/hist.py:3: a session number ($N)" "$T/out8"'
check "a data folder's README.md is read" 'grep -q "tests/fuzz/findings/README.md:1: a commit hash ($H)" "$T/out8"'
check "0x-constants, digests, numbers, words in code and data files are not; every finding is counted" \
  '[ $(grep -c "in which build" "$T/out8") -eq 6 ] && ! grep -q "($W)\|tests/data\|corpus\|hist.cpp:[156]:" "$T/out8" &&
   grep -q "6 finding(s) of history in the code" "$T/out8"'
rm "$T/hist/host/engine/hist.cpp" "$T/hist/scripts/hist.py" "$T/hist/tests/fuzz/findings/README.md"
printf '// a CRC-32 check value: 0xcbf43926\nint %s = 0;\n' "$W" > "$T/hist/host/engine/clean.cpp"
"$PY" "$SRC/scripts/check_layout.py" "$T/hist" > "$T/out9" 2>&1; rc=$?
check "the same tree without them passes" '[ $rc -eq 0 ] && grep -q "0 violation(s)" "$T/out9"'
finish
