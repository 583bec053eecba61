#!/usr/bin/env bash
# `cmake --install`: an installed impact works without the source tree. The install rules
# (CMakeLists.txt, python/CMakeLists.txt) put PREFIX/bin/impact, the plotting scripts it runs in
# PREFIX/share/impactbatch/plot and the Python package in PREFIX/lib/python3/dist-packages; from a
# folder outside both trees the installed binary draws a study's and a calibration's plots with
# its own scripts (host/io/python.hpp: a program outside its build tree never reads the source
# tree: without the installed scripts the plots are not drawn), and the installed package imports
# and draws a study's plots too. Nothing is copied from the source tree. Skipped (77) without a
# Python that imports numpy and matplotlib (the plots need them).
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
BUILD=$(dirname "$IMPACT")
PY=$(bash "$SRC/scripts/find_python.sh" numpy matplotlib 2> /dev/null) || {
  echo "skipped: no Python imports numpy and matplotlib"
  exit 77
}
P="$T/prefix"
cmake --install "$BUILD" --prefix "$P" > "$T/install.log" 2>&1; rc=$?
[ $rc -eq 0 ] || cat "$T/install.log" >&2
PLOT="$P/share/impactbatch/plot"
check "installed: the binary and its plotting scripts" \
  '[ $rc -eq 0 ] && [ -x "$P/bin/impact" ] && [ -f "$PLOT/plot_study.py" ] && [ -f "$PLOT/plot_calibration.py" ] && [ -f "$PLOT/plot_common.py" ]'
check "installed: the Python package" '[ -f "$P/lib/python3/dist-packages/impactbatch/__init__.py" ]'

# a folder outside the source and the build tree, with its own config and data
mkdir -p "$T/work" && cd "$T/work" || exit 1
cat > study.toml << 'EOF'
[study]
name = "installed"
scenario = "ball"
law = "jia"

[run]
steps = 100

[design]
kind = "grid"

[params]
e = { linspace = [0.0, 1.0, 5] }
V0x = -1.0
V0z = -5.0
w0y = 2.0
mu = 0.4

[output]
formats = ["csv"]

[[plots]]
kind = "sweep"
x = "e"
y = ["Vx", "wy"]
file = "sweep.png"
EOF
png() { [ -s "$1" ] && head -c 8 "$1" | grep -q PNG; }
"$P/bin/impact" study study.toml --out study > out 2> err; rc=$?
[ $rc -eq 0 ] || cat err >&2
check "study: exits 0, its table written" '[ $rc -eq 0 ] && [ -s study/jia.csv ]'
check "study: the plot drawn by the installed script" 'png study/sweep.png && ! grep -q "not drawn" err'

cat > data.csv << 'EOF'
V0x,w0y,Vx,Vz
-6,-4,-5.41125,1.81608
-6,4,-4.58054,1.78487
-2,-4,-1.6542,1.7998
-2,4,-0.86046,1.80419
2,-4,0.8417,1.79582
2,4,1.64203,1.79913
EOF
cat > calibrate.toml << 'EOF'
[calibrate]
name = "installed"
scenario = "ball"
law = "chatterjee-ruina"
method = "ensemble"

[data]
file = "data.csv"
observed = ["Vx", "Vz"]
sigma = { Vx = 0.02, Vz = 0.02 }

[params]
V0z = -3.0
mu = "uniform:0:1"
e = "uniform:0:1"

[mcmc]
walkers = 8
steps = 60
EOF
"$P/bin/impact" calibrate calibrate.toml --out cal --backend serial -q > out 2> err; rc=$?
[ $rc -eq 0 ] || cat err >&2
check "calibrate: exits 0, its plots drawn by the installed script" \
  '[ $rc -eq 0 ] && png cal/corner.png && png cal/predictive.png && ! grep -q "not drawn" err'

# without its installed scripts the binary draws nothing, and never looks in the source tree
mv "$PLOT" "$T/plot-away"
"$P/bin/impact" study study.toml --out study2 > out 2> err; rc=$?
check "no installed scripts: tables written, plots not drawn, the source tree not tried" \
  '[ $rc -eq 0 ] && [ ! -e study2/sweep.png ] && grep -q "no plot_study.py in $PLOT" err && ! grep -q "$SRC" err'
# IMPACT_PLOT_DIR names another folder of scripts
IMPACT_PLOT_DIR="$T/plot-away" "$P/bin/impact" study study.toml --out study3 > out 2> err; rc=$?
check "IMPACT_PLOT_DIR: the scripts there" '[ $rc -eq 0 ] && png study3/sweep.png'
mv "$T/plot-away" "$PLOT"

# the Python package: its module where it was built (python/CMakeLists.txt), for the build's Python
SITE="$P/lib/python3/dist-packages"
BUILT_PY=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
if ls "$SITE"/impactbatch/_core*.so > /dev/null 2>&1 && [ -n "$BUILT_PY" ]; then
  PYTHONPATH="$SITE" "$BUILT_PY" -c 'import impactbatch' 2> err; rc=$?
  [ $rc -eq 0 ] || cat err >&2
  check "python: the installed package imports" '[ $rc -eq 0 ]'
  PYTHONPATH="$SITE" "$BUILT_PY" -c 'import impactbatch as ib; print(ib.__file__); ib.study("study.toml", out="pystudy", plots=True)' \
    > out 2> err; rc=$?
  [ $rc -eq 0 ] || cat err >&2
  check "python: the installed package's module, and its plots drawn by the installed script" \
    '[ $rc -eq 0 ] && grep -q "^$SITE/impactbatch/__init__.py" out && png pystudy/sweep.png && ! grep -q "not drawn" err'
else
  echo "note: the Python module was not built: the package's import not checked"
fi
cd / && rm -rf "$P"
finish
